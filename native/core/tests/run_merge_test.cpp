// A run's processes: RunFamily lists them with their totals, MergeRun puts them under one root
// with a process frame each, and every view of the merged profile keeps each process's numbers.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "strata/core/api.h"
#include "strata/core/run_family.h"
#include "strata/core/run_merge.h"
#include "test_util.h"

namespace strata::core {
namespace {

using format::FrameKind;
using format::kNone;
using test::StatsOf;

struct Process {
  long pid, parent_pid;
  std::string parent_profile, command;
  std::vector<double> cpu;  // samples of `work`
  double gpu = 0;           // one kernel's time (0: no GPU metric at all)
};

// A process's profile: _start (libc, a start-up frame) > <module> > work, optionally a kernel.
std::vector<unsigned char> ProcessProfile(const Process& p) {
  format::ProfileWriter w;
  w.Meta("command", p.command);
  w.Meta("pid", std::to_string(p.pid));
  w.Meta("ended", "exit");
  if (p.parent_pid) {
    w.Meta("parent_pid", std::to_string(p.parent_pid));
    w.Meta("parent_profile", p.parent_profile);
  }
  const uint32_t cpu = w.Metric("cpu_time", "ns");
  const uint32_t libc = w.Module("/usr/lib/x86_64-linux-gnu/libc.so.6", "", 0);
  const uint32_t start = w.Child(0, w.Frame(FrameKind::kNative, libc, 0x29d90, "__libc_start_call_main", "", 0));
  const uint32_t mod = w.Child(start, w.Frame(FrameKind::kPython, kNone, 0, "<module>", "/src/family.py", 3));
  const uint32_t work = w.Child(mod, w.Frame(FrameKind::kPython, kNone, 0, "work", "/src/family.py", 12));
  format::MetricStats s;
  for (double v : p.cpu) s.Add(v);
  w.AddStats(work, cpu, s);
  if (p.gpu > 0) {
    const uint32_t gpu = w.Metric("gpu_time", "ns");
    const uint32_t k = w.Child(work, w.Frame(FrameKind::kKernel, kNone, 0, "gemm", "", 0));
    w.AddStats(k, gpu, StatsOf({p.gpu}));
  }
  return w.Serialize();
}

class RunMergeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::TempDir();
    test::WriteFile(dir_ + "/run.strata", ProcessProfile({100, 0, "", "python3 family.py", {10, 20}}));
    test::WriteFile(dir_ + "/run.101.strata", ProcessProfile({101, 100, "run.strata", "python3 -c worker", {30, 30, 30}, 500}));
    test::WriteFile(dir_ + "/run.102.strata", ProcessProfile({102, 100, "run.strata", "", {5}}));
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string dir_;
};

size_t Metric(const Profile& p, const std::string& name) {
  auto m = FindMetric(p, name);
  EXPECT_TRUE(m.has_value()) << name;
  return m.value_or(0);
}

TEST_F(RunMergeTest, FamilyCarriesEachProcessTotals) {
  auto members = RunFamily(dir_);
  ASSERT_EQ(members.size(), 3u);
  EXPECT_EQ(members[0].pid, 100);
  EXPECT_EQ(members[1].depth, 1);
  ASSERT_EQ(members[1].totals.size(), 2u);
  EXPECT_EQ(members[1].totals[0].name, "cpu_time");
  EXPECT_DOUBLE_EQ(members[1].totals[0].total, 90);
  EXPECT_EQ(members[1].totals[0].count, 3u);
  EXPECT_EQ(members[1].totals[1].name, "gpu_time");
  EXPECT_DOUBLE_EQ(members[1].totals[1].total, 500);
  EXPECT_EQ(members[0].totals.size(), 1u) << "no GPU metric without GPU values";
}

TEST_F(RunMergeTest, ProcessesUnderOneRootWithTheirOwnNumbers) {
  auto members = RunFamily(dir_);
  auto merged = MergeRun(members);
  EXPECT_EQ(merged->meta("processes").value_or(""), "3");
  EXPECT_EQ(merged->meta("command").value_or(""), "python3 family.py");
  const size_t cpu = Metric(*merged, "cpu_time"), gpu = Metric(*merged, "gpu_time");
  EXPECT_DOUBLE_EQ(merged->total(cpu), 125);
  EXPECT_EQ(merged->total_count(cpu), 6u);
  EXPECT_DOUBLE_EQ(merged->total(gpu), 500);

  View v = merged->BuildView(ViewKind::kTopDown, ViewOptions{cpu, true, FrameFilter::kAll, false});
  std::map<std::string, double> by_process;
  for (size_t i = 1; i < v.size(); ++i) {
    if (v.parent[i] != 0) continue;
    EXPECT_EQ(v.frame(i).kind, "process");
    EXPECT_EQ(v.frame(i).origin, FrameOrigin::kNone);
    by_process[v.frame(i).name] = v.metric(i, cpu).inclusive;
  }
  ASSERT_EQ(by_process.size(), 3u);
  EXPECT_DOUBLE_EQ(by_process["python3 family.py (pid 100)"], 30);
  EXPECT_DOUBLE_EQ(by_process["python3 -c worker (pid 101)"], 90);
  EXPECT_DOUBLE_EQ(by_process["pid 102"], 5);
  // The process frame's address is its pid (typed, not parsed back from the name).
  bool pid_address = false;
  for (const auto& f : *v.frame_table) pid_address |= f.kind == "process" && f.address == 101;
  EXPECT_TRUE(pid_address);
}

TEST_F(RunMergeTest, PythonViewFoldsEachProcessStartUp) {
  auto merged = MergeRun(RunFamily(dir_));
  View v = merged->BuildView(ViewKind::kTopDown, ViewOptions{0, true, FrameFilter::kPython, false});
  ASSERT_EQ(v.filter, FrameFilter::kPython);
  // Below each process frame the start-up frame is folded: <module> is the process's child.
  int modules = 0;
  for (size_t i = 1; i < v.size(); ++i) {
    EXPECT_NE(v.frame(i).name, "__libc_start_call_main");
    if (v.frame(i).name == "<module>") {
      ++modules;
      EXPECT_EQ(v.frame(size_t(v.parent[i])).kind, "process");
    }
  }
  EXPECT_EQ(modules, 3);
  View bu = merged->BuildView(ViewKind::kBottomUp, 0);
  EXPECT_DOUBLE_EQ(bu.metric(0, 0).inclusive, 125);
}

TEST_F(RunMergeTest, FromOneProfileItsRunOnly) {
  // A child's profile: its own subtree (itself), not its siblings.
  auto members = RunFamily(dir_ + "/run.101.strata");
  ASSERT_EQ(members.size(), 1u);
  auto merged = MergeRun(members);
  EXPECT_DOUBLE_EQ(merged->total(0), 90);
}

TEST_F(RunMergeTest, UnreadableMemberIsOneLineNamingIt) {
  auto members = RunFamily(dir_);
  test::WriteFile(dir_ + "/run.101.strata", {'n', 'o', 'p', 'e'});
  try {
    MergeRun(members);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("run.101.strata: ", 0), 0u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  EXPECT_THROW(MergeRun({}), Error);
}

}  // namespace
}  // namespace strata::core
