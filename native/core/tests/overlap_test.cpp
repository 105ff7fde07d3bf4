// The overlap analysis (strata/core/overlap.h): on real H100 traces (a warp-specialized SGEMM's
// buffer, a pipelined SGEMM's, the warp-specialized Gluon attention's Proton trace) and on
// buffers made with the header's record layout, barrier markers included: a warp-specialized
// kernel whose consumer arrives late, and its twin that arrives right after its MMA.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <unistd.h>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "buffer_builder.h"  // native/region_decoder/tests
#include "strata/core/names_file.h"
#include "strata/core/overlap.h"
#include "strata/core/proton_import.h"
#include "strata/format/writer.h"

namespace {

using namespace strata::core;
using namespace strata::core::overlap;
using namespace strata::region_decoder::testing;
namespace rg = strata::core::regions;

rg::Trace Fixture(const std::string& name, rg::RegionNames* names) {
  const std::string dir = STRATA_REGION_FIXTURES;
  std::string why;
  auto file = rg::ReadNamesFile(dir + "/" + name + ".json", &why);
  EXPECT_TRUE(file.has_value()) << why;
  *names = file->names;
  rg::DecodeOptions o;
  o.cycles_per_ns = file->cycles_per_ns;
  o.record_cost_cycles = 14.7;
  return rg::DecodeFile(dir + "/" + name + ".bin", o);
}

const PathRegion* OnPath(const OverlapAnalysis& a, const rg::RegionNames& names, const std::string& name) {
  for (const PathRegion& p : a.path_regions)
    if (p.region >= 0 && rg::NameOf(names, uint16_t(p.region)).name == name) return &p;
  return nullptr;
}

TEST(OverlapNames, ActivityFromTheName) {
  EXPECT_EQ(ClassifyRegionName("wait empty"), Activity::kWait);
  EXPECT_EQ(ClassifyRegionName("wait_kv"), Activity::kWait);
  EXPECT_EQ(ClassifyRegionName("load tile"), Activity::kLoad);
  EXPECT_EQ(ClassifyRegionName("issue_kv"), Activity::kLoad);
  EXPECT_EQ(ClassifyRegionName("load (cp.async)"), Activity::kLoad);
  EXPECT_EQ(ClassifyRegionName("softmax"), Activity::kCompute);  // "tma" inside a word is no TMA
  EXPECT_EQ(ClassifyRegionName("mma"), Activity::kCompute);
}

// H100, warp-specialized SGEMM (test/regions/kernels.cuh WarpSpecKernel): no barrier markers;
// `wait full` / `wait empty` by name.
TEST(OverlapFixture, WarpSpecializedGemm) {
  rg::RegionNames names;
  rg::Trace t = Fixture("warpspec", &names);
  OverlapAnalysis a = AnalyzeOverlap(t, names);
  EXPECT_EQ(a.barrier_edges, 0u);
  EXPECT_GT(a.inferred_edges, 64u * 10);  // binding waits only: 849 of the 64 x 94
  EXPECT_EQ(a.paths.size(), 64u);
  // The consumer sets the pace: the MMA is most of the path; the producer waits for empty slots.
  ASSERT_FALSE(a.path_regions.empty());
  EXPECT_EQ(rg::NameOf(names, uint16_t(a.path_regions.front().region)).name, "mma");
  EXPECT_GT(a.path_regions.front().share, 0.8);
  ASSERT_EQ(a.model.kind, ModelKind::kWarpSpecialization);
  EXPECT_EQ(a.model.stages, 2u);  // the ring of two slots, from the edges' iterations
  EXPECT_EQ(a.model.current.bottleneck, Bottleneck::kConsumer);
  EXPECT_NEAR(a.model.current.kernel_ns / a.model.measured_kernel_ns, 1.0, 0.10);
  double wait = 0, span = 0;
  for (const LaneActivity& l : a.lanes)
    if (l.role == a.model.producer_role) { wait += l.wait_ns; span += l.span_ns; }
  EXPECT_GT(wait / span, 0.5);
  ASSERT_FALSE(a.findings.empty());
  EXPECT_EQ(a.findings.front().kind, FindingKind::kShortenRegion);
  EXPECT_EQ(rg::NameOf(names, a.findings.front().region).name, "mma");
  EXPECT_GT(a.findings.front().gain_share, 0.2);
  // Every edge goes from one role to the other within a block, release before the wait's end.
  for (const DependencyEdge& e : a.edges) {
    EXPECT_EQ(t.lanes[e.from_lane].meta.block_linear, t.lanes[e.to_lane].meta.block_linear);
    EXPECT_NE(t.lanes[e.from_lane].meta.group, t.lanes[e.to_lane].meta.group);
    EXPECT_GE(e.latency_ns, 0);
  }
  // Bubbles lie inside their lanes.
  for (const Bubble& b : a.bubbles) {
    EXPECT_LT(b.start_ns, b.end_ns);
    EXPECT_GE(b.end_ns - b.start_ns, 20);
  }
}

// H100, 2-stage cp.async SGEMM: one role, software pipelining.
TEST(OverlapFixture, PipelinedGemm) {
  rg::RegionNames names;
  rg::Trace t = Fixture("gemm_nested_loop", &names);
  OverlapAnalysis a = AnalyzeOverlap(t, names);
  EXPECT_TRUE(a.edges.empty());
  ASSERT_EQ(a.model.kind, ModelKind::kSoftwarePipelining);
  EXPECT_EQ(a.model.stages, 2u);
  EXPECT_NEAR(a.model.current.kernel_ns / a.model.measured_kernel_ns, 1.0, 0.05);
  ASSERT_EQ(a.model.by_stages.size(), 4u);
  EXPECT_GT(a.model.by_stages[0].kernel_ns, 1.5 * a.model.by_stages[1].kernel_ns);  // one stage: no overlap
  ASSERT_NE(OnPath(a, names, "compute"), nullptr);
  EXPECT_GT(OnPath(a, names, "compute")->share, 0.6);
}

// H100, Triton 3.6 Gluon warp-specialized attention (Proton trace): the consumer warps set the
// pace, softmax first.
TEST(OverlapFixture, GluonAttentionProton) {
  rg::ProtonImportOptions o;
  o.cycles_per_ns = 1.98;
  rg::ProtonTrace p = rg::ImportProtonFile(std::string(STRATA_H100_PROTON) + "/attention_ws_gluon.chrome_trace.gz", o);
  ASSERT_TRUE(p.ok);
  OverlapAnalysis a = AnalyzeOverlap(p.trace, p.names);
  EXPECT_GT(a.inferred_edges, 0u);
  ASSERT_EQ(a.model.kind, ModelKind::kWarpSpecialization);
  EXPECT_EQ(a.model.stages, 2u);
  EXPECT_EQ(a.model.current.bottleneck, Bottleneck::kConsumer);
  EXPECT_NEAR(a.model.current.kernel_ns / a.model.measured_kernel_ns, 1.0, 0.10);
  EXPECT_EQ(rg::NameOf(p.names, uint16_t(a.path_regions.front().region)).name, "softmax");
  ASSERT_FALSE(a.findings.empty());
  EXPECT_EQ(rg::NameOf(p.names, a.findings.front().region).name, "softmax");
  // Proton gives no source lines: the finding is on the region, without a file.
  auto f = OverlapFindingsAsFindings(a, p.names, "attn_fwd_ws_gluon");
  ASSERT_FALSE(f.empty());
  EXPECT_EQ(f.front().rule, "critical-path");
  EXPECT_EQ(f.front().location.name, "softmax");
}

// A warp-specialized kernel made with the header's records: producer (group 0) loads a slot
// (L ns) and arrives on `full`; the consumer (group 1) waits on `full`, runs its MMA (M ns) and
// other work (X ns), and arrives on `empty` after both (late) or right after the MMA (the fixed
// twin). One slot: the producer's load k waits for the consumer's arrive k - 1.
enum : uint32_t { kProdLoop = 1, kLoad = 2, kConsLoop = 3, kMma = 4, kLate = 5, kFull = 10, kEmpty = 11 };
const char* kNames = "1=producer loop;2=load tile@ws.cu:40;3=consumer loop;4=mma@ws.cu:60;5=rescale@ws.cu:64;10=full;11=empty";

// record_ns: what each marker costs its lane after its clock read (0: the plain kernel's times).
std::vector<uint8_t> WarpSpecialized(int iterations, double L, double M, double X, double sync, bool late, double* end_ns,
                                     double record_ns = 0) {
  std::vector<Rec> p, c;
  auto at = [](double ns) { return uint64_t(10000 + std::llround(2 * ns)); };  // 2 cycles per ns
  double tp = 100, tc = 100;
  auto P = [&](uint32_t kind, uint32_t id, uint32_t use) { p.push_back({kind, id, use, at(tp)}); tp += record_ns; };
  auto C = [&](uint32_t kind, uint32_t id, uint32_t use) { c.push_back({kind, id, use, at(tc)}); tc += record_ns; };
  std::vector<double> full(static_cast<size_t>(iterations), 0.0), empty(static_cast<size_t>(iterations), 0.0);
  P(0, kProdLoop, 0);
  C(0, kConsLoop, 0);
  for (int k = 0; k < iterations; ++k) {
    P(2, kProdLoop, uint32_t(k));
    if (k >= 1) {
      P(7, kEmpty, uint32_t(k - 1));
      tp = std::max(tp, empty[size_t(k - 1)] + sync);
      P(8, kEmpty, uint32_t(k - 1));
    }
    P(0, kLoad, 0);
    tp += L;
    P(1, kLoad, 0);
    tp += 5;  // the arrive follows the region's end by a marker
    P(6, kFull, uint32_t(k));
    full[size_t(k)] = tp;
    P(3, kProdLoop, uint32_t(k));
    C(2, kConsLoop, uint32_t(k));
    C(7, kFull, uint32_t(k));
    tc = std::max(tc, full[size_t(k)] + sync);
    C(8, kFull, uint32_t(k));
    C(0, kMma, 0);
    tc += M;
    C(1, kMma, 0);
    if (!late) { tc += 5; C(6, kEmpty, uint32_t(k)); empty[size_t(k)] = tc; }
    C(0, kLate, 0);
    tc += X;
    C(1, kLate, 0);
    if (late) { tc += 5; C(6, kEmpty, uint32_t(k)); empty[size_t(k)] = tc; }
    C(3, kConsLoop, uint32_t(k));
  }
  P(1, kProdLoop, 0);
  C(1, kConsLoop, 0);
  *end_ns = tc;
  const uint64_t span = 2 * uint64_t(tc + 100);
  LaneSpec lp = Lane2(p, span, 0), lc = Lane2(c, span, 1);
  lp.capacity = lc.capacity = 4096;
  return Build({lp, lc});
}

TEST(OverlapBarriers, DecoderReadsArrivesAndWaits) {
  double end = 0;
  auto b = WarpSpecialized(4, 300, 500, 300, 20, true, &end);
  rg::DecodeOptions o;
  o.cycles_per_ns = 2;
  rg::Trace t = rg::Decode(b.data(), b.size(), o);
  EXPECT_TRUE(t.issues.empty()) << t.issues.front().message;
  EXPECT_EQ(t.arrives.size(), 8u);  // 4 full, 4 empty
  size_t waits = 0;
  for (const auto& iv : t.intervals) waits += iv.barrier_use >= 0;
  EXPECT_EQ(waits, 7u);  // 4 on full, 3 on empty
  // The JSON carries the arrives and the waits' uses.
  auto j = nlohmann::json::parse(rg::ToJson(t, rg::ParseNameTable(kNames)));
  ASSERT_TRUE(j.contains("arrives"));
  EXPECT_EQ(j["arrives"].size(), 8u);
}

TEST(OverlapBarriers, LateArriveIsFoundAndTheTwinPredicted) {
  const rg::RegionNames names = rg::ParseNameTable(kNames);
  double late_end = 0, fixed_end = 0;
  auto late_buf = WarpSpecialized(32, 300, 500, 300, 20, true, &late_end);
  auto fixed_buf = WarpSpecialized(32, 300, 500, 300, 20, false, &fixed_end);
  rg::Trace late = rg::Decode(late_buf.data(), late_buf.size());
  rg::Trace fixed = rg::Decode(fixed_buf.data(), fixed_buf.size());
  OverlapAnalysis a = AnalyzeOverlap(late, names);
  OverlapAnalysis b = AnalyzeOverlap(fixed, names);
  EXPECT_EQ(a.barrier_edges, 63u);
  EXPECT_EQ(a.inferred_edges, 0u);
  ASSERT_EQ(a.model.kind, ModelKind::kWarpSpecialization);
  EXPECT_EQ(a.model.stages, 1u);
  EXPECT_EQ(a.model.current.bottleneck, Bottleneck::kRing);
  EXPECT_NEAR(a.model.measured_iteration_ns, 300 + 500 + 300 + 40 + 10, 1);  // two arrives 5 ns after their regions
  // The path runs through both roles each iteration: rescale is on it.
  EXPECT_GT(a.paths.front().lane_switches, 50u);
  ASSERT_NE(OnPath(a, names, "rescale"), nullptr);
  const OverlapFinding* arrive = nullptr;
  for (const OverlapFinding& f : a.findings)
    if (f.kind == FindingKind::kArriveEarlier) arrive = &f;
  ASSERT_NE(arrive, nullptr);
  EXPECT_EQ(rg::NameOf(names, arrive->region).name, "rescale");
  // The prediction for arriving before `rescale` against the twin's measured time: within 10%.
  EXPECT_NEAR(arrive->predicted_kernel_ns / b.model.measured_kernel_ns, 1.0, 0.10);
  // The twin: the consumer's MMA and rescale (805) against the ring (300 + 500 + 40 + 10):
  // ring-bound still, no arrive to move.
  EXPECT_NEAR(b.model.measured_iteration_ns, 850, 1);
  for (const OverlapFinding& f : b.findings) EXPECT_NE(f.kind, FindingKind::kArriveEarlier) << f.message << "\n" << OverlapToText(b, fixed, names);
  // As analyzer findings: on the marker's line.
  auto findings = OverlapFindingsAsFindings(a, names, "ws_kernel");
  bool on_line = false;
  for (const Finding& f : findings) on_line = on_line || (f.location.file == "ws.cu" && f.location.line == 64);
  EXPECT_TRUE(on_line);
  auto j = nlohmann::json::parse(OverlapToJson(a, late, names));
  EXPECT_EQ(j["model"]["kind"], "warp-specialization");
  EXPECT_EQ(j["edges"][0]["source"], "barrier");
}

// The analyzer rule on a profile that carries the late-arrive kernel's buffer as a captured
// launch: the finding sits on the region frame of the marker's line, in SARIF as in text.
// Markers that cost their lane time, replayed: the lanes have different numbers of records per
// iteration (the producer 7, the consumer 8), so each lane's replayed clock drifts from the
// other's; edges and their latencies are read on the recorded clock, less the arrive's own
// record. The twin's time predicted from the instrumented late kernel, as the late kernel's
// plain time less the predicted gain, against the plain twin.
TEST(OverlapBarriers, ReplayedMarkersKeepTheEdgesAndTheTwinPrediction) {
  const rg::RegionNames names = rg::ParseNameTable(kNames);
  double late_end = 0, late_plain_end = 0, fixed_plain_end = 0;
  auto late_buf = WarpSpecialized(32, 300, 500, 300, 20, true, &late_end, 15);  // 30 cycles a record
  WarpSpecialized(32, 300, 500, 300, 20, true, &late_plain_end);
  WarpSpecialized(32, 300, 500, 300, 20, false, &fixed_plain_end);
  rg::DecodeOptions o;
  o.cycles_per_ns = 2;
  o.record_cost_cycles = 30;
  rg::Trace late = rg::Decode(late_buf.data(), late_buf.size(), o);
  OverlapAnalysis a = AnalyzeOverlap(late, names);
  EXPECT_EQ(a.barrier_edges, 63u);
  size_t binding = 0;
  for (const DependencyEdge& e : a.edges) binding += e.binding;
  EXPECT_EQ(binding, 63u);  // one slot: every wait waits for its arrive
  ASSERT_EQ(a.model.kind, ModelKind::kWarpSpecialization);
  EXPECT_EQ(a.model.stages, 1u);
  EXPECT_NEAR(a.model.sync_ns, 2 * 20, 2);  // the two hops, the markers' cost taken out
  const OverlapFinding* arrive = nullptr;
  for (const OverlapFinding& f : a.findings)
    if (f.kind == FindingKind::kArriveEarlier) arrive = &f;
  ASSERT_NE(arrive, nullptr);
  EXPECT_EQ(rg::NameOf(names, arrive->region).name, "rescale");
  EXPECT_NEAR((late_plain_end - arrive->gain_ns) / fixed_plain_end, 1.0, 0.03);
}

// The fixed twin whose work after the arrive (`rescale`, 900 ns) outlasts the other role's
// (load and sync): its waits on `full` find the barrier open and last about one record. Replayed
// with a record cost above what a record costs its lane (a kernel's whole marker overhead over its
// records, as the per-kernel calibration gives), such a wait ends before it starts and the next
// region starts before it: the stages' order within an iteration is read on the recorded clock,
// so the wait still precedes `mma` and the twin's release after `mma` is not taken for a late one.
TEST(OverlapBarriers, ReplayPastAShortWaitKeepsTheStagesInOrder) {
  const rg::RegionNames names = rg::ParseNameTable(kNames);
  double end = 0;
  auto buf = WarpSpecialized(32, 300, 500, 900, 20, false, &end, 15);  // 30 cycles a record
  rg::DecodeOptions o;
  o.cycles_per_ns = 2;
  o.record_cost_cycles = 160;  // 80 ns a record: more than the 15 ns a record takes
  rg::Trace t = rg::Decode(buf.data(), buf.size(), o);
  OverlapAnalysis b = AnalyzeOverlap(t, names);
  ASSERT_EQ(b.model.kind, ModelKind::kWarpSpecialization);
  bool shortened_wait = false;
  for (const auto& iv : t.intervals) shortened_wait = shortened_wait || (iv.barrier_use >= 0 && iv.end_ns < iv.start_ns);
  EXPECT_TRUE(shortened_wait);  // the case: replay turns a wait around
  for (const OverlapFinding& f : b.findings) EXPECT_NE(f.kind, FindingKind::kArriveEarlier) << f.message << "\n" << OverlapToText(b, t, names);
}

TEST(OverlapBarriers, AnalyzerRuleOnAProfile) {
  namespace fmt = strata::format;
  double end = 0;
  auto buffer = WarpSpecialized(32, 300, 500, 300, 20, true, &end);
  fmt::ProfileWriter w;
  const uint32_t time = w.Metric("region_time", "ns");
  const uint32_t kernel = w.Child(0, w.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "ws_kernel", "", 0));
  for (const auto& [id, n] : rg::ParseNameTable(kNames)) {
    fmt::MetricStats st;
    st.Add(1000);
    w.AddStats(w.Child(kernel, w.Frame(fmt::FrameKind::kRegion, fmt::kNone, id, n.name, n.file, n.line)), time, st);
  }
  fmt::RegionLaunch l;
  l.kernel = "ws_kernel";
  l.correlation_id = 7;
  l.cycles_per_ns = 2;
  for (const auto& [id, n] : rg::ParseNameTable(kNames)) l.names.push_back({id, n.name, n.file, n.line});
  l.buffer.assign(buffer.begin(), buffer.end());
  w.AddRegionLaunch(l);
  const std::string path = testing::TempDir() + "/overlap_rule_" + std::to_string(getpid()) + ".strata";
  std::string why;
  ASSERT_TRUE(fmt::WriteFileAtomically(path, w.Serialize(), &why)) << why;
  auto profile = Profile::Open(path);
  AnalyzeOptions o;
  o.profile_path = path;
  AnalysisResult r = Analyze(*profile, o);
  std::remove(path.c_str());
  bool arrive = false;
  for (const Finding& f : r.findings) {
    if (f.rule != "critical-path") continue;
    if (f.cause == "arrive-earlier") {
      arrive = true;
      EXPECT_EQ(f.location.file, "ws.cu");
      EXPECT_EQ(f.location.line, 64u);
      EXPECT_NE(f.message.find("`rescale`"), std::string::npos) << f.message;
    }
  }
  EXPECT_TRUE(arrive);
}

}  // namespace
