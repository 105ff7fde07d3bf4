// A distributed job's run with a rank dimension: rank meta read into RunMember, one run per
// folder, ranks merged by calling context with per-rank values (RankSpread), a rank's workers
// under it, ranks that ended badly or left no profile named; then real 4-rank gloo jobs
// (test/fixtures/rankview, recorded by test/rankview/record_fixtures.sh): the rank rules find
// the planted straggler and its line, and nothing on the balanced job.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "strata/core/analyze.h"
#include "strata/core/api.h"
#include "strata/core/rank_run.h"
#include "strata/core/run_family.h"
#include "test_util.h"

namespace strata::core {
namespace {

using format::FrameKind;
using format::kNone;

struct Proc {
  long pid, parent_pid;
  std::string parent_profile;
  int rank;  // -1: no rank meta
  std::string run_id;
  double work, extra;  // cpu time under work() and under extra() (0: no such node)
  std::string ended = "exit";
};

std::vector<unsigned char> RankProfile(const Proc& p) {
  format::ProfileWriter w;
  w.Meta("pid", std::to_string(p.pid));
  w.Meta("command", "python3 train.py");
  w.Meta("ended", p.ended);
  w.Meta("start_unix_ns", "1000000000");
  w.Meta("duration_ns", "500000000");
  if (p.parent_pid) {
    w.Meta("parent_pid", std::to_string(p.parent_pid));
    w.Meta("parent_profile", p.parent_profile);
  }
  if (p.rank >= 0) {
    w.Meta("rank", std::to_string(p.rank));
    w.Meta("local_rank", std::to_string(p.rank));
    w.Meta("world_size", "4");
    w.Meta("node_rank", "0");
    w.Meta("host", "node-a");
  }
  if (!p.run_id.empty()) w.Meta("run_id", p.run_id);
  const uint32_t cpu = w.Metric("cpu_time", "ns");
  const uint32_t mod = w.Child(0, w.Frame(FrameKind::kPython, kNone, 0, "<module>", "/src/train.py", 3));
  // The library's load bias differs per process: the frame is still one frame once merged.
  const uint32_t lib = w.Module("/usr/lib/libwork.so", "ab", 0x7f0000000000 + uint64_t(p.pid) * 0x1000);
  const uint32_t work = w.Child(mod, w.Frame(FrameKind::kPython, kNone, 0, "work", "/src/train.py", 12));
  const uint32_t native = w.Child(work, w.Frame(FrameKind::kNative, lib, 0x1234, "kernel_loop", "", 0));
  w.AddStats(native, cpu, test::StatsOf({p.work}));
  if (p.extra > 0) {
    const uint32_t extra = w.Child(mod, w.Frame(FrameKind::kPython, kNone, 0, "extra", "/src/train.py", 20));
    w.AddStats(extra, cpu, test::StatsOf({p.extra}));
  }
  return w.Serialize();
}

class RankRunTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::TempDir(); }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  void Write(const std::string& name, const Proc& p) { test::WriteFile(dir_ + "/" + name, RankProfile(p)); }
  // torchrun's agent (no rank) and ranks 0..2 of a world of 4; rank 1 has a DataLoader worker;
  // rank 3 left no profile.
  void WriteJob() {
    Write("job.strata", {100, 0, "", -1, "r1", 5, 0});
    Write("job.101.strata", {101, 100, "job.strata", 0, "r1", 100, 0});
    Write("job.102.strata", {102, 100, "job.strata", 1, "r1", 100, 0, "signal SIGTERM"});
    Write("job.103.strata", {103, 100, "job.strata", 2, "r1", 100, 60});
    Write("job.104.strata", {104, 102, "job.102.strata", -1, "r1", 30, 0});  // rank 1's worker
  }
  std::string dir_;
};

