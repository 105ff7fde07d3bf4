// The per-step replay and the record cost fitted on a kernel's own plain / instrumented pair:
// the arithmetic on synthetic buffers, and the H100 GEMM of run 5 (test/fixtures/h100/regions/
// gemm_bench: the 2-stage pipelined GEMM at 8-deep k-steps, marker level 1, with the plain
// build's clock64 k-loop spans).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "buffer_builder.h"
#include "strata/region_decoder/decode.h"
#include "strata/region_decoder/record_cost_fit.h"

namespace {

using namespace strata::region_decoder;
using namespace strata::region_decoder::testing;

// A loop (region 1) of three steps, each a wait (region 2) and a compute (region 3), 14 records:
// S1 | S2 E2 S3 E3 | S2 E2 S3 E3 | S2 E2 S3 E3 | E1.
std::vector<Rec> ThreeSteps(uint64_t step_cycles) {
  std::vector<Rec> r{{0, 1, 0, 10000}};
  uint64_t c = 10000;
  for (int i = 0; i < 3; ++i) {
    r.push_back({0, 2, 0, c += 10});
    r.push_back({1, 2, 0, c += step_cycles / 2});
    r.push_back({0, 3, 0, c += 10});
    r.push_back({1, 3, 0, c += step_cycles / 2});
  }
  r.push_back({1, 1, 0, c += 10});
  return r;
}

TEST(RecordCost, StepCostReplaysOnTopOfRecords) {
  auto b = Build({Lane2(ThreeSteps(200))});
  DecodeOptions o;
  o.cycles_per_ns = 1;
  o.record_cost_cycles = 5;
  o.start_cost_cycles = {{2, 20}};
  Trace t = Decode(b.data(), b.size(), o);
  ASSERT_TRUE(t.issues.empty());
  const Interval* loop = Find(t, 1);
  ASSERT_TRUE(loop);
  // 13 records from the loop's start to its end (its own start and 12 inside), 3 steps.
  EXPECT_DOUBLE_EQ(loop->raw_duration_ns() - loop->duration_ns(), 13 * 5 + 3 * 20);
  // A step's cost lands in its wait (between its start and its end).
  const Interval* wait = Find(t, 2);
  ASSERT_TRUE(wait);
  EXPECT_DOUBLE_EQ(wait->raw_duration_ns() - wait->duration_ns(), 5 + 20);
  const Interval* compute = Find(t, 3);
  ASSERT_TRUE(compute);
  EXPECT_DOUBLE_EQ(compute->raw_duration_ns() - compute->duration_ns(), 5);
  EXPECT_EQ(t.start_cost_cycles, (StartCosts{{2, 20}}));
  // Start costs of several regions add up: the loop's own start too (it lands inside the loop).
  o.start_cost_cycles = {{1, 7}, {2, 20}, {3, 1}};
  Trace u = Decode(b.data(), b.size(), o);
  EXPECT_DOUBLE_EQ(Find(u, 1)->raw_duration_ns() - Find(u, 1)->duration_ns(), 13 * 5 + 7 + 3 * 20 + 3 * 1);
}

TEST(RecordCost, FitToRegionPerRecordAndPerStep) {
  auto b = Build({Lane2(ThreeSteps(200), 100000, 0), Lane2(ThreeSteps(300), 100000, 1)});
  DecodeOptions raw;
  raw.cycles_per_ns = 1;
  Trace t = Decode(b.data(), b.size(), raw);
  ASSERT_EQ(t.lanes.size(), 2u);
  // Loop spans: 3 * (200 + 20) + 10 = 670 and 3 * 320 + 10 = 970 raw. A reference 130 cycles
  // shorter in both groups: 10 cycles a record (13 records in the span).
  RecordCostFit f = FitRecordCostToRegion(t, 1, {{0, {540.0, 0}}, {1, {840.0, 0}}});
  ASSERT_TRUE(f.ok()) << f.error;
  EXPECT_NEAR(f.record_cost_cycles, 10, 1e-9);
  EXPECT_DOUBLE_EQ(f.records, 13);
  EXPECT_EQ(f.lanes, 2u);
  DecodeOptions o = raw;
  f.ApplyTo(o);
  Trace r = Decode(b.data(), b.size(), o);
  EXPECT_NEAR(Find(r, 1, -1, 0)->duration_ns(), 540, 1e-9);
  EXPECT_NEAR(Find(r, 1, -1, 1)->duration_ns(), 840, 1e-9);
  // Per step, with a start-up cost of 4 per record: (130 - 13 * 4) / 3 = 26 per step.
  RecordCostFitOptions so;
  so.step_regions = {2};
  so.startup_cost_cycles = 4;
  RecordCostFit s = FitRecordCostToRegion(t, 1, {{0, {540.0, 0}}, {1, {840.0, 0}}}, so);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_DOUBLE_EQ(s.record_cost_cycles, 4);
  EXPECT_NEAR(s.step_cost_cycles, 26, 1e-9);
  EXPECT_DOUBLE_EQ(s.steps, 3);
  DecodeOptions os = raw;
  s.ApplyTo(os);
  EXPECT_NEAR(Find(Decode(b.data(), b.size(), os), 1, -1, 1)->duration_ns(), 840, 1e-9);
  // A reference from a trace: MeanRegionSpans per lane group (13 records from the start to the end).
  auto m = MeanRegionSpans(t, 1);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_DOUBLE_EQ(m[0].cycles, 670);
  EXPECT_DOUBLE_EQ(m[1].cycles, 970);
  EXPECT_DOUBLE_EQ(m[1].records, 13);
  // A reference that has markers of its own in the span (here 3): they cost it too.
  RecordCostFit own = FitRecordCostToRegion(t, 1, {{0, {570.0, 3}}, {1, {870.0, 3}}});
  EXPECT_NEAR(own.record_cost_cycles, 10, 1e-9);
  EXPECT_DOUBLE_EQ(own.records, 10);
  // Two regions pooled (a producer's loop and a consumer's): one cost for both.
  RecordCostFit pooled = FitRecordCostToRegions(t, {{1, {{0, {540.0, 0}}}}, {2, {{1, {150.0, 0}}}}});
  ASSERT_TRUE(pooled.ok()) << pooled.error;
  EXPECT_EQ(pooled.lanes, 1u + 3u);  // lane 0's loop, lane 1's three waits
  // What cannot be fitted says why.
  EXPECT_FALSE(FitRecordCostToRegion(t, 9, {{0, {1.0, 0}}}).ok());
  EXPECT_NE(FitRecordCostToRegion(t, 1, {{7, {1.0, 0}}}).error.find("lane groups"), std::string::npos);
  so.step_regions = {8};
  EXPECT_NE(FitRecordCostToRegion(t, 1, {{0, {540.0, 0}}}, so).error.find("no step"), std::string::npos);
}

TEST(RecordCost, FitToKernelTimeChainsTheLastSm) {
  // Two lanes of group 0 on SM 3 run in turn (the second starts after the first ends), one
  // lane on SM 4 ends earlier: the path is SM 3's two lanes, 14 records each.
  auto lane = [](uint64_t gt, uint32_t sm) {
    LaneSpec l = Lane2(ThreeSteps(200), 10000, 0);
    l.smid = sm;
    l.gt_start = gt;
    l.gt_end = gt + 10000;
    return l;
  };
  auto b = Build({lane(0, 3), lane(20000, 3), lane(5000, 4)});
  DecodeOptions raw;
  raw.cycles_per_ns = 1;
  Trace t = Decode(b.data(), b.size(), raw);
  ASSERT_EQ(t.lanes.size(), 3u);
  RecordCostFit f = FitRecordCostToKernelTime(t, 1000, 1000 + 28 * 7);
  ASSERT_TRUE(f.ok()) << f.error;
  EXPECT_DOUBLE_EQ(f.records, 28);
  EXPECT_NEAR(f.record_cost_cycles, 7, 1e-9);
  RecordCostFitOptions so;
  so.step_regions = {2};
  so.startup_cost_cycles = 4;
  RecordCostFit s = FitRecordCostToKernelTime(t, 1000, 1000 + 28 * 4 + 6 * 10, so);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_DOUBLE_EQ(s.steps, 6);
  EXPECT_NEAR(s.step_cost_cycles, 10, 1e-9);
  EXPECT_FALSE(FitRecordCostToKernelTime(t, 0, 10).ok());
  Trace no_rate = t;
  no_rate.cycles_per_ns = 0;
  EXPECT_NE(FitRecordCostToKernelTime(no_rate, 10, 20).error.find("clock rate"), std::string::npos);
}

// The paced form: a consumer lane (group 1: loop 1, per step a wait 2 and k computes 3) and a
// producer lane (group 0: loop 4, per step a wait 5) whose loops both stretch by c x the
// consumer's records per step, plus a constant each (300, 200); two densities (k = 1, 3).
std::vector<uint8_t> PacedBuffer(int k, double c, bool reference) {
  const int steps = 10, pace = 2 + 2 * k;
  auto lane = [&](uint32_t group, uint32_t loop, uint64_t truth, double constant, std::vector<uint32_t> step_ids) {
    std::vector<Rec> r{{0, loop, 0, 10000}};
    uint64_t clk = 10000;
    const uint64_t end = reference ? 10000 + truth : 10000 + truth + uint64_t(constant + c * pace * steps);
    if (!reference)
      for (int i = 0; i < steps; ++i)
        for (uint32_t id : step_ids) {
          r.push_back({0, id, 0, clk += 20});
          r.push_back({1, id, 0, clk += 20});
        }
    r.push_back({1, loop, 0, end});
    return Lane2(r, 100000, group);
  };
  std::vector<uint32_t> consumer{2};
  for (int j = 0; j < k; ++j) consumer.push_back(3);
  return Build({lane(1, 1, 10000, 300, consumer), lane(0, 4, 9000, 200, {5})});
}

TEST(RecordCost, PacedFitFromTwoDensities) {
  DecodeOptions raw;
  raw.cycles_per_ns = 1;
  auto ref_buf = PacedBuffer(1, 5, true), b1 = PacedBuffer(1, 5, false), b3 = PacedBuffer(3, 5, false);
  Trace ref = Decode(ref_buf.data(), ref_buf.size(), raw), t1 = Decode(b1.data(), b1.size(), raw),
        t3 = Decode(b3.data(), b3.size(), raw);
  const std::map<uint16_t, ReferenceSpans> refs{{1, MeanRegionSpans(ref, 1)}, {4, MeanRegionSpans(ref, 4)}};
  PacedFit f = FitPacedRecordCost({&t1, &t3}, refs, {2, 5});
  ASSERT_TRUE(f.ok()) << f.error;
  EXPECT_NEAR(f.pace_record_cycles, 5, 1e-9);
  EXPECT_NEAR(f.region_constant_cycles.at(1), 300, 1e-6);
  EXPECT_NEAR(f.region_constant_cycles.at(4), 200, 1e-6);
  EXPECT_EQ(f.lanes, 4u);
  // Each trace replays with its own pace: 8 records a step at k = 3 (40 cycles), 4 at k = 1.
  const StartCosts s3 = PacedStartCosts(t3, f, refs);
  EXPECT_NEAR(s3.at(2), 40, 1e-9);
  EXPECT_NEAR(s3.at(5), 40, 1e-9);
  EXPECT_NEAR(PacedStartCosts(t1, f, refs).at(2), 20, 1e-9);
  DecodeOptions o = raw;
  o.start_cost_cycles = s3;
  Trace r3 = Decode(b3.data(), b3.size(), o);
  for (const Interval& iv : r3.intervals) {
    if (iv.region == 1) EXPECT_NEAR(iv.duration_ns(), 10000, 1e-6);
    if (iv.region == 4) EXPECT_NEAR(iv.duration_ns(), 9000, 1e-6);
  }
  // One density: the constants and the pace are not apart.
  EXPECT_NE(FitPacedRecordCost({&t3, &t3}, refs, {2, 5}).error.find("pace differs"), std::string::npos);
  EXPECT_FALSE(FitPacedRecordCost({&t1, &t3}, refs, {}).ok());
}

// The H100: calibrated on the kernel's own pair, the replayed k-loop is the plain one, in both
// forms (by construction on the lanes it was fitted on: this checks the record and step counts
// the fit reads off a real buffer: 513 records and 128 waits in each lane's k-loop).
TEST(RecordCost, FitsTheH100PipelinedGemm) {
  const std::string dir = std::string(STRATA_REGION_FIXTURES) + "/gemm_bench/";
  std::ifstream in(dir + "acc_pipelined_s2_l1.json");
  nlohmann::json side = nlohmann::json::parse(in);
  const auto plain = side["plain_loop_cycles"].get<std::vector<double>>();
  ReferenceSpans ref;  // lane index = block * 2 + warp group
  for (uint32_t g = 0; g < 2; ++g) {
    double s = 0, n = 0;
    for (size_t i = g; i < plain.size(); i += 2) s += plain[i], n += 1;
    ref[g] = {s / n, 0};
  }
  DecodeOptions raw;
  raw.cycles_per_ns = side["cycles_per_ns"].get<double>();
  Trace t = DecodeFile(dir + "acc_pipelined_s2_l1.bin", raw);
  ASSERT_EQ(t.lanes.size(), 128u);
  RecordCostFit f = FitRecordCostToRegion(t, 1, ref);
  ASSERT_TRUE(f.ok()) << f.error;
  EXPECT_DOUBLE_EQ(f.records, 513);
  EXPECT_NEAR(f.record_cost_cycles, 43.4, 0.5);  // docs/benchmarks.md, run 5: 43.4 in context
  RecordCostFitOptions so;
  so.step_regions = {2};  // the k-step's wait
  so.startup_cost_cycles = 14.7;
  RecordCostFit s = FitRecordCostToRegion(t, 1, ref, so);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_DOUBLE_EQ(s.steps, 128);
  EXPECT_NEAR(s.step_cost_cycles, (43.4 - 14.7) * 513 / 128, 3);
  for (const RecordCostFit* fit : {&f, &s}) {
    DecodeOptions o = raw;
    fit->ApplyTo(o);
    Trace r = DecodeFile(dir + "acc_pipelined_s2_l1.bin", o);
    double sum = 0, n = 0;
    for (const Interval& iv : r.intervals)
      if (iv.region == 1 && iv.iteration < 0) sum += iv.duration_ns() * r.cycles_per_ns, n += 1;
    EXPECT_NEAR(sum / n / ((ref[0].cycles + ref[1].cycles) / 2) - 1, 0, 1e-4);
  }
}

}  // namespace
