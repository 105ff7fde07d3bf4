// Real programs with the runtime preloaded: the C++ target and CPython with a 75/25 split,
// fatal and terminating signals, and a child that inherits LD_PRELOAD.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "profile_reader.h"

extern char** environ;

namespace {

using strata::format::FrameKind;
using strata::rt::test::Profile;

std::string OutPath(const std::string& name) {
  return std::string(::testing::TempDir()) + "/strata_rt_" + name + "_" + std::to_string(getpid()) + ".strata";
}

struct RunResult {
  pid_t pid = -1;
  int status = 0;
};

// fork/exec with the runtime preloaded; `during` runs in the parent while the child lives.
RunResult Launch(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
           const std::function<void(pid_t)>& during = nullptr) {
  std::vector<std::string> envs;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    if (kv.rfind("STRATA_", 0) == 0 || kv.rfind("LD_PRELOAD=", 0) == 0) continue;
    envs.push_back(kv);
  }
  envs.push_back("LD_PRELOAD=" STRATA_RUNTIME_SO);
  for (auto& [k, v] : env) envs.push_back(k + "=" + v);
  std::vector<char*> a, e;
  for (auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  for (auto& s : envs) e.push_back(const_cast<char*>(s.c_str()));
  e.push_back(nullptr);
  RunResult r;
  r.pid = fork();
  if (r.pid == 0) {
    signal(SIGINT, SIG_DFL);  // as from a terminal, whatever the test runner had
    signal(SIGTERM, SIG_DFL);
    execve(a[0], a.data(), e.data());
    _exit(127);
  }
  if (during) during(r.pid);
  waitpid(r.pid, &r.status, 0);
  return r;
}

Profile Load(const std::string& path) {
  Profile p;
  std::string err;
  EXPECT_TRUE(strata::rt::test::ReadProfile(path, &p, &err)) << err << " (" << path << ")";
  return p;
}

// Share of `metric` landing under a frame named `a` versus one named `b` (nearest to the leaf).
double Share(const Profile& p, const std::string& metric, const std::string& a, const std::string& b,
             FrameKind kind) {
  uint32_t m = 0xFFFFFFFF;
  for (uint32_t i = 0; i < p.metrics.size(); ++i) if (p.Str(p.metrics[i].name) == metric) m = i;
  EXPECT_NE(m, 0xFFFFFFFFu) << "metric " << metric << " missing";
  double sa = 0, sb = 0;
  for (const auto& nm : p.node_metrics) {
    if (nm.metric != m) continue;
    for (const auto* f : p.PathOf(nm.node)) {
      if (FrameKind(f->kind) != kind) continue;
      const std::string& n = p.Str(f->name);
      if (n == a) { sa += nm.sum; break; }
      if (n == b) { sb += nm.sum; break; }
    }
  }
  EXPECT_GT(sa + sb, 0.0);
  printf("share of %s vs %s (%s): %.3f\n", a.c_str(), b.c_str(), metric.c_str(), sa / (sa + sb));
  return sa + sb > 0 ? sa / (sa + sb) : 0;
}

TEST(RealPrograms, CppSplitCpuTime) {
  std::string out = OutPath("cpp");
  // 2 ms period: ~400 samples keep the sampling error of the share well under the tolerance.
  RunResult r = Launch({STRATA_CPU_SPLIT, "split", "300"}, {{"STRATA_OUTPUT", out}, {"STRATA_PERIOD_MS", "2"}});
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
  Profile p = Load(out);
  EXPECT_EQ(p.meta["ended"], "exit");
  EXPECT_EQ(p.meta["mode"], "cpu");
  EXPECT_EQ(p.meta["python"], "none");
  EXPECT_EQ(p.meta["pid"], std::to_string(r.pid));
  EXPECT_EQ(p.meta["period_ns"], "2000000");
  EXPECT_GT(std::stoul(p.meta["samples"]), 100u);
  double share = Share(p, "cpu_time", "hot_work", "cold_work", FrameKind::kNative);
  EXPECT_NEAR(share, 0.75, 0.10);
  // Native frames carry module + address in module; the executable's module has a build id.
  bool found_main = false;
  for (const auto& f : p.frames)
    if (p.Str(f.name) == "main" && f.module < p.modules.size()) {
      found_main = true;
      EXPECT_NE(p.Str(p.modules[f.module].build_id), "");
    }
  EXPECT_TRUE(found_main);
  std::remove(out.c_str());
}

TEST(RealPrograms, CppSplitWallTimeFractionalPeriod) {
  std::string out = OutPath("wall");
  RunResult r = Launch({STRATA_CPU_SPLIT, "split", "80"},
                 {{"STRATA_OUTPUT", out}, {"STRATA_MODE", "wall"}, {"STRATA_PERIOD_MS", "0.5"}});
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
  Profile p = Load(out);
  EXPECT_EQ(p.meta["mode"], "wall");
  EXPECT_EQ(p.meta["period_ns"], "500000");
  EXPECT_NEAR(Share(p, "wall_time", "hot_work", "cold_work", FrameKind::kNative), 0.75, 0.10);
  std::remove(out.c_str());
}

void PythonSplit(const std::string& python) {
  std::string out = OutPath("py");
  RunResult r = Launch({python, STRATA_TEST_SOURCE_DIR "/targets/split.py", "50"},
                     {{"STRATA_OUTPUT", out}, {"STRATA_PERIOD_MS", "2"}});
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
  Profile p = Load(out);
  EXPECT_EQ(p.meta["python"].rfind("3.", 0), 0u) << p.meta["python"];
  EXPECT_EQ(p.meta["python"].find("unsupported"), std::string::npos) << p.meta["python"];
  EXPECT_NEAR(Share(p, "cpu_time", "hot", "cold", FrameKind::kPython), 0.75, 0.10);
  // Merged paths: Python frames sit under native frames, and no eval-loop frame remains
  // wherever its Python frames were spliced in.
  int py_paths = 0, merged = 0;
  for (const auto& nm : p.node_metrics) {
    auto path = p.PathOf(nm.node);
    bool has_py = false, native_above = false, eval_left = false;
    for (const auto* f : path) {
      if (FrameKind(f->kind) == FrameKind::kPython) {
        has_py = true;
        if (p.Str(f->name) == "hot" || p.Str(f->name) == "cold") {
          EXPECT_NE(p.Str(f->file).find("split.py"), std::string::npos);
          EXPECT_GT(f->line, 0u);
        }
      } else if (has_py) {
        native_above = true;
      }
      if (p.Str(f->name) == "_PyEval_EvalFrameDefault") eval_left = true;
    }
    if (has_py) { ++py_paths; if (native_above && !eval_left) ++merged; }
  }
  EXPECT_GT(py_paths, 0);
  EXPECT_GE(merged * 10, py_paths * 9) << merged << "/" << py_paths;
  std::remove(out.c_str());
}

TEST(RealPrograms, PythonSplitSystem311) { PythonSplit("/usr/bin/python3"); }

// Every CPython 3.9-3.13 the build found under pyenv ("3.9=/path,3.10=/path,...").
TEST(RealPrograms, PythonSplitPyenv) {
  std::string all = STRATA_TEST_PYTHONS, item;
  std::stringstream ss(all);
  int n = 0;
  while (std::getline(ss, item, ',')) {
    if (item.find('=') == std::string::npos) continue;
    SCOPED_TRACE(item);
    PythonSplit(item.substr(item.find('=') + 1));
    ++n;
  }
  if (!n) GTEST_SKIP() << "no pyenv python found";
}

// 32 Python threads taking turns on the GIL: each is sampled on its own CPU clock, so every
// thread's function shows up, nothing is dropped, and the meta says what a sample cost.
TEST(RealPrograms, ManyPythonThreadsEachSampled) {
  constexpr int kThreads = 32;
  std::string out = OutPath("threads");
  RunResult r = Launch({"/usr/bin/python3", STRATA_TEST_SOURCE_DIR "/targets/many_threads.py",
                        std::to_string(kThreads), "0.04"},
                       {{"STRATA_OUTPUT", out}, {"STRATA_PERIOD_MS", "2"}});
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
  Profile p = Load(out);
  EXPECT_EQ(p.meta["samples_dropped"], "0");
  EXPECT_GE(std::stoul(p.meta["threads_seen"]), uint64_t(kThreads + 1));
  EXPECT_NE(p.meta["sampler"].find("us a sample"), std::string::npos) << p.meta["sampler"];
  std::set<std::string> sampled;
  for (const auto& nm : p.node_metrics)
    for (const auto* f : p.PathOf(nm.node))
      if (FrameKind(f->kind) == FrameKind::kPython && p.Str(f->name).rfind("spin_", 0) == 0)
        sampled.insert(p.Str(f->name));
  EXPECT_EQ(sampled.size(), size_t(kThreads));
  std::remove(out.c_str());
}

TEST(RealPrograms, SigsegvLeavesProfile) {
  std::string out = OutPath("segv");
  RunResult r = Launch({STRATA_CPU_SPLIT, "segv"}, {{"STRATA_OUTPUT", out}});
  ASSERT_TRUE(WIFSIGNALED(r.status));
  EXPECT_EQ(WTERMSIG(r.status), SIGSEGV);
  Profile p = Load(out);
  EXPECT_EQ(p.meta["ended"], "signal SIGSEGV");
  EXPECT_GT(std::stoul(p.meta["samples"]), 5u);
  std::remove(out.c_str());
}

// A fault while the handler reads memory (forced every 3rd sample by a test hook) costs that
// sample, counted as an unwind failure, and the program runs to a normal exit.
TEST(RealPrograms, FaultInHandlerIsContained) {
  std::string out = OutPath("fault");
  RunResult r = Launch({STRATA_CPU_SPLIT, "split", "60"},
                       {{"STRATA_OUTPUT", out}, {"STRATA_PERIOD_MS", "2"}, {"STRATA_DEBUG_FAULT_EVERY", "3"}});
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
  Profile p = Load(out);
  EXPECT_EQ(p.meta["ended"], "exit");
  EXPECT_GT(std::stoul(p.meta["unwind_failures"]), 5u);
  EXPECT_GT(std::stoul(p.meta["samples"]), 10u);
  std::remove(out.c_str());
}

TEST(RealPrograms, SigtermLeavesProfile) {
  std::string out = OutPath("term");
  RunResult r = Launch({STRATA_CPU_SPLIT, "spin"}, {{"STRATA_OUTPUT", out}}, [](pid_t pid) {
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    kill(pid, SIGTERM);
  });
  ASSERT_TRUE(WIFSIGNALED(r.status));
  EXPECT_EQ(WTERMSIG(r.status), SIGTERM);
  Profile p = Load(out);
  EXPECT_EQ(p.meta["ended"], "signal SIGTERM");
  std::remove(out.c_str());
}

// A program's own SIGTERM handler still runs (chained); the profile is written at its exit.
TEST(RealPrograms, ProgramSigtermHandlerIsChained) {
  std::string out = OutPath("ownterm");
  RunResult r = Launch({STRATA_CPU_SPLIT, "own-term"}, {{"STRATA_OUTPUT", out}}, [](pid_t pid) {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    kill(pid, SIGTERM);
  });
  ASSERT_TRUE(WIFEXITED(r.status));
  EXPECT_EQ(WEXITSTATUS(r.status), 3);
  Profile p = Load(out);
  EXPECT_EQ(p.meta["ended"], "exit");
  std::remove(out.c_str());
}

// CPython keeps its KeyboardInterrupt on SIGINT under the runtime.
TEST(RealPrograms, PythonKeyboardInterruptStillWorks) {
  std::string out = OutPath("kbi");
  const std::string ready = out + ".ready";
  std::remove(ready.c_str());
  // SIGINT once the program is inside its try block (a loaded machine can take longer than any
  // fixed delay to start Python).
  RunResult r = Launch({"/usr/bin/python3", STRATA_TEST_SOURCE_DIR "/targets/keyboard_interrupt.py"},
                       {{"STRATA_OUTPUT", out}, {"READY_FILE", ready}}, [&ready](pid_t pid) {
                         for (int i = 0; i < 3000 && access(ready.c_str(), F_OK) != 0; ++i)
                           std::this_thread::sleep_for(std::chrono::milliseconds(10));
                         std::this_thread::sleep_for(std::chrono::milliseconds(100));
                         kill(pid, SIGINT);
                       });
  std::remove(ready.c_str());
  ASSERT_TRUE(WIFEXITED(r.status)) << "status " << r.status;
  EXPECT_EQ(WEXITSTATUS(r.status), 0);
  Profile p = Load(out);
  EXPECT_EQ(p.meta["ended"], "exit");
  std::remove(out.c_str());
}

// The exec'd child and the forked child (whose exit runs the inherited atexit handlers) write
// profiles of their own beside the first one, never over it.
TEST(RealPrograms, ChildrenDoNotOverwrite) {
  std::string out = OutPath("spawn");
  RunResult r = Launch({STRATA_CPU_SPLIT, "spawn"}, {{"STRATA_OUTPUT", out}});
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
  Profile p = Load(out);
  EXPECT_EQ(p.meta["pid"], std::to_string(r.pid));
  EXPECT_NE(p.meta["command"].find("spawn"), std::string::npos) << p.meta["command"];
  EXPECT_EQ(p.meta["ended"], "exit");
  std::remove(out.c_str());
  std::string stem = out.substr(0, out.size() - 7);
  std::string list = "ls " + stem + ".*.strata 2>/dev/null | wc -l > " + stem + ".count";
  ASSERT_EQ(system(list.c_str()), 0);
  std::ifstream count(stem + ".count");
  int children = 0;
  count >> children;
  EXPECT_EQ(children, 2);
  std::string rm = "rm -f " + stem + ".*.strata " + stem + ".count";
  ASSERT_EQ(system(rm.c_str()), 0);
}

// A shell that execs the real program (a pyenv shim does this): the timer and a pending SIGPROF
// survive execve while the handler does not, so without the exec interposers the new image dies
// of SIGPROF before its runtime starts. The exec'd program keeps the pid and is the one profiled.
TEST(RealPrograms, ExecInPlaceKeepsProfiling) {
  for (int i = 0; i < 5; ++i) {
    std::string out = OutPath("exec" + std::to_string(i));
    std::string script = "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; exec " STRATA_CPU_SPLIT " split 40";
    RunResult r = Launch({"/bin/bash", "-c", script}, {{"STRATA_OUTPUT", out}, {"STRATA_PERIOD_MS", "1"}});
    ASSERT_TRUE(WIFEXITED(r.status)) << "run " << i << " killed by signal " << WTERMSIG(r.status);
    ASSERT_EQ(WEXITSTATUS(r.status), 0);
    Profile p = Load(out);
    EXPECT_EQ(p.meta["pid"], std::to_string(r.pid));
    EXPECT_NE(p.meta["command"].find("split"), std::string::npos) << p.meta["command"];
    std::remove(out.c_str());
  }
}

// An exec that fails returns to the program with sampling running again.
TEST(RealPrograms, FailedExecResumesSampling) {
  std::string out = OutPath("execfail");
  std::string script =
      "shopt -s execfail; exec /nonexistent/strata-no-such-program; "
      "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done";
  RunResult r = Launch({"/bin/bash", "-c", script}, {{"STRATA_OUTPUT", out}, {"STRATA_PERIOD_MS", "1"}});
  ASSERT_TRUE(WIFEXITED(r.status)) << "killed by signal " << WTERMSIG(r.status);
  Profile p = Load(out);
  EXPECT_GT(std::stoul(p.meta["samples"]), 50u) << "sampling did not resume after the failed exec";
  std::remove(out.c_str());
}

// The dlopen interposer (loader-busy flag) must not change which library a bare name resolves
// to: glibc would otherwise search the runtime's RUNPATH instead of the caller's.
TEST(RealPrograms, DlopenKeepsCallerRunpath) {
  std::string out = OutPath("dlopen");
  RunResult r = Launch({STRATA_DLOPEN_RUNPATH}, {{"STRATA_OUTPUT", out}});
  ASSERT_TRUE(WIFEXITED(r.status));
  EXPECT_EQ(WEXITSTATUS(r.status), 0);
  std::remove(out.c_str());
}

TEST(RealPrograms, InactiveWithoutOutputOrForOtherPid) {
  std::string out = OutPath("other");
  RunResult r = Launch({STRATA_CPU_SPLIT, "split", "2"}, {{"STRATA_OUTPUT", out}, {"STRATA_TARGET_PID", "1"}});
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
  EXPECT_NE(access(out.c_str(), F_OK), 0);
  RunResult r2 = Launch({STRATA_CPU_SPLIT, "split", "2"}, {});
  ASSERT_TRUE(WIFEXITED(r2.status) && WEXITSTATUS(r2.status) == 0);
}

}  // namespace
