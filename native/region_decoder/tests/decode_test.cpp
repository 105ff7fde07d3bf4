// The region decoder and replay on synthetic buffers (the arithmetic) and on real buffers
// recorded on the H100 (test/fixtures/h100/regions, made by test/regions/run_h100.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "buffer_builder.h"
#include "strata/region_decoder/calibration.h"
#include "strata/region_decoder/decode.h"
#include "strata/region_decoder/group_shares.h"

namespace {

using namespace strata::region_decoder;
using namespace strata::region_decoder::testing;

// ---- Synthetic buffers: the arithmetic.

TEST(RegionsDecode, EmptyAndBadInput) {
  EXPECT_TRUE(Decode(nullptr, 0).HasIssue(IssueKind::kEmpty));
  std::vector<uint8_t> zero(4096, 0);
  Trace z = Decode(zero.data(), zero.size());
  EXPECT_TRUE(z.HasIssue(IssueKind::kEmpty));
  EXPECT_TRUE(z.intervals.empty());
  std::vector<uint8_t> small(20, 0);
  EXPECT_TRUE(Decode(small.data(), small.size()).HasIssue(IssueKind::kTruncated));
  std::vector<uint8_t> junk(256, 0xAB);
  EXPECT_TRUE(Decode(junk.data(), junk.size()).HasIssue(IssueKind::kBadHeader));
  auto b = Build({Lane2({{0, 1, 0, 10100}, {1, 1, 0, 10300}})});
  auto v = b;
  Put<uint32_t>(v, 4, 99);
  EXPECT_TRUE(Decode(v.data(), v.size()).HasIssue(IssueKind::kBadHeader));
  // Cut inside the lane entry: reported, nothing invented.
  Trace cut = Decode(b.data(), b.size() - 8);
  EXPECT_TRUE(cut.HasIssue(IssueKind::kTruncated));
  EXPECT_TRUE(cut.lanes.empty());
  // An entry reserved but never written (kernel stopped).
  auto r = b;
  Put<uint64_t>(r, 16, (b.size() - 64) + 200);
  r.resize(b.size() + 200, 0);
  Trace res = Decode(r.data(), r.size());
  EXPECT_TRUE(res.HasIssue(IssueKind::kTruncated));
  EXPECT_EQ(res.lanes.size(), 1u);
}

TEST(RegionsDecode, NestingAndReplayArithmetic) {
  // S1 S2 E2 E1 at 2 cycles/ns, record cost 10 cycles.
  auto b = Build({Lane2({{0, 1, 0, 10100}, {0, 2, 0, 10200}, {1, 2, 0, 10300}, {1, 1, 0, 10500}})});
  DecodeOptions o;
  o.record_cost_cycles = 10;
  o.cycles_per_ns = 2;
  Trace t = Decode(b.data(), b.size(), o);
  EXPECT_TRUE(t.issues.empty()) << (t.issues.empty() ? "" : t.issues[0].message);
  ASSERT_EQ(t.intervals.size(), 2u);
  const Interval* outer = Find(t, 1);
  const Interval* inner = Find(t, 2);
  ASSERT_TRUE(outer && inner);
  EXPECT_EQ(outer->depth, 0u);
  EXPECT_EQ(inner->depth, 1u);
  EXPECT_EQ(inner->parent, 0);
  EXPECT_DOUBLE_EQ(outer->raw_duration_ns(), 200.0);     // 400 cycles
  EXPECT_DOUBLE_EQ(outer->duration_ns(), (400 - 30) / 2.0);  // three records inside
  EXPECT_DOUBLE_EQ(inner->raw_duration_ns(), 50.0);
  EXPECT_DOUBLE_EQ(inner->duration_ns(), (100 - 10) / 2.0);
  // Common axis: ns from the lane's globaltimer at clk_start (origin = earliest lane start).
  EXPECT_DOUBLE_EQ(outer->raw_start_ns, 50.0);
  EXPECT_DOUBLE_EQ(t.lanes[0].end_ns, (100000 - 40) / 2.0);
}

TEST(RegionsDecode, AsyncWaitTwoStartsOneEnd) {
  // issue at 100, wait begins at 400, done at 700; an unrelated region in between.
  auto b = Build({Lane2({{0, 3, 0, 10100}, {0, 4, 0, 10150}, {1, 4, 0, 10350}, {0, 3, 0, 10400}, {1, 3, 0, 10700}})});
  DecodeOptions o;
  o.record_cost_cycles = 10;
  o.cycles_per_ns = 2;
  Trace t = Decode(b.data(), b.size(), o);
  EXPECT_TRUE(t.issues.empty());
  const Interval* a = Find(t, 3);
  ASSERT_TRUE(a);
  EXPECT_DOUBLE_EQ(a->raw_duration_ns(), 300.0);
  EXPECT_DOUBLE_EQ(a->duration_ns(), (600 - 40) / 2.0);
  EXPECT_DOUBLE_EQ(a->raw_wait_ns, 150.0);
  EXPECT_DOUBLE_EQ(a->wait_ns, (300 - 10) / 2.0);
  EXPECT_LT(Find(t, 4)->wait_ns, 0);
  // A third start before the end is reported.
  auto c = Build({Lane2({{0, 3, 0, 10100}, {0, 3, 0, 10200}, {0, 3, 0, 10300}, {1, 3, 0, 10400}})});
  EXPECT_TRUE(Decode(c.data(), c.size()).HasIssue(IssueKind::kExtraStart));
}

TEST(RegionsDecode, LoopIterationsUnwrapSixteenBits) {
  std::vector<Rec> recs{{0, 2, 0, 10010}};
  uint64_t clk = 10020;
  for (uint32_t i = 65534; i < 65534 + 4; ++i) {
    recs.push_back({2, 2, i, clk});
    recs.push_back({3, 2, i, clk + 50});
    clk += 100;
  }
  recs.push_back({1, 2, 0, clk});
  auto b = Build({Lane2(recs)});
  Trace t = Decode(b.data(), b.size());
  EXPECT_TRUE(t.issues.empty());
  std::vector<int64_t> its;
  for (const Interval& iv : t.intervals)
    if (iv.iteration >= 0) {
      its.push_back(iv.iteration);
      EXPECT_EQ(iv.depth, 1u);
    }
  EXPECT_EQ(its, (std::vector<int64_t>{65534, 65535, 65536, 65537}));
}

TEST(RegionsDecode, ClockWrapUnwrappedAndAmbiguousGapMarked) {
  const uint64_t w = uint64_t(1) << 32;
  LaneSpec l = Lane2({{0, 1, 0, w - 100}, {1, 1, 0, w + 300}}, 0);
  l.clk_start = w - 200;
  l.clk_end = w + 400;
  l.gt_end = l.gt_start + 300;
  auto b = Build({l});
  Trace t = Decode(b.data(), b.size());
  EXPECT_TRUE(t.HasIssue(IssueKind::kClockWrap));
  EXPECT_FALSE(t.HasIssue(IssueKind::kClockAmbiguous));
  ASSERT_EQ(t.intervals.size(), 1u);
  EXPECT_EQ(t.intervals[0].end_cycles - t.intervals[0].start_cycles, 400);
  // One region longer than 2^32 cycles: 32-bit clocks cannot tell; it must be marked.
  LaneSpec g = Lane2({{0, 1, 0, 1000}, {1, 1, 0, 1000 + w + 500}}, 0);
  g.clk_start = 900;
  g.clk_end = 1000 + w + 600;
  g.gt_end = g.gt_start + (w + 700) / 2;
  auto gb = Build({g});
  Trace gt = Decode(gb.data(), gb.size());
  EXPECT_TRUE(gt.HasIssue(IssueKind::kClockAmbiguous));
}

TEST(RegionsDecode, UnmatchedStartsAndEndsAreMarked) {
  auto b = Build({Lane2({{0, 40, 0, 10100}, {0, 42, 0, 10200}, {1, 42, 0, 10300}, {1, 41, 0, 10400}})});
  Trace t = Decode(b.data(), b.size());
  EXPECT_TRUE(t.HasIssue(IssueKind::kUnmatchedStart));
  EXPECT_TRUE(t.HasIssue(IssueKind::kUnmatchedEnd));
  const Interval* open = Find(t, 40);
  ASSERT_TRUE(open);
  EXPECT_TRUE(open->unmatched);
  EXPECT_DOUBLE_EQ(open->raw_end_ns, t.lanes[0].end_ns);
  EXPECT_EQ(Find(t, 42)->depth, 1u);  // inside the unmatched one
  EXPECT_FALSE(Find(t, 42)->unmatched);
}

TEST(RegionsDecode, FlushChunksJoinAndFlushTimeIsTakenOut) {
  // Capacity 4: chunk 0 = S1 S2 E2 S2; the lane's own part = FB FE E2 E1.
  ChunkSpec c0;
  c0.recs = {{0, 1, 0, 10100}, {0, 2, 0, 10200}, {1, 2, 0, 10300}, {0, 2, 0, 10400}};
  LaneSpec l = Lane2({{4, 0, 0, 10410}, {5, 0, 0, 11410}, {1, 2, 0, 11500}, {1, 1, 0, 11600}});
  l.mode = 1;
  l.capacity = 4;
  l.chunks = 1;
  auto b = Build({l}, {c0});
  DecodeOptions o;
  o.record_cost_cycles = 10;
  o.cycles_per_ns = 2;
  Trace t = Decode(b.data(), b.size(), o);
  EXPECT_TRUE(t.issues.empty()) << (t.issues.empty() ? "" : t.issues[0].message);
  ASSERT_EQ(t.lanes[0].records.size(), 8u);
  ASSERT_EQ(t.intervals.size(), 3u);
  const Interval* outer = Find(t, 1);
  // 1500 cycles raw, minus the 1000-cycle flush, minus 5 records (S2 E2 S2 E2 + own) inside.
  EXPECT_DOUBLE_EQ(outer->duration_ns(), (1500 - 1000 - 50) / 2.0);
  // A lost chunk is reported.
  LaneSpec l2 = l;
  l2.chunks = 2;
  l2.overflow = 4;
  auto b2 = Build({l2}, {c0});
  Trace t2 = Decode(b2.data(), b2.size(), o);
  EXPECT_TRUE(t2.HasIssue(IssueKind::kMissingChunk));
  EXPECT_TRUE(t2.HasIssue(IssueKind::kOverflow));
}

TEST(RegionsDecode, CircularOverflowAndDroppedLanes) {
  LaneSpec l = Lane2({{1, 2, 0, 10300}, {0, 3, 0, 10400}, {1, 3, 0, 10500}, {1, 1, 0, 10600}});
  l.overflow = 100;
  auto b = Build({l}, {}, 3);
  Trace t = Decode(b.data(), b.size());
  EXPECT_TRUE(t.HasIssue(IssueKind::kOverflow));
  EXPECT_TRUE(t.HasIssue(IssueKind::kLanesDropped));
  EXPECT_EQ(t.CountIssues(IssueKind::kUnmatchedEnd), 2u);  // regions 2 and 1
  EXPECT_EQ(t.lanes[0].first_record_index, 100u);
  EXPECT_TRUE(Find(t, 3));
}

TEST(RegionsDecode, LanesShareOneAxis) {
  // Two lanes on SMs whose clocks differ by a lot: globaltimer puts them on one axis.
  LaneSpec a = Lane2({{0, 1, 0, 10100}, {1, 1, 0, 10300}}, 1000, 0);
  LaneSpec b = Lane2({{0, 1, 0, 900100}, {1, 1, 0, 900300}}, 1000, 1);
  b.clk_start = 900000;
  b.clk_end = 901000;
  b.gt_start = a.gt_start + 400;
  b.gt_end = b.gt_start + 500;
  auto buf = Build({a, b});
  Trace t = Decode(buf.data(), buf.size());
  EXPECT_EQ(t.origin_ns, a.gt_start);
  EXPECT_DOUBLE_EQ(Find(t, 1, -1, 0)->raw_start_ns, 50.0);
  EXPECT_DOUBLE_EQ(Find(t, 1, -1, 1)->raw_start_ns, 450.0);
  EXPECT_NEAR(t.cycles_per_ns, 2.0, 1e-12);
  EXPECT_TRUE(t.HasIssue(IssueKind::kNoClockRate));  // lanes of 0.5 us: too short to trust
}

TEST(RegionsGroupShares, PerGroupLoopsOnceRepeatsCountFlags) {
  Trace t;
  t.lanes.resize(2);
  t.lanes[1].meta.group = 1;
  auto iv = [&](uint32_t lane, uint16_t region, uint32_t depth, int32_t parent, double s, double e, int64_t it = -1,
                double wait = -1) {
    Interval v;
    v.lane = lane, v.region = region, v.depth = depth, v.parent = parent, v.start_ns = s, v.end_ns = e;
    v.iteration = it, v.wait_ns = wait;
    t.intervals.push_back(v);
  };
  iv(0, 10, 0, -1, 0, 1000);          // 0: producer loop
  iv(0, 10, 1, 0, 0, 500, 0);         // 1: its iteration 0 (not counted again)
  iv(0, 11, 2, 1, 0, 600);            // 2: wait empty, inside the iteration
  iv(1, 13, 0, -1, 0, 1000);          // 3: consumer
  iv(1, 15, 1, 3, 100, 900);          // 4: mma
  iv(1, 16, 1, 3, 100, 200, 0);       // 5, 6: softmax instances without a loop interval: counted
  iv(1, 16, 1, 3, 300, 400, 1);
  iv(1, 17, 1, 3, 0, 500, -1, 50);    // 7: an async load
  auto g = GroupShares(t);
  ASSERT_EQ(g.size(), 2u);
  ASSERT_EQ(g[0].regions.size(), 2u);
  EXPECT_EQ(g[0].regions[0].region, 10);
  EXPECT_DOUBLE_EQ(g[0].regions[0].share, 1.0);
  EXPECT_TRUE(g[0].regions[0].outermost && g[0].regions[0].container);
  EXPECT_EQ(g[0].regions[1].region, 11);
  EXPECT_DOUBLE_EQ(g[0].regions[1].share, 0.6);
  EXPECT_FALSE(g[0].regions[1].outermost || g[0].regions[1].container || g[0].regions[1].async);
  ASSERT_EQ(g[1].regions.size(), 4u);
  EXPECT_EQ(g[1].regions[1].region, 15);
  EXPECT_DOUBLE_EQ(g[1].regions[1].share, 0.8);
  EXPECT_EQ(g[1].regions[2].region, 17);
  EXPECT_TRUE(g[1].regions[2].async);
  EXPECT_EQ(g[1].regions[3].region, 16);
  EXPECT_DOUBLE_EQ(g[1].regions[3].share, 0.2);
  // One group: nothing to compare.
  t.lanes[1].meta.group = 0;
  EXPECT_TRUE(GroupShares(t).empty());
}

// ---- Real buffers from the H100.

std::string Fixture(const std::string& name) { return std::string(STRATA_REGION_FIXTURES) + "/" + name; }
nlohmann::json Sidecar(const std::string& name) {
  std::ifstream in(Fixture(name + ".json"));
  return nlohmann::json::parse(in);
}
DecodeOptions DeviceOptions(const nlohmann::json& side) {
  DecodeOptions o;
  o.record_cost_cycles = side["cycles_per_record"].get<double>();
  o.cycles_per_ns = side["clock_cycles_per_ns"].get<double>();
  return o;
}
std::string IssueList(const Trace& t) {
  std::string s;
  for (const Issue& i : t.issues) s += std::string(IssueName(i.kind)) + ": " + i.message + "\n";
  return s;
}

TEST(RegionsFixture, CalibrationGivesCyclesPerRecord) {
  auto side = Sidecar("calibration");
  Trace t = DecodeFile(Fixture("calibration.bin"), DeviceOptions(side));
  EXPECT_TRUE(t.issues.empty()) << IssueList(t);
  const double c = CalibrateRecordCost(t);
  EXPECT_NEAR(c, side["cycles_per_record"].get<double>(), 0.01);
  EXPECT_GT(c, 5);
  EXPECT_LT(c, 200);
}

TEST(RegionsFixture, GemmNestedLoopAsync) {
  auto side = Sidecar("gemm_nested_loop");
  ASSERT_TRUE(side["result_ok"].get<bool>());
  Trace t = DecodeFile(Fixture("gemm_nested_loop.bin"), DeviceOptions(side));
  EXPECT_TRUE(t.issues.empty()) << IssueList(t);
  ASSERT_EQ(t.lanes.size(), 128u);  // 64 blocks x 2 warp groups
  std::set<uint32_t> sms;
  for (const Lane& l : t.lanes) {
    EXPECT_EQ(l.meta.overflow_count, 0u);
    EXPECT_NEAR(l.measured_cycles_per_ns, 1.98, 0.05);
    sms.insert(l.meta.smid);
  }
  EXPECT_GT(sms.size(), 8u);
  // Per lane: kernel ⊃ k-loop ⊃ 32 iterations ⊃ compute; 32 async loads with their waits.
  for (uint32_t li = 0; li < t.lanes.size(); ++li) {
    int iters = 0, computes = 0, loads = 0;
    double iter_sum = 0;
    const Interval *kernel = nullptr, *loop = nullptr;
    for (const Interval& iv : t.intervals) {
      if (iv.lane != li) continue;
      EXPECT_FALSE(iv.unmatched);
      EXPECT_LE(iv.duration_ns(), iv.raw_duration_ns() + 1e-9);
      EXPECT_GE(iv.duration_ns(), 0.0);
      if (iv.region == 1) kernel = &iv;
      if (iv.region == 2 && iv.iteration < 0) loop = &iv;
      if (iv.region == 2 && iv.iteration >= 0) {
        EXPECT_EQ(iv.iteration, iters);
        EXPECT_EQ(iv.depth, 2u);
        ++iters;
        iter_sum += iv.duration_ns();
      }
      if (iv.region == 4) {
        EXPECT_EQ(iv.depth, 3u);
        ++computes;
      }
      if (iv.region == 3) {
        EXPECT_EQ(iv.depth, 2u);  // kernel, k-loop: it spans two iterations
        EXPECT_GE(iv.wait_ns, 0.0);
        EXPECT_LE(iv.wait_ns, iv.duration_ns());
        ++loads;
      }
    }
    ASSERT_TRUE(kernel && loop);
    EXPECT_EQ(kernel->depth, 0u);
    EXPECT_EQ(loop->depth, 1u);
    EXPECT_EQ(iters, 32);
    EXPECT_EQ(computes, 32);
    EXPECT_EQ(loads, 32);
    EXPECT_LE(iter_sum, loop->duration_ns());
  }
}

TEST(RegionsFixture, OverflowedCircularBufferIsMarked) {
  auto side = Sidecar("gemm_overflow");
  Trace t = DecodeFile(Fixture("gemm_overflow.bin"), DeviceOptions(side));
  ASSERT_EQ(t.lanes.size(), 128u);
  EXPECT_TRUE(t.HasIssue(IssueKind::kOverflow)) << IssueList(t);
  EXPECT_TRUE(t.HasIssue(IssueKind::kUnmatchedEnd));  // kernel / k-loop ends; starts overwritten
  EXPECT_FALSE(t.HasIssue(IssueKind::kUnmatchedStart));
  for (const Lane& l : t.lanes) {
    EXPECT_EQ(l.records.size(), 32u);
    EXPECT_EQ(l.meta.record_count, l.meta.overflow_count + 32u);
    EXPECT_EQ(l.first_record_index, l.meta.overflow_count);
  }
  // The newest records decode the same as in the full buffer: the last iterations are there.
  bool last_iter = false;
  for (const Interval& iv : t.intervals) last_iter |= iv.region == 2 && iv.iteration == 31;
  EXPECT_TRUE(last_iter);
}

TEST(RegionsFixture, FlushModeKeepsEverything) {
  auto side = Sidecar("gemm_flush");
  Trace flush = DecodeFile(Fixture("gemm_flush.bin"), DeviceOptions(side));
  Trace circ = DecodeFile(Fixture("gemm_nested_loop.bin"), DeviceOptions(Sidecar("gemm_nested_loop")));
  EXPECT_TRUE(flush.issues.empty()) << IssueList(flush);
  ASSERT_EQ(flush.lanes.size(), circ.lanes.size());
  EXPECT_EQ(flush.intervals.size(), circ.intervals.size());
  EXPECT_GT(flush.header.chunks_written, 0u);
  for (const Lane& l : flush.lanes) {
    EXPECT_GT(l.meta.chunks, 0u);
    EXPECT_EQ(l.records.size(), l.meta.record_count);
  }
  // Replay takes the flushes out of the flushing lane. What it cannot take out: the other warp
  // group of the block waits for the flushing one at __syncthreads (a cost in another lane).
  double f = 0, c = 0, fraw = 0;
  for (const Interval& iv : flush.intervals)
    if (iv.region == 1) f += iv.duration_ns(), fraw += iv.raw_duration_ns();
  for (const Interval& iv : circ.intervals)
    if (iv.region == 1) c += iv.duration_ns();
  std::printf("kernel region, sum over lanes: flush raw %.0f ns, flush replayed %.0f ns, circular replayed %.0f ns\n",
              fraw, f, c);
  EXPECT_LT(f, fraw);
  EXPECT_GT(f / c, 0.8);
  EXPECT_LT(f / c, 2.0);
}

TEST(RegionsFixture, BufferTooSmallDropsLanesVisibly) {
  auto side = Sidecar("gemm_too_small");
  ASSERT_TRUE(side["result_ok"].get<bool>());  // the kernel still computed the right thing
  Trace t = DecodeFile(Fixture("gemm_too_small.bin"), DeviceOptions(side));
  EXPECT_TRUE(t.HasIssue(IssueKind::kLanesDropped)) << IssueList(t);
  EXPECT_GT(t.lanes.size(), 0u);
  EXPECT_LT(t.lanes.size(), 128u);
  EXPECT_EQ(t.header.lanes_dropped + t.lanes.size(), 128u);
}

TEST(RegionsFixture, LaunchedWithoutBufferRunsAndDecoderSaysSo) {
  auto side = Sidecar("gemm_no_buffer");
  EXPECT_TRUE(side["result_ok"].get<bool>());
  EXPECT_TRUE(side["buffer_untouched"].get<bool>());
  Trace t = DecodeFile(Fixture("gemm_no_buffer.bin"));
  EXPECT_TRUE(t.HasIssue(IssueKind::kEmpty));
  EXPECT_TRUE(t.intervals.empty());
}

TEST(RegionsFixture, WarpSpecializedProducerConsumer) {
  auto side = Sidecar("warpspec");
  ASSERT_TRUE(side["result_ok"].get<bool>());
  Trace t = DecodeFile(Fixture("warpspec.bin"), DeviceOptions(side));
  EXPECT_TRUE(t.issues.empty()) << IssueList(t);
  ASSERT_EQ(t.lanes.size(), 128u);
  std::map<uint16_t, int> per_region;
  for (const Interval& iv : t.intervals) {
    const uint32_t group = t.lanes[iv.lane].meta.group;
    if (iv.region >= 10 && iv.region <= 12) EXPECT_EQ(group, 0u);  // producer
    if (iv.region >= 13 && iv.region <= 15) EXPECT_EQ(group, 1u);  // consumer
    if (iv.iteration < 0) ++per_region[iv.region];
  }
  EXPECT_EQ(per_region[11], 64 * 30);  // waits for an empty stage from iteration 2 on
  EXPECT_EQ(per_region[12], 64 * 32);
  EXPECT_EQ(per_region[14], 64 * 32);
  EXPECT_EQ(per_region[15], 64 * 32);
}

TEST(RegionsFixture, CustomLanesNotAlignedToWarps) {
  auto side = Sidecar("custom_lanes");
  ASSERT_TRUE(side["result_ok"].get<bool>());
  Trace t = DecodeFile(Fixture("custom_lanes.bin"), DeviceOptions(side));
  ASSERT_EQ(t.lanes.size(), 32u);
  for (const Lane& l : t.lanes) {
    EXPECT_EQ(l.meta.grouping, 2u);
    EXPECT_EQ(l.meta.leader_thread, l.meta.group * 48);
  }
  EXPECT_EQ(t.intervals.size(), 64u);
}

TEST(RegionsFixture, ReplayRemovesRecordCost) {
  // An outer region of 32 inner regions of N dependent FMAs; truth: the same code without markers
  // (clock64 around the outer part). The lanes hold 64 records and the kernel wrote 66, so the
  // oldest two (outer start, first inner start) were overwritten: the check uses the span from
  // the first kept inner end to the outer end (31 of the 32 inner regions) against 31/32 of the
  // truth, and also shows that the overflow is reported.
  for (const char* name : {"accuracy_spin", "accuracy_spin16"}) {
    auto side = Sidecar(name);
    std::vector<double> plain = side["plain_outer_cycles"].get<std::vector<double>>();
    std::sort(plain.begin(), plain.end());
    const double truth = plain[plain.size() / 2] * 31.0 / 32.0;
    const DecodeOptions opt = DeviceOptions(side);
    Trace t = DecodeFile(Fixture(std::string(name) + ".bin"), opt);
    EXPECT_TRUE(t.HasIssue(IssueKind::kOverflow));
    EXPECT_EQ(t.lanes.size(), 4u);
    for (uint32_t li = 0; li < t.lanes.size(); ++li) {
      const Lane& l = t.lanes[li];
      ASSERT_EQ(l.records.size(), 64u);
      ASSERT_EQ(l.records.front().region, 21);  // the first inner region's end
      ASSERT_EQ(l.records.back().region, 20);   // the outer end
      const double raw = double(l.records.back().cycles - l.records.front().cycles);
      const double replayed = raw - opt.record_cost_cycles * 63;
      const double raw_err = raw / truth - 1, rep_err = replayed / truth - 1;
      std::printf("%s lane %u: truth %.0f cycles, raw %.0f (%+.2f%%), replayed %.0f (%+.2f%%) at %.2f cycles/record\n",
                  name, li, truth, raw, 100 * raw_err, replayed, 100 * rep_err, opt.record_cost_cycles);
      EXPECT_GT(raw_err, 0.05);                           // the markers cost something
      EXPECT_LT(std::fabs(rep_err), std::fabs(raw_err));  // replay brings it closer
      EXPECT_LT(std::fabs(rep_err), 0.10);
      // The decoder's replayed intervals agree with this arithmetic: inner regions lose one
      // record's cost each.
      for (const Interval& iv : t.intervals) {
        if (iv.lane != li || iv.region != 21) continue;
        EXPECT_NEAR((iv.raw_duration_ns() - iv.duration_ns()) * t.cycles_per_ns, opt.record_cost_cycles, 1e-3);
      }
    }
  }
}

TEST(RegionsFixture, UnbalancedMarkersAreReported) {
  auto side = Sidecar("unbalanced");
  ASSERT_TRUE(side["result_ok"].get<bool>());
  Trace t = DecodeFile(Fixture("unbalanced.bin"), DeviceOptions(side));
  ASSERT_EQ(t.lanes.size(), 1u);
  bool start40 = false, end41 = false;
  for (const Issue& i : t.issues) {
    start40 |= i.kind == IssueKind::kUnmatchedStart && i.region == 40;
    end41 |= i.kind == IssueKind::kUnmatchedEnd && i.region == 41;
  }
  EXPECT_TRUE(start40 && end41) << IssueList(t);
  const Interval* bal = Find(t, 42);
  ASSERT_TRUE(bal);
  EXPECT_FALSE(bal->unmatched);
  EXPECT_EQ(bal->depth, 1u);
  EXPECT_TRUE(Find(t, 40)->unmatched);
}

TEST(RegionsFixture, ClockWrapOnTheDevice) {
  auto side = Sidecar("clock_wrap");
  Trace t = DecodeFile(Fixture("clock_wrap.bin"), DeviceOptions(side));
  ASSERT_EQ(t.lanes.size(), 2u);
  bool wrap0 = false, ambiguous1 = false, ambiguous0 = false;
  for (const Issue& i : t.issues) {
    wrap0 |= i.kind == IssueKind::kClockWrap && i.lane == 0;
    ambiguous0 |= i.kind == IssueKind::kClockAmbiguous && i.lane == 0;
    ambiguous1 |= i.kind == IssueKind::kClockAmbiguous && i.lane == 1;
  }
  EXPECT_TRUE(wrap0) << IssueList(t);
  EXPECT_FALSE(ambiguous0);
  EXPECT_TRUE(ambiguous1);  // one 5e9-cycle region: 32-bit clocks cannot see it
  int iters = 0;
  for (const Interval& iv : t.intervals) {
    if (iv.lane != 0 || iv.iteration < 0) continue;
    EXPECT_NEAR(double(iv.end_cycles - iv.start_cycles), 1e9, 1e4);
    ++iters;
  }
  EXPECT_EQ(iters, 5);
}

// A 128x128x8-tile SGEMM with a 2-stage cp.async pipeline (bench/regions/gemm_kernels.cuh,
// level-1 markers: wait and compute per k-step), 1024^3, 64 blocks x 2 warp-group lanes, recorded
// on the H100 by bench/regions/region_overhead with the branch-free markers; its calibration
// buffer comes from the same run. The sidecar has, per lane, the clock64 span of the k-loop in
// the plain build (truth, 5 launches) and in this instrumented launch (read just outside the
// k-loop markers by the leader).
TEST(RegionsFixture, GemmBenchReplayAgainstPlainTruth) {
  std::ifstream in(Fixture("gemm_bench/acc_pipelined_s2_l1.json"));
  const auto side = nlohmann::json::parse(in);
  Trace cal = DecodeFile(Fixture("gemm_bench/calibration.bin"));
  const double c = CalibrateRecordCost(cal);
  EXPECT_GT(c, 5);
  EXPECT_LE(c, 16);  // the issue's goal for the cost of one record
  DecodeOptions opt;
  opt.record_cost_cycles = c;
  opt.cycles_per_ns = side["cycles_per_ns"].get<double>();
  Trace t = DecodeFile(Fixture("gemm_bench/acc_pipelined_s2_l1.bin"), opt);
  EXPECT_TRUE(t.issues.empty()) << IssueList(t);
  ASSERT_EQ(t.lanes.size(), 128u);
  const auto plain = side["plain_loop_cycles"].get<std::vector<double>>();
  const auto instr = side["instrumented_loop_cycles"].get<std::vector<double>>();
  ASSERT_EQ(instr.size(), 128u);
  double truth = 0;
  for (double v : plain) truth += v;
  truth /= double(plain.size());
  double raw_sum = 0, rep_sum = 0;
  for (uint32_t li = 0; li < t.lanes.size(); ++li) {
    const Lane& l = t.lanes[li];
    const Interval* loop = nullptr;
    int waits = 0, computes = 0;
    for (const Interval& iv : t.intervals) {
      if (iv.lane != li) continue;
      if (iv.region == 1) loop = &iv;
      if (iv.region == 2 || iv.region == 3) {
        EXPECT_EQ(iv.depth, 1u);
        EXPECT_LT(iv.duration_ns(), iv.raw_duration_ns());
        (iv.region == 2 ? waits : computes) += 1;
      }
    }
    ASSERT_TRUE(loop);
    EXPECT_EQ(waits, 128);  // K / 8 k-steps
    EXPECT_EQ(computes, 128);
    // Replay arithmetic: every record from the loop's start up to its end is taken out once.
    const double records = double(loop->end_index - loop->start_index);
    EXPECT_EQ(records, 512.0 + 1.0);
    EXPECT_NEAR((loop->raw_duration_ns() - loop->duration_ns()) * opt.cycles_per_ns, c * records, 1e-3 * records);
    // The independent clock64 pair just outside the markers brackets the decoded raw interval.
    const double raw_cycles = double(loop->end_cycles - loop->start_cycles);
    const double span = instr[l.meta.block_linear * 2 + l.meta.group];
    EXPECT_GE(span, raw_cycles);
    EXPECT_LT(span - raw_cycles, 200.0);
    raw_sum += raw_cycles;
    rep_sum += loop->duration_ns() * opt.cycles_per_ns;
  }
  const double raw_err = raw_sum / 128 / truth - 1, rep_err = rep_sum / 128 / truth - 1;
  std::printf("gemm 2-stage, level 1: truth %.0f cycles, raw %+.2f%%, replayed %+.2f%% at %.2f cycles/record\n", truth,
              100 * raw_err, 100 * rep_err, c);
  EXPECT_GT(raw_err, 0.0);                   // the markers cost the loop something
  EXPECT_LT(std::fabs(rep_err), raw_err);    // replay brings it closer to the plain build
}

}  // namespace