TEST_F(RankRunTest, MembersCarryRankMeta) {
  WriteJob();
  auto members = RunFamily(dir_);
  ASSERT_EQ(members.size(), 5u);
  EXPECT_EQ(members[0].rank, -1);
  EXPECT_EQ(members[1].rank, 0);
  EXPECT_EQ(members[1].local_rank, 0);
  EXPECT_EQ(members[1].world_size, 4);
  EXPECT_EQ(members[1].node_rank, 0);
  EXPECT_EQ(members[1].host, "node-a");
  EXPECT_EQ(members[1].run_id, "r1");
  EXPECT_EQ(members[1].start_unix_ns, 1000000000);
  EXPECT_EQ(members[1].duration_ns, 500000000);
  EXPECT_EQ(AbnormalEnd(members[1]), "");
  EXPECT_EQ(AbnormalEnd(members[2]), "signal SIGTERM");
}

TEST_F(RankRunTest, ProfilesOfTwoRunsAreRefusedByName) {
  WriteJob();
  Write("old.strata", {900, 0, "", 0, "r0", 1, 0});
  try {
    RunFamily(dir_);
    FAIL() << "two runs in one folder were accepted";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("2 different runs"), std::string::npos) << msg;
    EXPECT_NE(msg.find("run r0 (old.strata)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("run r1 ("), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line";
  }
}

TEST_F(RankRunTest, RanksMergeByCallingContextWithPerRankValues) {
  WriteJob();
  auto run = RankRun::Open(dir_);
  const auto& ranks = run->ranks();
  ASSERT_EQ(ranks.size(), 3u);
  EXPECT_EQ(ranks[1].rank, 1);
  ASSERT_EQ(ranks[1].profiles.size(), 2u) << "the worker counts under its rank";
  EXPECT_EQ(ranks[1].ended, "signal SIGTERM");
  EXPECT_EQ(ranks[1].host, "node-a");
  EXPECT_EQ(run->missing_ranks(), std::vector<int>{3});
  ASSERT_EQ(run->left_out().size(), 1u);  // the launcher
  const Profile& p = run->profile();
  EXPECT_EQ(p.meta("ranks").value_or(""), "3");
  EXPECT_EQ(p.meta("ranks_ended").value_or(""), "rank 1: signal SIGTERM; rank 3: no profile");
  EXPECT_DOUBLE_EQ(p.total(0), 100 + 130 + 160);

  ViewOptions vo;
  vo.expand = false;
  vo.all_metrics = false;
  vo.filter = FrameFilter::kAll;
  View v = p.BuildView(ViewKind::kTopDown, vo);
  // One node per calling context: <module>, work, kernel_loop (one frame across load biases), extra.
  ASSERT_EQ(v.size(), 5u);
  size_t work = 0, extra = 0;
  for (size_t n = 0; n < v.size(); ++n) {
    if (v.frame(n).name == "work") work = n;
    if (v.frame(n).name == "extra") extra = n;
  }
  ASSERT_GT(work, 0u);
  ASSERT_GT(extra, 0u);
  RankSpread s = run->Spread(v, work, 0);
  EXPECT_EQ(s.values, (std::vector<double>{100, 130, 100}));
  EXPECT_DOUBLE_EQ(s.min, 100);
  EXPECT_DOUBLE_EQ(s.median, 100);
  EXPECT_DOUBLE_EQ(s.max, 130);
  EXPECT_EQ(s.max_rank, 1);
  auto both = run->Spreads(v, {0, extra}, 0);
  EXPECT_EQ(both[0].values, (std::vector<double>{100, 130, 160}));
  EXPECT_EQ(both[1].values, (std::vector<double>{0, 0, 60}));
  EXPECT_EQ(both[1].max_rank, 2);
  // A bottom-up view's nodes split by rank too.
  View bu = p.BuildView(ViewKind::kBottomUp, vo);
  for (size_t n = 0; n < bu.size(); ++n)
    if (bu.parent[n] == 0 && bu.frame(n).name == "extra") EXPECT_EQ(run->Spread(bu, n, 0).values[2], 60);
  // A view that keeps every metric has no landing: a clear error, not wrong numbers.
  View full = p.BuildView(ViewKind::kTopDown, 0);
  if (full.landing.empty()) EXPECT_THROW(run->Spread(full, 1, 0), Error);
}

// A rank of a 2-rank run: the meta RankRun reads.
void RankMeta(format::ProfileWriter& w, long pid, int rank, const std::string& run_id) {
  w.Meta("pid", std::to_string(pid));
  w.Meta("rank", std::to_string(rank));
  w.Meta("world_size", "2");
  w.Meta("run_id", run_id);
}

// A top-down view whose `landing` splits values per rank (all_metrics off), every frame kept.
View TopDownWithLanding(const RankRun& run) {
  ViewOptions vo;
  vo.expand = false;
  vo.all_metrics = false;
  vo.filter = FrameFilter::kAll;
  return run.profile().BuildView(ViewKind::kTopDown, vo);
}

// One line reached by different paths on different ranks (an import under another caller), and
// recursion on one rank: per frame, one row whose values are the paths' sum, recursion once.
TEST_F(RankRunTest, FrameSpreadsMergeTheLinesPaths) {
  auto write = [&](int rank, bool via_setup, bool recursive) {
    format::ProfileWriter w;
    RankMeta(w, 300 + rank, rank, "f");
    const uint32_t cpu = w.Metric("cpu_time", "ns");
    const uint32_t mod = w.Child(0, w.Frame(FrameKind::kPython, kNone, 0, "<module>", "/src/train.py", 1));
    const uint32_t at = via_setup ? w.Child(mod, w.Frame(FrameKind::kPython, kNone, 0, "setup", "/src/train.py", 5)) : mod;
    const uint32_t imp = w.Child(at, w.Frame(FrameKind::kPython, kNone, 0, "load", "/src/load.py", 7));
    w.AddStats(imp, cpu, test::StatsOf({40}));
    if (recursive) w.AddStats(w.Child(imp, w.Frame(FrameKind::kPython, kNone, 0, "load", "/src/load.py", 7)), cpu, test::StatsOf({25}));
    test::WriteFile(dir_ + "/job." + std::to_string(300 + rank) + ".strata", w.Serialize());
  };
  write(0, true, false);
  write(1, false, true);
  auto run = RankRun::Open(dir_);
  const View v = TopDownWithLanding(*run);
  std::vector<size_t> nodes, loads;
  for (size_t n = 1; n < v.size(); ++n) {
    nodes.push_back(n);
    if (v.frame(n).name == "load") loads.push_back(n);
  }
  ASSERT_EQ(loads.size(), 3u) << "per path: under setup, under <module>, and recursive";
  const auto frames = run->FrameSpreads(v, nodes, 0);
  size_t rows = 0;
  for (const auto& f : frames) {
    if (v.frame(f.node).name != "load") continue;
    ++rows;
    EXPECT_EQ(f.spread.values, (std::vector<double>{40, 65})) << "rank 1's recursion counts once";
    EXPECT_EQ(f.frame, v.frame_id[f.node]);
    EXPECT_EQ(f.spread.min_rank, 0);
  }
  EXPECT_EQ(rows, 1u) << "one row for the line";
  for (const auto& f : frames)
    if (v.frame(f.node).name == "setup") EXPECT_EQ(f.spread.values, (std::vector<double>{40, 0}));
}

// GPU activity: the share of a rank's collective-kernel time that its other kernels overlap.
std::vector<unsigned char> GpuRankProfile(int rank, std::vector<std::pair<uint64_t, uint64_t>> compute,
                                          std::vector<std::pair<uint64_t, uint64_t>> nccl) {
  format::ProfileWriter w;
  RankMeta(w, 200 + rank, rank, "g");
  const uint32_t gpu = w.Metric("gpu_time", "ns");
  const uint32_t k = w.Child(0, w.Frame(FrameKind::kKernel, kNone, 0, "gemm", "", 0));
  w.AddStats(k, gpu, test::StatsOf({1}));
  auto add = [&](uint64_t a, uint64_t b, const char* name) {
    format::GpuActivityRecord g{};
    g.start_ns = a;
    g.end_ns = b;
    g.kind = uint32_t(format::GpuActivityKind::kKernel);
    g.node = k;
    g.name = w.String(name);
    w.AddGpuActivity(g);
  };
  for (auto [a, b] : compute) add(a, b, "gemm");
  for (auto [a, b] : nccl) add(a, b, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  w.SetGpuTimeline(0, 1000, {}, {});
  return w.Serialize();
}

TEST_F(RankRunTest, GpuOverlapShareOfCollectiveKernels) {
  test::WriteFile(dir_ + "/a.strata", GpuRankProfile(0, {{0, 100}, {120, 130}}, {{50, 150}}));
  test::WriteFile(dir_ + "/b.strata", GpuRankProfile(1, {}, {{200, 300}}));
  test::WriteFile(dir_ + "/c.strata", GpuRankProfile(2, {{0, 10}}, {}));
  const auto phases = RankRun::Open(dir_)->Phases();
  ASSERT_EQ(phases.size(), 3u);
  ASSERT_TRUE(phases[0].overlap_share.has_value());
  EXPECT_DOUBLE_EQ(*phases[0].overlap_share, 0.6);  // 50 + 10 of 100
  ASSERT_TRUE(phases[1].overlap_share.has_value());
  EXPECT_DOUBLE_EQ(*phases[1].overlap_share, 0.0);
  EXPECT_FALSE(phases[2].overlap_share.has_value()) << "no collective kernel: nothing to overlap";
}

TEST_F(RankRunTest, TwoProcessesClaimingOneRankAreRefused) {
  Write("job.strata", {100, 0, "", -1, "r1", 5, 0});
  Write("job.101.strata", {101, 100, "job.strata", 0, "r1", 100, 0});
  Write("job.102.strata", {102, 100, "job.strata", 0, "r1", 100, 0});
  EXPECT_THROW(RankRun::Open(dir_), Error);
}

TEST_F(RankRunTest, RunWithoutRanksIsNotADistributedJob) {
  Write("job.strata", {100, 0, "", -1, "", 5, 0});
  try {
    RankRun::Open(dir_);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no rank meta"), std::string::npos) << e.what();
  }
}

#ifdef STRATA_RANK_FIXTURES
// Real 4-rank gloo jobs (torchrun, wall-clock sampling): rank 2 runs extra_work() before each
// all_reduce in slow_rank2; balanced has no such work.
const std::string kFixtures = STRATA_RANK_FIXTURES;

std::vector<Finding> RankFindings(const RankRun& run) {
  AnalyzeOptions ao;
  ao.ranks = &run;
  std::vector<Finding> out;
  for (auto& f : Analyze(run.profile(), ao).findings)
    if (f.rule == "straggler" || f.rule == "exposed-communication" || f.rule == "rank-imbalance") out.push_back(f);
  return out;
}

TEST(RankFixtures, StragglerNamesRankTwoAndItsLine) {
  auto run = RankRun::Open(kFixtures + "/slow_rank2");
  ASSERT_EQ(run->ranks().size(), 4u);
  EXPECT_TRUE(run->missing_ranks().empty());
  const auto findings = RankFindings(*run);
  auto it = std::find_if(findings.begin(), findings.end(), [](const Finding& f) { return f.rule == "straggler"; });
  ASSERT_NE(it, findings.end()) << "no straggler finding";
  EXPECT_EQ(it->cause, "rank 2");
  EXPECT_NE(it->message.find("Rank 2 is a straggler"), std::string::npos) << it->message;
  EXPECT_NE(it->location.file.find("gloo_steps.py"), std::string::npos) << it->location.file;
  EXPECT_EQ(it->location.line, 38u) << it->message;  // y = extra_work(y)
  // The straggler is not also an imbalance: rank-imbalance leaves it out. (On this 2-core
  // machine, 4 ranks compete for the cores: the others' compute differs too, by up to ~35% in
  // wall time, which rank-imbalance may report about them, never about rank 2.)
  for (const auto& f : findings) {
    if (f.rule != "rank-imbalance") continue;
    for (const auto& e : f.evidence)
      if (e.name == "max_rank" || e.name == "min_rank") EXPECT_NE(e.value, 2.0) << f.message;
  }
  // Phases: rank 2 computes longest and waits least in the collective.
  const auto phases = run->Phases();
  ASSERT_EQ(phases.size(), 4u);
  for (const auto& p : phases) {
    EXPECT_EQ(p.metric, "wall_time");
    EXPECT_FALSE(p.overlap_share.has_value()) << "CPU-only run";
    EXPECT_GT(p.compute_ns, 0);
    EXPECT_GT(p.communication_ns, 0);
    EXPECT_NEAR(p.compute_ns + p.communication_ns + p.startup_ns + p.idle_ns, p.window_ns, p.window_ns * 1e-9 + 1);
    if (p.rank == 2) continue;
    EXPECT_GT(phases[2].compute_ns, 1.5 * p.compute_ns) << "rank " << p.rank;
    EXPECT_GT(p.communication_ns, phases[2].communication_ns) << "rank " << p.rank;
  }
}

TEST(RankFixtures, BalancedJobHasNoRankFinding) {
  auto run = RankRun::Open(kFixtures + "/balanced");
  ASSERT_EQ(run->ranks().size(), 4u);
  for (const auto& f : RankFindings(*run))
    EXPECT_NE(f.rule, "straggler") << f.message;
  for (const auto& f : RankFindings(*run))
    EXPECT_NE(f.rule, "rank-imbalance") << f.message;
}

TEST(RankFixtures, SpreadOfTheExtraWorkLine) {
  auto run = RankRun::Open(kFixtures + "/slow_rank2");
  ViewOptions vo;
  vo.expand = false;
  vo.all_metrics = false;
  vo.filter = FrameFilter::kAll;
  const size_t wall = FindMetric(run->profile(), "wall_time").value();
  vo.primary_metric = wall;
  View v = run->profile().BuildView(ViewKind::kTopDown, vo);
  bool found = false;
  for (size_t n = 0; n < v.size(); ++n) {
    const FrameInfo& f = v.frame(n);
    if (f.name != "main" || f.line != 38) continue;
    found = true;
    RankSpread s = run->Spread(v, n, wall);
    EXPECT_EQ(s.max_rank, 2);
    EXPECT_EQ(s.min, 0);
    EXPECT_GT(s.max, 0);
  }
  EXPECT_TRUE(found);
}
#endif

#ifdef STRATA_RANKS_RECORDED
// The runtime's own rank meta and collectives (test/fixtures/ranks, test/ranks/record_fixture.sh:
// gloo_job.py under torchrun, CPU sampling; rank 2 runs slow_down() at line 55 before each
// all_reduce; in gloo4_killed rank 1 SIGKILLs itself).
const std::string kRecorded = STRATA_RANKS_RECORDED;

TEST(RankRecorded, StragglerAndStepsFromTheRuntimesMeta) {
  auto run = RankRun::Open(kRecorded + "/gloo4");
  ASSERT_EQ(run->ranks().size(), 4u);
  const auto findings = RankFindings(*run);
  auto it = std::find_if(findings.begin(), findings.end(), [](const Finding& f) { return f.rule == "straggler"; });
  ASSERT_NE(it, findings.end());
  EXPECT_EQ(it->cause, "rank 2");
  EXPECT_EQ(it->location.line, 55u) << it->message;  // x = slow_down(x, args.slow_ms)
  // CPU sampling sees no waiting in gloo: exposed communication comes from the recorded calls,
  // on the line that issues the all_reduce.
  auto ex = std::find_if(findings.begin(), findings.end(), [](const Finding& f) { return f.rule == "exposed-communication"; });
  ASSERT_NE(ex, findings.end());
  EXPECT_EQ(ex->location.line, 57u) << ex->message;  // dist.all_reduce(grad)
  // Steps from the recorded all_reduce calls, on one clock: rank 2 issues it last.
  const RankSteps steps = run->Steps();
  EXPECT_EQ(steps.collective, "all_reduce");
  EXPECT_NE(steps.file.find("gloo_job.py"), std::string::npos) << steps.file;  // the user's line,
  EXPECT_EQ(steps.line, 57u);                                                  // not torch's
  ASSERT_GE(steps.steps.size(), 10u);
  size_t last = 0;
  for (const auto& st : steps.steps) {
    last += st.last_rank == 2;
    ASSERT_EQ(st.compute_ns.size(), 4u);
    EXPECT_GT(st.compute_ns[2], st.compute_ns[0]);
    EXPECT_GT(st.communication_ns[0], st.communication_ns[2]);
  }
  EXPECT_GE(last, steps.steps.size() * 9 / 10);
  // The per-run split agrees with the steps: communication from the recorded calls (CPU
  // samples saw almost none of the waiting), the slow rank waiting least.
  const auto phases = run->Phases();
  ASSERT_EQ(phases.size(), 4u);
  for (const auto& p : phases) {
    EXPECT_TRUE(p.communication_from_calls) << "rank " << p.rank;
    EXPECT_GT(p.communication_ns, 0) << "rank " << p.rank;
    EXPECT_LE(p.compute_ns + p.communication_ns + p.startup_ns, p.window_ns * 1.01) << "rank " << p.rank;
    if (p.rank != 2) EXPECT_GT(p.communication_ns, 2 * phases[2].communication_ns) << "rank " << p.rank;
  }
}

TEST(RankRecorded, KilledRankStillOpensAndIsNamed) {
  auto run = RankRun::Open(kRecorded + "/gloo4_killed");
  ASSERT_EQ(run->ranks().size(), 4u);
  EXPECT_NE(run->ranks()[1].ended.find("SIGKILL"), std::string::npos) << run->ranks()[1].ended;
  EXPECT_NE(run->ranks()[1].ended.find("checkpoint"), std::string::npos) << run->ranks()[1].ended;
  const std::string ended = run->profile().meta("ranks_ended").value_or("");
  EXPECT_NE(ended.find("rank 1: "), std::string::npos) << ended;
  EXPECT_EQ(run->Phases().size(), 4u);
}
#endif

// Spreads of one phase: an import that one rank ran slower, and a step line the ranks differ on
// less. Over the steady state the import's line is gone and the step keeps its values; over
// startup only the import is there.
TEST_F(RankRunTest, FrameSpreadsOfOnePhase) {
  auto write = [&](int rank, double import_ns, double step_ns) {
    format::ProfileWriter w;
    RankMeta(w, 400 + rank, rank, "g");
    const uint32_t cpu = w.Metric("cpu_time", "ns");
    const uint32_t mod = w.Child(0, w.Frame(FrameKind::kPython, kNone, 0, "<module>", "/src/train.py", 1));
    const uint32_t load = w.Child(mod, w.Frame(FrameKind::kPython, kNone, 0, "_find_and_load", "<frozen importlib._bootstrap>", 1360));
    w.AddStats(w.Child(load, w.Frame(FrameKind::kPython, kNone, 0, "<module>", "/src/big_lib.py", 3)), cpu, test::StatsOf({import_ns}));
    w.AddStats(w.Child(mod, w.Frame(FrameKind::kPython, kNone, 0, "step", "/src/train.py", 9)), cpu, test::StatsOf({step_ns}));
    test::WriteFile(dir_ + "/job." + std::to_string(400 + rank) + ".strata", w.Serialize());
  };
  write(0, 100, 30);
  write(1, 900, 50);
  auto run = RankRun::Open(dir_);
  const View v = TopDownWithLanding(*run);
  std::vector<size_t> nodes;
  for (size_t n = 1; n < v.size(); ++n) nodes.push_back(n);
  const std::vector<char> steady = run->StoredIn(RunPart::kSteady);
  const std::vector<char> startup = run->StoredIn(RunPart::kStartup);
  auto values = [&](const std::vector<char>* only, const std::string& name) {
    for (const auto& f : run->FrameSpreads(v, nodes, 0, only))
      if (v.frame(f.node).name == name) return f.spread.values;
    return std::vector<double>{};
  };
  EXPECT_EQ(values(&steady, "step"), (std::vector<double>{30, 50}));
  EXPECT_EQ(values(&steady, "_find_and_load"), (std::vector<double>{0, 0}));
  EXPECT_EQ(values(&startup, "_find_and_load"), (std::vector<double>{100, 900}));
  EXPECT_EQ(values(&startup, "step"), (std::vector<double>{0, 0}));
  EXPECT_EQ(values(&steady, "<module>"), (std::vector<double>{30, 50})) << "a caller holds its steady part only";
  EXPECT_EQ(values(nullptr, "<module>"), (std::vector<double>{130, 950}));
}

#if defined(STRATA_RANK_FIXTURES) && defined(STRATA_CLI)
// The CLI over the same runs: the --by-rank table and JSON, analyze on the folder, bad input.
TEST(RankCli, ReportByRankAndAnalyzeTheFolder) {
  const std::string cli = STRATA_CLI, slow = kFixtures + "/slow_rank2";
  auto text = test::RunShell(cli + " report " + test::Quote(slow) + " --by-rank --limit 6");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("4 ranks (world size 4)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("compute  communication"), std::string::npos) << text.out;
  // The wait in all_reduce, then the lines the straggler runs more of: compute() (reached from
  // line 36 on every rank and, on rank 2, from extra_work() too: one row) and its extra call.
  EXPECT_NE(text.out.find("gloo_steps.py:38"), std::string::npos) << "the straggler's line is among the widest\n" << text.out;
  const size_t compute = text.out.find("compute  gloo_steps.py:13");
  EXPECT_NE(compute, std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("compute  gloo_steps.py:13", compute + 1), std::string::npos) << "one row per line\n" << text.out;
  auto json = test::RunShell(cli + " report " + test::Quote(slow) + " --by-rank --format json");
  ASSERT_EQ(json.status, 0) << json.err;
  auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["ranks"].size(), 4u);
  ASSERT_EQ(j["phases"].size(), 4u);
  EXPECT_TRUE(j["phases"][0]["overlap_share"].is_null());
  ASSERT_FALSE(j["frames"].empty());
  EXPECT_EQ(j["frames"][0]["values"].size(), 4u);
  EXPECT_TRUE(j["startup_frames"].is_array());
  EXPECT_NE(text.out.find("Frames by spread over ranks, steady state"), std::string::npos) << text.out;
  auto findings = test::RunShell(cli + " analyze " + test::Quote(slow) + " --format json");
  ASSERT_EQ(findings.status, 0) << findings.err;
  bool straggler = false;
  const auto parsed = nlohmann::json::parse(findings.out);
  for (const auto& f : parsed["findings"])
    straggler |= f["rule"] == "straggler" && f["location"]["line"] == 38;
  EXPECT_TRUE(straggler) << findings.out;
  // Not a distributed job, and two runs in one folder: one line each.
  auto plain = test::RunShell(cli + " report " + test::Quote(kFixtures + "/../runs/pipeline") + " --by-rank");
  EXPECT_EQ(plain.status, 1);
  EXPECT_NE(plain.err.find("no rank meta"), std::string::npos) << plain.err;
  const std::string mixed = test::TempDir();
  test::RunShell("cp " + test::Quote(slow) + "/*.strata " + test::Quote(mixed) + "/ && cp " +
                 test::Quote(kFixtures + "/balanced/job.strata") + " " + test::Quote(mixed + "/other.strata"));
  auto two = test::RunShell(cli + " analyze " + test::Quote(mixed));
  EXPECT_EQ(two.status, 1) << two.out << test::RunShell("ls " + test::Quote(mixed)).out;
  EXPECT_EQ(test::CountLines(two.err), 1u) << two.err;
  EXPECT_NE(two.err.find("different runs"), std::string::npos) << two.err;
  EXPECT_NE(two.err.find("other.strata"), std::string::npos) << two.err;
  std::system(("rm -rf " + mixed).c_str());
}
#endif

}  // namespace
}  // namespace strata::core
