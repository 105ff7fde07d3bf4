// A distributed job's ranks on one timeline (BuildRankTimeline): the real 4-rank gloo job
// test/fixtures/ranks/gloo4 gives steps and collective lanes whose slices are the collectives
// sections' calls on the realtime clock, issued from the user's line, rank 2 arriving last
// (test/fixtures/rankview/slow_rank2 predates recorded collectives: no slices); the constructed 2-rank GPU run (test/fixtures/rankview/gpu2, its README) gives GPU stream
// lanes of kernels under merged nodes; the slice limit, a rank without the clock pair, and
// `strata export RUN_DIR --format chrome`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "export/gpu_timeline.h"
#include "strata/core/api.h"
#include "strata/core/collectives.h"
#include "strata/core/rank_run.h"
#include "strata/core/rank_timeline.h"
#include "test_util.h"

namespace strata::core {
namespace {

const std::string kFixtures = STRATA_RANK_FIXTURES;
const std::string kRecorded = STRATA_RANKS_RECORDED;

// The slices of one lane, in order.
std::vector<RankSlice> LaneSlices(const RankTimeline& t, size_t lane) {
  std::vector<RankSlice> out;
  for (const auto& s : t.slices)
    if (s.lane == lane) out.push_back(s);
  return out;
}

// The lane of `rank` of `kind` (the first GPU stream for kGpuStream); -1 when there is none.
int LaneOf(const RankTimeline& t, int rank, RankLaneKind kind) {
  for (size_t i = 0; i < t.lanes.size(); ++i)
    if (t.lanes[i].rank == rank && t.lanes[i].kind == kind) return int(i);
  return -1;
}

View StoredView(const Profile& p) {
  ViewOptions vo;
  vo.expand = false;
  vo.all_metrics = false;
  vo.filter = FrameFilter::kAll;
  return p.BuildView(ViewKind::kTopDown, vo);
}

// Lanes by rank, then steps, collectives, GPU streams; slices by lane, then start.
void ExpectOrdered(const RankTimeline& t) {
  for (size_t i = 1; i < t.lanes.size(); ++i) {
    const auto& a = t.lanes[i - 1];
    const auto& b = t.lanes[i];
    EXPECT_TRUE(std::tie(a.rank, a.kind, a.device, a.stream) < std::tie(b.rank, b.kind, b.device, b.stream)) << i;
  }
  for (size_t i = 1; i < t.slices.size(); ++i) {
    const auto& a = t.slices[i - 1];
    const auto& b = t.slices[i];
    EXPECT_TRUE(a.lane < b.lane || (a.lane == b.lane && a.start_ns <= b.start_ns)) << i;
  }
  for (const auto& s : t.slices) {
    EXPECT_LE(s.start_ns, s.end_ns);
    EXPECT_GE(s.start_ns, 0);
    EXPECT_LE(s.end_ns, t.span_ns);
    EXPECT_LT(s.name, t.names.size());
    EXPECT_LT(s.source, int32_t(t.sources.size()));
  }
}

TEST(RankTimeline, LanesAndCollectivesOfTheGlooJobOnOneClock) {
  auto run = RankRun::Open(kRecorded + "/gloo4");
  const RankTimeline t = BuildRankTimeline(*run);
  ASSERT_EQ(run->ranks().size(), 4u);
  ExpectOrdered(t);
  EXPECT_EQ(t.truncated, 0u);
  EXPECT_EQ(t.gpu_dropped, 0u);
  EXPECT_TRUE(t.ranks_without_clock.empty());
  // Per rank: its steps, then its collectives; no GPU.
  ASSERT_EQ(t.lanes.size(), 8u);
  int64_t origin = INT64_MAX;
  for (const auto& info : run->ranks()) origin = std::min(origin, info.start_unix_ns);
  EXPECT_EQ(t.origin_unix_ns, origin);
  const View view = StoredView(run->profile());
  for (size_t k = 0; k < 4; ++k) {
    const RankInfo& info = run->ranks()[k];
    EXPECT_EQ(t.lanes[2 * k].rank, info.rank);
    EXPECT_EQ(t.lanes[2 * k].kind, RankLaneKind::kSteps);
    EXPECT_EQ(t.lanes[2 * k + 1].kind, RankLaneKind::kCollectives);
    // The collectives lane is the rank's recorded host calls, moved to the realtime clock.
    const Collectives cs = ReadCollectives(info.profiles.front());
    ASSERT_TRUE(cs.present && cs.has_wall_clock);
    std::vector<CollectiveCall> calls;
    for (const auto& c : cs.calls)
      if (!cs.sites[c.site].on_device) calls.push_back(c);
    std::stable_sort(calls.begin(), calls.end(), [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
    const auto lane = LaneSlices(t, 2 * k + 1);
    ASSERT_EQ(lane.size(), calls.size()) << "rank " << info.rank;
    ASSERT_GE(lane.size(), 10u);
    size_t user_line = 0;
    for (size_t i = 0; i < lane.size(); ++i) {
      const CollectiveSite& site = cs.sites[calls[i].site];
      EXPECT_EQ(lane[i].kind, RankSliceKind::kCollective);
      EXPECT_EQ(lane[i].start_ns, int64_t(calls[i].start_ns) + cs.unix_minus_monotonic_ns - origin);
      if (calls[i].end_ns) EXPECT_EQ(lane[i].end_ns, int64_t(calls[i].end_ns) + cs.unix_minus_monotonic_ns - origin);
      EXPECT_EQ(t.names[lane[i].name], site.name);
      EXPECT_EQ(lane[i].bytes, site.bytes);
      // The merged node is the site's call path in the merged tree: its frame is the site's.
      ASSERT_GE(lane[i].node, 0);
      ASSERT_LT(size_t(lane[i].node), view.landing.size());
      EXPECT_EQ(view.frame(view.landing[size_t(lane[i].node)]).name, site.frame_name);
      ASSERT_GE(lane[i].source, 0);
      const RankSliceSource& src = t.sources[size_t(lane[i].source)];
      if (site.name == "all_reduce") {
        // The user's line that issued it (gloo_job.py: dist.all_reduce(grad)), not torch's.
        EXPECT_NE(src.file.find("gloo_job.py"), std::string::npos) << src.file;
        EXPECT_EQ(src.line, 57u);
        ++user_line;
      }
    }
    EXPECT_GE(user_line, 10u) << "rank " << info.rank;
  }
  // The steps lanes are RankRun::Steps.
  const RankSteps steps = run->Steps();
  ASSERT_GE(steps.steps.size(), 10u);
  for (size_t k = 0; k < 4; ++k) {
    const auto lane = LaneSlices(t, 2 * k);
    ASSERT_EQ(lane.size(), steps.steps.size());
    for (size_t s = 0; s < lane.size(); ++s) {
      EXPECT_EQ(lane[s].kind, RankSliceKind::kStep);
      EXPECT_EQ(lane[s].start_ns, steps.steps[s].start_unix_ns[k] - origin);
      EXPECT_EQ(lane[s].end_ns, steps.steps[s].end_unix_ns[k] - origin);
      EXPECT_EQ(t.names[lane[s].name], "step " + std::to_string(s + 1));
      // A step ends where its collective ends: its arrival is inside it.
      EXPECT_LE(lane[s].start_ns, steps.steps[s].arrive_unix_ns[k] - origin);
      EXPECT_GE(lane[s].end_ns, steps.steps[s].arrive_unix_ns[k] - origin);
    }
  }
}

// Rank 2 reaches each all_reduce last and waits in it least: visible on the collectives lanes.
void ExpectLateRank(const std::string& folder, int slow) {
  auto run = RankRun::Open(folder);
  const RankTimeline t = BuildRankTimeline(*run);
  ExpectOrdered(t);
  std::map<int, std::vector<RankSlice>> reduce;
  for (const auto& info : run->ranks()) {
    const int lane = LaneOf(t, info.rank, RankLaneKind::kCollectives);
    ASSERT_GE(lane, 0) << folder << ": rank " << info.rank;
    for (const auto& s : LaneSlices(t, size_t(lane)))
      if (t.names[s.name] == "all_reduce") reduce[info.rank].push_back(s);
  }
  size_t n = SIZE_MAX;
  for (const auto& [rank, v] : reduce) n = std::min(n, v.size());
  ASSERT_GE(n, 10u);
  size_t last = 0, shortest = 0;
  // The first call is the job's warm-up: every rank starts it at its own pace.
  for (size_t i = 1; i < n; ++i) {
    int late = -1, quick = -1;
    int64_t latest = INT64_MIN, least = INT64_MAX;
    for (const auto& [rank, v] : reduce) {
      if (v[i].start_ns > latest) latest = v[i].start_ns, late = rank;
      if (v[i].end_ns - v[i].start_ns < least) least = v[i].end_ns - v[i].start_ns, quick = rank;
    }
    last += late == slow;
    shortest += quick == slow;
  }
  EXPECT_GE(last, (n - 1) * 8 / 10) << folder;
  EXPECT_GE(shortest, (n - 1) * 8 / 10) << folder;
}

TEST(RankTimeline, SlowRankArrivesLast) { ExpectLateRank(kRecorded + "/gloo4", 2); }

// slow_rank2 was recorded before the runtime wrote collectives (and on CPUs): nothing to place,
// only the ranks' window.
TEST(RankTimeline, RunWithoutRecordedCollectivesHasNoSlices) {
  auto run = RankRun::Open(kFixtures + "/slow_rank2");
  const RankTimeline t = BuildRankTimeline(*run);
  EXPECT_TRUE(t.lanes.empty());
  EXPECT_TRUE(t.slices.empty());
  EXPECT_TRUE(t.ranks_without_clock.empty());
  int64_t lo = INT64_MAX, hi = 0;
  for (const auto& info : run->ranks()) lo = std::min(lo, info.start_unix_ns), hi = std::max(hi, info.end_unix_ns);
  EXPECT_EQ(t.origin_unix_ns, lo);
  EXPECT_EQ(t.span_ns, hi - lo);
}

TEST(RankTimeline, MaxSlicesKeepsEachLanesEarliest) {
  auto run = RankRun::Open(kRecorded + "/gloo4");
  const RankTimeline all = BuildRankTimeline(*run);
  RankTimelineOptions o;
  o.max_slices = all.slices.size() / 4;
  const RankTimeline cut = BuildRankTimeline(*run, o);
  ExpectOrdered(cut);
  EXPECT_EQ(cut.slices.size(), o.max_slices);
  EXPECT_EQ(cut.truncated, all.slices.size() - o.max_slices);
  ASSERT_EQ(cut.lanes.size(), all.lanes.size());
  EXPECT_EQ(cut.origin_unix_ns, all.origin_unix_ns);
  EXPECT_EQ(cut.span_ns, all.span_ns);
  for (size_t l = 0; l < all.lanes.size(); ++l) {
    const auto full = LaneSlices(all, l), kept = LaneSlices(cut, l);
    // Its share, within one slice of proportional.
    const double share = double(full.size()) * double(o.max_slices) / double(all.slices.size());
    EXPECT_LE(std::abs(double(kept.size()) - share), 1.0) << "lane " << l;
    for (size_t i = 0; i < kept.size(); ++i) {
      EXPECT_EQ(kept[i].start_ns, full[i].start_ns);
      EXPECT_EQ(kept[i].end_ns, full[i].end_ns);
      EXPECT_EQ(cut.names[kept[i].name], all.names[full[i].name]);
    }
  }
}

TEST(RankTimeline, RankWithoutTheClockPairIsNamedAndLeftOut) {
  const std::string dir = test::TempDir();
  ASSERT_EQ(test::RunShell("cp " + test::Quote(kRecorded + "/gloo4") + "/*.strata " + test::Quote(dir) + "/").status, 0);
  std::string rank1;
  {
    auto run = RankRun::Open(dir);
    rank1 = run->ranks()[1].profiles.front();
  }
  RewriteProfileMeta(rank1, {{"start_monotonic_ns", ""}});
  auto run = RankRun::Open(dir);
  const RankTimeline t = BuildRankTimeline(*run);
  ExpectOrdered(t);
  EXPECT_EQ(t.ranks_without_clock, std::vector<int>({1}));
  EXPECT_EQ(LaneOf(t, 1, RankLaneKind::kCollectives), -1);
  for (int r : {0, 2, 3}) EXPECT_GE(LaneOf(t, r, RankLaneKind::kCollectives), 0) << r;
  std::system(("rm -rf " + test::Quote(dir)).c_str());
}

// test/fixtures/rankview/gpu2: the real H100 resnet18 recording as two ranks, rank 1 7 ms later.
// The recording's training script (bench/timeline/workloads.py).
const char* const kScript = "bench/timeline/workloads.py";

TEST(RankTimeline, GpuStreamsOfTheConstructedTwoRankRun) {
  auto run = RankRun::Open(kFixtures + "/gpu2");
  ASSERT_EQ(run->ranks().size(), 2u);
  const RankTimeline t = BuildRankTimeline(*run);
  ExpectOrdered(t);
  EXPECT_TRUE(t.ranks_without_clock.empty());
  const detail::GpuTimeline gpu = detail::ReadGpuTimeline(run->ranks()[0].profiles.front());
  ASSERT_TRUE(gpu.host_clock);
  ASSERT_GT(gpu.records.size(), 100u);
  EXPECT_EQ(t.gpu_dropped, 2 * gpu.dropped);
  std::map<int, std::vector<RankSlice>> of_rank;
  size_t lanes0 = 0, lanes1 = 0;
  for (size_t l = 0; l < t.lanes.size(); ++l) {
    EXPECT_EQ(t.lanes[l].kind, RankLaneKind::kGpuStream) << "no collectives, no steps";
    (t.lanes[l].rank == 0 ? lanes0 : lanes1)++;
  }
  EXPECT_EQ(lanes0, lanes1);
  EXPECT_GE(lanes0, 1u);
  for (const auto& s : t.slices) of_rank[t.lanes[s.lane].rank].push_back(s);
  ASSERT_EQ(of_rank[0].size(), gpu.records.size());
  ASSERT_EQ(of_rank[1].size(), gpu.records.size());
  // Rank 0 starts first: time 0 is its start; its GPU activities are where the recording put
  // them, rank 1's 7 ms later.
  EXPECT_EQ(t.origin_unix_ns, run->ranks()[0].start_unix_ns);
  EXPECT_EQ(run->ranks()[1].start_unix_ns - run->ranks()[0].start_unix_ns, 7'000'000);
  int64_t first = INT64_MAX;
  for (const auto& r : gpu.records) first = std::min(first, int64_t(r.start_ns));
  int64_t first0 = INT64_MAX, first1 = INT64_MAX;
  for (const auto& s : of_rank[0]) first0 = std::min(first0, s.start_ns);
  for (const auto& s : of_rank[1]) first1 = std::min(first1, s.start_ns);
  EXPECT_EQ(first0, first - t.origin_unix_ns);
  EXPECT_NEAR(double(first1 - first0), 7e6, 2.0);
  // Kernels: merged nodes whose frames are kernels, named as the frames, asked for on the
  // training script's lines.
  const View view = StoredView(run->profile());
  size_t kernels = 0, on_script = 0;
  std::map<std::string, size_t> files;
  for (const auto& s : t.slices) {
    if (s.kind != RankSliceKind::kKernel) continue;
    ++kernels;
    ASSERT_GE(s.node, 0);
    ASSERT_LT(size_t(s.node), view.landing.size());
    const FrameInfo& f = view.frame(view.landing[size_t(s.node)]);
    EXPECT_EQ(f.kind, "kernel");
    EXPECT_EQ(t.names[s.name], f.name);
    if (s.source >= 0) {
      const auto& src = t.sources[size_t(s.source)];
      ++files[src.file];
      if (src.file.find(kScript) != std::string::npos && src.line > 0) ++on_script;
    }
  }
  ASSERT_GT(kernels, 100u);
  std::string seen;
  for (const auto& [f, c] : files) seen += f + " " + std::to_string(c) + "\n";
  EXPECT_GE(on_script, kernels * 9 / 10) << seen;
}

TEST(RankTimeline, CliExportsTheRanksAsAChromeTrace) {
  const std::string cli = STRATA_CLI, dir = test::TempDir(), gloo = kRecorded + "/gloo4";
  const std::string out = dir + "/ranks.json";
  auto r = test::RunShell(cli + " export " + test::Quote(gloo) + " --format chrome -o " + test::Quote(out));
  ASSERT_EQ(r.status, 0) << r.err;
  auto run = RankRun::Open(gloo);
  const RankTimeline t = BuildRankTimeline(*run);
  const auto j = nlohmann::json::parse(test::ReadText(out));
  std::map<int, std::string> processes;
  std::map<std::pair<int, int>, std::string> threads;
  size_t slices = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
    if (e["ph"] == "M" && e["name"] == "thread_name") threads[{e["pid"], e["tid"]}] = e["args"]["name"];
    if (e["ph"] == "X") ++slices;
  }
  ASSERT_EQ(processes.size(), 4u);
  EXPECT_EQ(processes[2], "rank 2 (" + run->ranks()[2].host + ")");
  EXPECT_EQ(threads.size(), t.lanes.size());
  EXPECT_EQ(threads[std::make_pair(0, 1)], "steps");
  EXPECT_EQ(threads[std::make_pair(0, 2)], "collectives");
  EXPECT_EQ(slices, t.slices.size());
  EXPECT_EQ(j["otherData"]["origin_unix_ns"], t.origin_unix_ns);
  // A rank's profile names its run: the same trace.
  const std::string out2 = dir + "/member.json";
  r = test::RunShell(cli + " export " + test::Quote(run->ranks()[1].profiles.front()) + " --format chrome -o " + test::Quote(out2));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(test::ReadText(out2), test::ReadText(out));
  // Bad input: one line, nothing written.
  const std::string none = dir + "/none.json";
  for (const std::string& args : {test::Quote(gloo) + " --format pprof", test::Quote(kFixtures + "/../runs/pipeline") + " --format chrome",
                                  test::Quote(dir + "/missing") + " --format chrome"}) {
    auto bad = test::RunShell(cli + " export " + args + " -o " + test::Quote(none));
    EXPECT_EQ(bad.status, 1) << args;
    EXPECT_EQ(test::CountLines(bad.err), 1u) << bad.err;
    EXPECT_EQ(test::RunShell("test -e " + test::Quote(none)).status, 1) << args;
  }
  std::system(("rm -rf " + test::Quote(dir)).c_str());
}

// The Perfetto trace of the same run, decoded by the protobuf library (test/interop): a track per
// rank, a child track per lane, its slices at unix ns with their args.
TEST(RankTimeline, CliExportsTheRanksAsAPerfettoTrace) {
  if (test::RunShell("protoc --version && /usr/bin/python3 -c 'import google.protobuf'").status != 0)
    GTEST_SKIP() << "needs protoc and Python's protobuf (Debian: protobuf-compiler python3-protobuf)";
  const std::string cli = STRATA_CLI, dir = test::TempDir(), gloo = kRecorded + "/gloo4";
  const std::string out = dir + "/ranks.pftrace";
  auto r = test::RunShell(cli + " export " + test::Quote(gloo) + " --format perfetto -o " + test::Quote(out));
  ASSERT_EQ(r.status, 0) << r.err;
  const test::RunResult decoded = test::RunShell("/usr/bin/python3 " STRATA_INTEROP_TESTS "/decode_perfetto.py " + test::Quote(out));
  ASSERT_EQ(decoded.status, 0) << decoded.err;
  const auto tracks = nlohmann::json::parse(decoded.out).at("tracks");
  auto run = RankRun::Open(gloo);
  const RankTimeline t = BuildRankTimeline(*run);
  std::map<uint64_t, std::string> name_of;
  for (const auto& tr : tracks) name_of[tr.at("uuid")] = tr.at("name");
  size_t slices = 0, ranks = 0, reduce = 0;
  for (const auto& tr : tracks) {
    if (!tr.contains("parent") || tr.at("parent") == 0) {
      ++ranks;
      continue;
    }
    const std::string parent = name_of[tr.at("parent")];
    EXPECT_EQ(parent.rfind("rank ", 0), 0u) << parent;
    for (const auto& s : tr.at("slices")) {
      ++slices;
      EXPECT_GE(int64_t(s.at("begin")), t.origin_unix_ns);
      if (s.at("name") == "all_reduce") {
        ++reduce;
        EXPECT_EQ(s.at("args").at("line"), 57);
        EXPECT_GE(s.at("args").at("node"), 0);
      }
    }
  }
  EXPECT_EQ(ranks, 4u);
  EXPECT_EQ(slices, t.slices.size());
  EXPECT_GE(reduce, 40u);
  std::system(("rm -rf " + test::Quote(dir)).c_str());
}

}  // namespace
}  // namespace strata::core
