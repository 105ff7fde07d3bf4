// The SASS dependency analysis (docs/async-copies.md): control bits decoded from real H100
// cubins against their nvdisasm listings, operands, blocks, copy/wait pairing, wait verdicts,
// suggestions and the timing model on a hand-written listing; the late cp.async wait and its
// twin recorded on the H100 (test/fixtures/h100/async_copy) where present.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "sass_deps/control_bits.h"
#include "sass_deps/sass_operands.h"
#include "strata/core/analyze.h"
#include "strata/core/api.h"
#include "strata/core/sass_deps.h"

namespace strata::core {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string kStalls = std::string(STRATA_H100_FIXTURES) + "/stalls/";
const std::string kSynthetic = std::string(STRATA_SASS_FIXTURES) + "/pipeline_synthetic.sass";

size_t At(const SassDependencyGraph& g, uint64_t offset) {
  for (size_t i = 0; i < g.instructions.size(); ++i)
    if (g.instructions[i].offset == offset) return i;
  ADD_FAILURE() << "no instruction at " << offset;
  return 0;
}

// Every scoreboard a wait mask names was set by an instruction before it on the path, and the
// producer of a variable-latency result (LDC, S2R, LDG, ...) is what its first reader waits on.
void CheckScoreboards(const std::string& cubin, const std::string& listing) {
  for (const std::string& fn : SassListingFunctions(listing)) {
    SassDependencyGraph g = BuildSassDependencyGraph(cubin, listing, fn);
    ASSERT_TRUE(g.has_control_bits) << fn;
    size_t waits = 0, matched = 0;
    std::set<std::pair<size_t, int>> edges;
    for (const SassEdge& e : g.edges)
      if (e.kind == SassEdgeKind::kScoreboard) edges.insert({e.to, std::stoi(e.what.substr(2))});
    for (size_t i = 0; i < g.instructions.size(); ++i)
      for (int sb = 0; sb < 6; ++sb)
        if (g.instructions[i].control->wait_mask >> sb & 1) {
          ++waits;
          matched += edges.count({i, sb});
        }
    EXPECT_GT(waits, 0u) << fn;
    EXPECT_EQ(matched, waits) << fn << ": a wait on a scoreboard nothing set";
    // Reuse flags: set exactly where nvdisasm prints ".reuse".
    for (const SassInstr& i : g.instructions)
      EXPECT_EQ(i.control->reuse != 0, i.text.find(".reuse") != std::string::npos) << fn << " " << i.text;
  }
}

TEST(SassControlBits, StallKernelsScoreboardsAndReuse) {
  CheckScoreboards(Read(kStalls + "stall_kernels.cubin"), Read(kStalls + "stall_kernels.sass"));
}

TEST(SassControlBits, TritonSoftmaxScoreboardsAndReuse) {
  CheckScoreboards(Read(kStalls + "triton_softmax.cubin"), Read(kStalls + "triton_softmax.sass"));
}

TEST(SassControlBits, KnownInstructions) {
  const std::string cubin = Read(kStalls + "stall_kernels.cubin"), listing = Read(kStalls + "stall_kernels.sass");
  SassDependencyGraph g = BuildSassDependencyGraph(cubin, listing, "_Z10math_chainPffi");
  // 0x0010 LDC R4, c[0x0][0x21c] sets SB0; 0x0040 ISETP reads R4 and waits on SB0.
  const SassControl ldc = *g.instructions[At(g, 0x10)].control;
  EXPECT_EQ(ldc.write_scoreboard, 0);
  EXPECT_EQ(ldc.read_scoreboard, -1);
  const SassControl isetp = *g.instructions[At(g, 0x40)].control;
  EXPECT_EQ(isetp.wait_mask, 1);
  EXPECT_EQ(isetp.write_scoreboard, -1);
  // 0x0020 S2R R0 sets SB1, waited on by 0x0050 I2FP.
  EXPECT_EQ(g.instructions[At(g, 0x20)].control->write_scoreboard, 1);
  EXPECT_EQ(g.instructions[At(g, 0x50)].control->wait_mask, 2);
  // A dependent FFMA chain: 4-cycle stalls (the FMA pipe's latency) between its links.
  EXPECT_EQ(g.instructions[At(g, 0x190)].control->stall, 4);
  EXPECT_EQ(g.static_shared_bytes, 0u);
}

TEST(SassOperands, DefsAndUses) {
  auto parse = [](const std::string& t) {
    SassInstr i;
    i.text = t;
    sass::ParseOperands(i);
    return i;
  };
  auto names = [](const std::vector<SassReg>& v) {
    std::string s;
    for (const SassReg& r : v) s += (s.empty() ? "" : " ") + SassRegName(r);
    return s;
  };
  SassInstr c = parse("@!P1 LDGSTS.E.BYPASS.LTC128B.128 [R3+0x800], desc[UR4][R6.64+0x100]");
  EXPECT_EQ(c.base, "LDGSTS");
  EXPECT_EQ(names(c.defs), "");
  EXPECT_EQ(names(c.uses), "R3 UR4 R6 R7 P1");
  ASSERT_TRUE(c.guard);
  EXPECT_TRUE(c.guard_negated);
  SassInstr p = parse("ISETP.GE.AND P0, PT, R4, 0x10, PT");
  EXPECT_EQ(names(p.defs), "P0");
  EXPECT_EQ(names(p.uses), "R4");
  SassInstr l = parse("LDS.128 R8, [R3+0x10]");
  EXPECT_EQ(names(l.defs), "R8 R9 R10 R11");
  EXPECT_EQ(names(l.uses), "R3");
  SassInstr w = parse("IMAD.WIDE R6, R4, 0x40, R10");
  EXPECT_EQ(names(w.defs), "R6 R7");
  EXPECT_EQ(names(w.uses), "R4 R10 R11");
  SassInstr carry = parse("IADD3 R8, P2, R8, 0x10, RZ");
  EXPECT_EQ(names(carry.defs), "R8 P2");
  EXPECT_EQ(names(carry.uses), "R8");
  SassInstr carry_in = parse("LEA.HI.X R3, R6, UR17, R7, 0x2, P0");
  EXPECT_EQ(names(carry_in.defs), "R3");
  EXPECT_EQ(names(carry_in.uses), "R6 UR17 R7 P0");
  EXPECT_EQ(names(parse("CS2R R96, SRZ").defs), "R96 R97");
  EXPECT_EQ(names(parse("ULDC.64 UR16, c[0x0][0x210]").defs), "UR16 UR17");
  EXPECT_EQ(names(parse("LDC.64 R2, c[0x0][0x220]").defs), "R2 R3");
  SassInstr b = parse("@!P0 BRA `(.L_x_0)");
  EXPECT_EQ(b.branch_label, ".L_x_0");
  EXPECT_EQ(names(b.uses), "P0");
  SassInstr d = parse("DEPBAR.LE SB0, 0x1");
  EXPECT_TRUE(d.defs.empty());
  EXPECT_EQ(sass::AccessBytes("LDGSTS.E.BYPASS.LTC128B.128"), 16u);
  EXPECT_EQ(sass::AccessBytes("LDGSTS.E.64"), 8u);
}

TEST(SassDependencyGraph, BlocksLoopsAndEdges) {
  SassDependencyGraph g = BuildSassDependencyGraph("", Read(kSynthetic), "late");
  EXPECT_FALSE(g.has_control_bits);
  const size_t head = g.block_of[At(g, 0x30)];
  EXPECT_TRUE(g.blocks[head].loop_head);
  EXPECT_EQ(g.blocks[head].first, At(g, 0x30));
  EXPECT_EQ(g.blocks[head].last, At(g, 0xd0));
  // R4 at the loop's increment: from itself one iteration before (loop-carried), and from MOV
  // before the loop on the first entry (the nearest on the steady path is the loop-carried one).
  bool carried = false;
  for (const SassEdge& e : g.edges)
    if (e.to == At(g, 0xb0) && e.what == "R4") carried = e.from == At(g, 0xb0) && e.loop_carried;
  EXPECT_TRUE(carried);
  // The copy reads R6 from the IMAD.WIDE just before it (same iteration).
  bool r6 = false;
  for (const SassEdge& e : g.edges) r6 |= e.to == At(g, 0x40) && e.what == "R6" && e.from == At(g, 0x30) && !e.loop_carried;
  EXPECT_TRUE(r6);
  // The copy -> wait edges.
  size_t copy_edges = 0;
  for (const SassEdge& e : g.edges) copy_edges += e.kind == SassEdgeKind::kAsyncCopy && e.to == At(g, 0x70);
  EXPECT_EQ(copy_edges, 2u);
}

TEST(AsyncCopyPairs, LateWaitsForItsOwnCopy) {
  SassDependencyGraph g = BuildSassDependencyGraph("", Read(kSynthetic), "late");
  std::vector<AsyncCopyWait> w = PairAsyncCopies(g);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].kind, AsyncCopyKind::kCpAsync);
  EXPECT_EQ(g.instructions[w[0].wait].offset, 0x70u);
  EXPECT_EQ(w[0].allowed_pending, 0);
  ASSERT_TRUE(w[0].commit);
  EXPECT_EQ(g.instructions[*w[0].commit].offset, 0x60u);
  ASSERT_EQ(w[0].copies.size(), 2u);
  EXPECT_EQ(g.instructions[w[0].copies[0]].offset, 0x50u);
  EXPECT_EQ(g.instructions[w[0].copies[1]].offset, 0x40u);
  EXPECT_EQ(w[0].distance, 2u);
  EXPECT_EQ(w[0].iterations, 0u);
  EXPECT_EQ(w[0].bytes_per_thread, 32u);
  ASSERT_TRUE(w[0].barrier);
  EXPECT_EQ(g.instructions[*w[0].barrier].offset, 0x80u);
}

TEST(AsyncCopyPairs, TwinWaitsForTheCopyTwoIterationsBack) {
  SassDependencyGraph g = BuildSassDependencyGraph("", Read(kSynthetic), "twin");
  std::vector<AsyncCopyWait> w = PairAsyncCopies(g);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].allowed_pending, 1);
  ASSERT_EQ(w[0].copies.size(), 1u);
  EXPECT_EQ(g.instructions[w[0].copies[0]].offset, 0xc0u);
  EXPECT_EQ(w[0].iterations, 2u);
  // From the copy at 0xc0 to the wait at 0x70 two iterations later: the rest of its iteration
  // (0xd0..0x120: 6), the whole next one (0x70..0x120: 12), then the wait.
  EXPECT_EQ(w[0].distance, 6u + 12u + 1u);
}

TEST(AsyncCopyPairs, BulkCopyWaitWithItsRetryLoop) {
  SassDependencyGraph g = BuildSassDependencyGraph("", Read(kSynthetic), "bulk");
  std::vector<AsyncCopyWait> w = PairAsyncCopies(g);
  ASSERT_EQ(w.size(), 1u);  // the out-of-line retry is the same wait
  EXPECT_EQ(w[0].kind, AsyncCopyKind::kBulk);
  EXPECT_EQ(g.instructions[w[0].wait].offset, 0x70u);
  ASSERT_EQ(w[0].copies.size(), 1u);
  EXPECT_EQ(g.instructions[w[0].copies[0]].offset, 0x60u);
  EXPECT_EQ(w[0].distance, 1u);
  EXPECT_EQ(w[0].iterations, 0u);
  ASSERT_EQ(w[0].retries.size(), 1u);
  EXPECT_EQ(g.instructions[w[0].retries[0]].offset, 0xf0u);
  // Samples in the retry loop are the wait's.
  SassPcSamples s;
  s[0x70]["long_scoreboard"] = 100;
  s[0xf0]["branch_resolving"] = 150;
  s[0x100]["wait"] = 50;
  s[0xa0]["selected"] = 700;
  auto v = ClassifyWaitsFromSamples(g, w, s);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_DOUBLE_EQ(v[0].samples, 300);
  EXPECT_EQ(v[0].verdict, WaitVerdict::kStalled);
}

TEST(AsyncCopyPairs, WaitWithoutCommitSaysSo) {
  const std::string listing =
      "\t.section\t.text.k,\"ax\",@progbits\n.text.k:\n        /*0000*/                   DEPBAR.LE SB0, 0x0 ;\n"
      "        /*0010*/                   EXIT ;\n";
  SassDependencyGraph g = BuildSassDependencyGraph("", listing, "k");
  std::vector<AsyncCopyWait> w = PairAsyncCopies(g);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(w[0].copies.empty());
  EXPECT_NE(w[0].note.find("no commit"), std::string::npos);
}

SassPcSamples Samples(uint64_t wait_offset, double wait, double rest) {
  SassPcSamples s;
  s[wait_offset]["long_scoreboard"] = wait;
  s[0xa0]["selected"] = rest;
  return s;
}

TEST(WaitClassification, SharesOfSamples) {
  SassDependencyGraph g = BuildSassDependencyGraph("", Read(kSynthetic), "late");
  std::vector<AsyncCopyWait> w = PairAsyncCopies(g);
  auto v = ClassifyWaitsFromSamples(g, w, Samples(0x70, 400, 600));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].verdict, WaitVerdict::kStalled);
  EXPECT_DOUBLE_EQ(v[0].share, 0.4);
  EXPECT_EQ(v[0].top_reason, "long_scoreboard");
  EXPECT_EQ(ClassifyWaitsFromSamples(g, w, Samples(0x70, 20, 980))[0].verdict, WaitVerdict::kSlack);
  EXPECT_EQ(ClassifyWaitsFromSamples(g, w, Samples(0x70, 5, 5))[0].verdict, WaitVerdict::kUnknown);  // too few samples
}

TEST(CopySuggestions, LateCopyIssuedTwoIterationsEarlier) {
  SassDependencyGraph g = BuildSassDependencyGraph("", Read(kSynthetic), "late");
  std::vector<AsyncCopyWait> w = PairAsyncCopies(g);
  auto v = ClassifyWaitsFromSamples(g, w, Samples(0x70, 400, 600));
  SuggestionLimits limits;
  limits.threads_per_block = 128;
  limits.dynamic_shared_bytes = 3 * 32 * 128;  // a three-stage ring
  std::vector<CopySuggestion> s = SuggestEarlierCopies(g, w, v, limits);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_TRUE(s[0].addresses_from_counters);
  EXPECT_EQ(s[0].ring_groups, 3u);
  EXPECT_EQ(s[0].group_bytes, 32u * 128u);
  EXPECT_EQ(s[0].iterations_earlier, 2u);
  EXPECT_EQ(s[0].loop_instructions, 11u);
  EXPECT_EQ(s[0].instructions_earlier, 22u);
  EXPECT_EQ(s[0].new_allowed_pending, 1);
  EXPECT_NE(s[0].message.find("pipe.cu:22"), std::string::npos) << s[0].message;  // the wait
  EXPECT_NE(s[0].message.find("pipe.cu:20"), std::string::npos) << s[0].message;  // the copy's line in the kernel
  EXPECT_NE(s[0].message.find("wait_group 1"), std::string::npos) << s[0].message;
  // One stage only: nothing to gain from moving it (a deeper ring is suggested instead).
  limits.dynamic_shared_bytes = 32 * 128;
  s = SuggestEarlierCopies(g, w, v, limits);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].message.find("add a stage"), std::string::npos) << s[0].message;
  // Slack: no suggestion.
  EXPECT_TRUE(SuggestEarlierCopies(g, w, ClassifyWaitsFromSamples(g, w, Samples(0x70, 20, 980)), limits).empty());
}

TEST(CopySuggestions, NoneWhenTheAddressIsLoaded) {
  SassDependencyGraph g = BuildSassDependencyGraph("", Read(kSynthetic), "gather");
  std::vector<AsyncCopyWait> w = PairAsyncCopies(g);
  ASSERT_EQ(w.size(), 1u);
  auto v = ClassifyWaitsFromSamples(g, w, Samples(0x70, 400, 600));
  SuggestionLimits limits;
  limits.threads_per_block = 128;
  limits.dynamic_shared_bytes = 3 * 16 * 128;
  EXPECT_TRUE(SuggestEarlierCopies(g, w, v, limits).empty());
}

// Two iterations of the late loop, as a trace would give them.
SassTrace LateTrace() {
  SassTrace t;
  t.kernel = "late";
  for (uint64_t o : {0x0, 0x10, 0x20}) t.steps.push_back({o, "", -1, {}, {}});
  for (int it = 0; it < 2; ++it)
    for (uint64_t o = 0x30; o <= 0xd0; o += 0x10) t.steps.push_back({o, "", o == 0xd0 ? (it == 0 ? 1 : 0) : -1, {}, {}});
  t.steps.push_back({0xe0, "EXIT", -1, {}, {}});
  return t;
}

TEST(TimingModel, LateWaitStallsForTheCopyLatency) {
  SassDependencyGraph g = BuildSassDependencyGraph("", Read(kSynthetic), "late");
  TimingModelParams p;
  std::vector<TimedStep> steps = ModelTraceTiming(g, LateTrace(), p);
  ASSERT_EQ(steps.size(), LateTrace().steps.size());
  double depbar_stall = 0;
  for (const TimedStep& s : steps)
    if (s.offset == 0x70) {
      EXPECT_EQ(s.waited_for, "cp.async group");
      depbar_stall += s.stall;
    }
  // Committed one instruction before: each pass waits nearly the whole copy latency.
  EXPECT_NEAR(depbar_stall, 2 * (p.global_latency - 1), 1e-9);
  std::vector<AsyncCopyWait> w = PairAsyncCopies(g);
  auto v = ClassifyWaitsFromTrace(g, w, steps);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].verdict, WaitVerdict::kStalled);
  EXPECT_NEAR(v[0].model_stall_cycles, p.global_latency - 1, 1e-9);
  EXPECT_GT(v[0].share, 0.9);
}

TEST(AsyncCopyAnalysis, ReportsNameTheLines) {
  SassPcSamples s = Samples(0x70, 400, 600);
  SuggestionLimits limits;
  limits.threads_per_block = 128;
  limits.dynamic_shared_bytes = 3 * 32 * 128;
  AsyncCopyAnalysis a = AnalyzeAsyncCopies("", Read(kSynthetic), "late", &s, nullptr, limits);
  const std::string text = AsyncCopyReportText(a, true);
  EXPECT_NE(text.find("stalled"), std::string::npos) << text;
  EXPECT_NE(text.find("suggest"), std::string::npos) << text;
  const std::string json = AsyncCopyReportJson(a, true);
  EXPECT_NE(json.find("\"strata-async-copies\""), std::string::npos);
  EXPECT_NE(json.find("\"instructions_earlier\": 22"), std::string::npos) << json;
}

TEST(AsyncCopyAnalysis, BadListing) {
  EXPECT_THROW(BuildSassDependencyGraph("", "not a listing", ""), Error);
  EXPECT_THROW(BuildSassDependencyGraph("", Read(kSynthetic), "no_such_kernel"), Error);
  EXPECT_THROW(BuildSassDependencyGraph("not a cubin", Read(kSynthetic), "late"), Error);
}

}  // namespace
}  // namespace strata::core

namespace strata::core {
namespace {

TEST(ProfileKernelCode, StallFixture) {
  std::vector<ProfileKernelCode> k = ReadProfileKernelCode(kStalls + "stalls_serialized.strata");
  ASSERT_FALSE(k.empty());
  bool mem_chain = false;
  for (const ProfileKernelCode& c : k) {
    if (c.function != "_Z9mem_chainPKjPjji") continue;
    mem_chain = true;
    EXPECT_EQ(c.threads, 128u);
    EXPECT_FALSE(c.cubin.empty());
    EXPECT_FALSE(c.listing.empty());
    double total = 0;
    for (const auto& [_, reasons] : c.samples)
      for (const auto& [__, n] : reasons) total += n;
    EXPECT_GT(total, 1e6);
    // No asynchronous copy in it: an analysis finds no wait and says so.
    AsyncCopyAnalysis a = AnalyzeAsyncCopies(c.cubin, c.listing, c.function, &c.samples, nullptr);
    EXPECT_TRUE(a.waits.empty());
    EXPECT_TRUE(a.graph.has_control_bits);
  }
  EXPECT_TRUE(mem_chain);
}

}  // namespace
}  // namespace strata::core

// The late cp.async wait and its twin, recorded on the H100 (test/fixtures/h100/async_copy/README.md).
namespace strata::core {
namespace {

const std::string kAsync = std::string(STRATA_H100_FIXTURES) + "/async_copy/";

struct Kernels {
  ProfileKernelCode late, twin;
};

Kernels RunKernels() {
  Kernels k;
  for (ProfileKernelCode& c : ReadProfileKernelCode(kAsync + "acp_run_pcs.strata")) {
    if (c.function == "async_copy_late") k.late = std::move(c);
    else if (c.function == "async_copy_twin") k.twin = std::move(c);
  }
  return k;
}

TEST(AsyncCopyH100, ControlBitsOfTheRealCubin) {
  Kernels k = RunKernels();
  ASSERT_FALSE(k.late.cubin.empty());
  CheckScoreboards(k.late.cubin, k.late.listing);
  SassDependencyGraph g = BuildSassDependencyGraph(k.late.cubin, k.late.listing, "async_copy_late");
  EXPECT_EQ(g.max_threads, 256u);
  EXPECT_EQ(g.static_shared_bytes, 50176u);  // the two 24 KiB rings and the 1 KiB the system reserves
  // The copies: no scoreboard of their own (cp.async groups are counted on SB0 by LDGDEPBAR).
  for (const SassInstr& i : g.instructions)
    if (i.base == "LDGSTS") EXPECT_EQ(i.control->write_scoreboard, -1) << i.text;
}

TEST(AsyncCopyH100, LateWaitPairedWithTheCopyJustIssued) {
  Kernels k = RunKernels();
  SassDependencyGraph g = BuildSassDependencyGraph(k.late.cubin, k.late.listing, "async_copy_late");
  std::vector<AsyncCopyWait> w = PairAsyncCopies(g);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(g.instructions[w[0].wait].offset, 0xc50u);
  EXPECT_EQ(g.instructions[w[0].wait].line.line, 79u);  // cp.async.wait_group 0
  EXPECT_EQ(w[0].allowed_pending, 0);
  EXPECT_EQ(w[0].copies.size(), 4u);  // two 16-byte pieces of A and two of B per thread
  EXPECT_EQ(w[0].bytes_per_thread, 64u);
  EXPECT_EQ(w[0].distance, 5u);
  EXPECT_EQ(w[0].iterations, 0u);
  const SassInstr& copy = g.instructions[w[0].copies.front()];
  ASSERT_FALSE(copy.inlined_at.empty());
  EXPECT_EQ(copy.inlined_at.back().line, 77u);  // CopyTile(...) in the late kernel
  ASSERT_TRUE(w[0].barrier);
  EXPECT_EQ(g.instructions[*w[0].barrier].line.line, 80u);  // __syncthreads()
}

TEST(AsyncCopyH100, TwinWaitPairedWithTheCopyTwoIterationsBack) {
  Kernels k = RunKernels();
  SassDependencyGraph g = BuildSassDependencyGraph(k.twin.cubin, k.twin.listing, "async_copy_twin");
  std::vector<AsyncCopyWait> w = PairAsyncCopies(g);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(g.instructions[w[0].wait].line.line, 100u);  // cp.async.wait_group 1
  EXPECT_EQ(w[0].allowed_pending, 1);
  EXPECT_EQ(w[0].copies.size(), 4u);
  EXPECT_EQ(w[0].iterations, 2u);
  EXPECT_GT(w[0].distance, 2000u);
  EXPECT_EQ(g.instructions[w[0].copies.front()].inlined_at.back().line, 104u);  // the refill
}

TEST(AsyncCopyH100, LateStalledWithSuggestionTwinSlack) {
  Kernels k = RunKernels();
  SuggestionLimits limits;
  limits.threads_per_block = k.late.threads;
  AsyncCopyAnalysis late = AnalyzeAsyncCopies(k.late.cubin, k.late.listing, k.late.function, &k.late.samples, nullptr, limits);
  ASSERT_EQ(late.verdicts.size(), 1u);
  EXPECT_EQ(late.verdicts[0].verdict, WaitVerdict::kStalled);
  EXPECT_GT(late.verdicts[0].share, 0.15);  // 20.8% measured: on the barrier after the DEPBAR
  EXPECT_EQ(late.verdicts[0].top_reason, "long_scoreboard");
  ASSERT_EQ(late.suggestions.size(), 1u);
  const CopySuggestion& s = late.suggestions[0];
  EXPECT_TRUE(s.addresses_from_counters);
  EXPECT_EQ(s.group_bytes, 64u * 256u);
  EXPECT_EQ(s.ring_groups, 3u);
  EXPECT_EQ(s.iterations_earlier, 2u);
  EXPECT_EQ(s.instructions_earlier, 2u * s.loop_instructions);
  EXPECT_EQ(s.new_allowed_pending, 1);  // what the twin waits with
  EXPECT_NE(s.message.find("async_copy_pipeline.cu:79"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("async_copy_pipeline.cu:77"), std::string::npos) << s.message;
  AsyncCopyAnalysis twin = AnalyzeAsyncCopies(k.twin.cubin, k.twin.listing, k.twin.function, &k.twin.samples, nullptr, limits);
  ASSERT_EQ(twin.verdicts.size(), 1u);
  EXPECT_EQ(twin.verdicts[0].verdict, WaitVerdict::kSlack);
  EXPECT_LT(twin.verdicts[0].share, 0.01);
  EXPECT_TRUE(twin.suggestions.empty());
}

TEST(AsyncCopyH100, AnalyzerFlagsTheLateWaitAtItsLine) {
  const std::string path = kAsync + "acp_run_pcs.strata";
  std::unique_ptr<Profile> p = Profile::Open(path);
  AnalyzeOptions o;
  o.profile_path = path;
  AnalysisResult r = Analyze(*p, o);
  std::vector<Finding> found;
  for (const Finding& f : r.findings)
    if (f.rule == "async-wait") found.push_back(f);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause, "async_copy_late");
  EXPECT_EQ(found[0].location.line, 79u);
  EXPECT_NE(found[0].location.file.find("async_copy_pipeline.cu"), std::string::npos);
  EXPECT_NE(found[0].message.find("2 iterations earlier"), std::string::npos) << found[0].message;
  // The stall rule's finding on the barrier after the wait names the wait as the cause.
  bool stall = false;
  for (const Finding& f : r.findings)
    if (f.rule == "stall" && f.location.line == 80) {
      stall = true;
      EXPECT_NE(f.message.find("follows the asynchronous-copy wait `DEPBAR.LE SB0, 0x0`"), std::string::npos) << f.message;
      EXPECT_EQ(f.message.find("producer of the register"), std::string::npos) << f.message;
    }
  EXPECT_TRUE(stall);
  EXPECT_EQ(AsyncWaitBefore(RunKernels().late.listing, "async_copy_late", 0xc60), "DEPBAR.LE SB0, 0x0");
  EXPECT_EQ(AsyncWaitBefore(RunKernels().late.listing, "async_copy_late", 0xc70), "");
  // Without the profile's path (no GPU code to read) the rule is silent.
  for (const Finding& f : Analyze(*p).findings) EXPECT_NE(f.rule, "async-wait");
}

TEST(AsyncCopyH100, TracesThroughTheTimingModel) {
  Kernels k = RunKernels();
  for (const char* v : {"late", "twin"}) {
    SassTrace t = ReadSassTrace(Read(kAsync + v + "-small.trace.json"));
    EXPECT_EQ(t.kernel, std::string("async_copy_") + v);
    EXPECT_EQ(t.stop_reason, "exited");
    auto loops = TraceLoops(t);
    ASSERT_EQ(loops.size(), 1u) << v;  // the k-loop: K = 64 is 4 k-steps of 16
    EXPECT_EQ(loops[0].iterations, 4u);
    const ProfileKernelCode& c = std::string(v) == "late" ? k.late : k.twin;
    SassDependencyGraph g = BuildSassDependencyGraph(c.cubin, c.listing, c.function);
    // Every traced offset is an instruction of the listing (the trace's offsets are right).
    std::set<uint64_t> offsets;
    for (const SassInstr& i : g.instructions) offsets.insert(i.offset);
    for (const SassTraceStep& s : t.steps) EXPECT_TRUE(offsets.count(s.offset)) << v << " " << s.offset;
    AsyncCopyAnalysis a = AnalyzeAsyncCopies(c.cubin, c.listing, c.function, nullptr, &t);
    ASSERT_EQ(a.verdicts.size(), 1u);
    EXPECT_EQ(a.verdicts[0].evidence, "trace (timing model)");
    EXPECT_EQ(a.verdicts[0].verdict, std::string(v) == "late" ? WaitVerdict::kStalled : WaitVerdict::kSlack) << v;
    EXPECT_FALSE(a.timeline.empty());
    nlohmann::json chrome = nlohmann::json::parse(AsyncCopyTimelineChrome(a));
    size_t issues = 0, stalls = 0;
    for (const auto& e : chrome.at("traceEvents")) {
      if (e.at("ph") != "X") continue;
      (e.at("tid") == 1 ? issues : stalls)++;
    }
    EXPECT_EQ(issues, a.timeline.size());
    EXPECT_GT(stalls, 0u);
  }
}

}  // namespace
}  // namespace strata::core

namespace strata::core {
namespace {

// The operand table strata trace hands cuda-gdb, from a listing (nvdisasm here is a script that
// prints the H100 listing the profile carries).
TEST(AsyncCopyH100, TraceOperandTable) {
  Kernels k = RunKernels();
  char dir[] = "/tmp/strata-sass-test-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const std::string listing = std::string(dir) + "/listing.sass", tool = std::string(dir) + "/nvdisasm";
  std::ofstream(listing) << k.late.listing;
  std::ofstream(tool) << "#!/bin/sh\ncat '" << listing << "'\n";
  chmod(tool.c_str(), 0755);
  nlohmann::json t = nlohmann::json::parse(TraceOperandTable(k.late.cubin, "async_copy_late", tool));
  // 0x0c70 LDS.128 R72, [R104+-0x100]: four words of shared memory at R104 - 256.
  const auto& lds = t.at(std::to_string(0xc70));
  EXPECT_EQ(lds.at("text"), "LDS.128 R72, [R104+-0x100]");
  EXPECT_EQ(lds.at("mem").at("space"), "shared");
  EXPECT_EQ(lds.at("mem").at("base"), "R104");
  EXPECT_EQ(lds.at("mem").at("imm"), -256);
  EXPECT_EQ(lds.at("mem").at("bytes"), 16);
  EXPECT_EQ(lds.at("defs").size(), 4u);
  // 0x0c00 LDGSTS [R85], desc[UR12][R80.64]: reads the global pair R80:R81.
  const auto& copy = t.at(std::to_string(0xc00));
  EXPECT_EQ(copy.at("mem").at("space"), "global");
  EXPECT_EQ(copy.at("mem").at("base"), "R80");
  EXPECT_TRUE(copy.at("mem").at("wide"));
  EXPECT_TRUE(copy.at("defs").empty());
  // "@!PT LDS RZ, [RZ]" never runs: its guard says so (no memory is read for it).
  bool never = false;
  for (const auto& [off, e] : t.items())
    never |= e.at("text").get<std::string>().rfind("@!PT", 0) == 0 && e.at("guard") == "PT" && e.at("negated") == true;
  EXPECT_TRUE(never);
  // A guarded branch names its predicate.
  bool guarded = false;
  for (const auto& [off, e] : t.items()) guarded |= e.contains("guard") && e.at("text").get<std::string>().find("BRA") != std::string::npos;
  EXPECT_TRUE(guarded);
  std::ofstream(tool) << "#!/bin/sh\necho broken >&2\nexit 3\n";
  EXPECT_THROW(TraceOperandTable(k.late.cubin, "async_copy_late", tool), Error);
  std::remove(listing.c_str());
  std::remove(tool.c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace strata::core

// The bulk-copy (UBLKCP + mbarrier) pipeline and its twin on the H100.
namespace strata::core {
namespace {

TEST(BulkCopyH100, LateWaitInTheSameIterationTwinArmedEarlier) {
  std::map<std::string, ProfileKernelCode> k;
  for (ProfileKernelCode& c : ReadProfileKernelCode(kAsync + "bulk_run_pcs.strata")) k[c.function] = std::move(c);
  ASSERT_TRUE(k.count("bulk_copy_late") && k.count("bulk_copy_twin"));
  const ProfileKernelCode& late = k["bulk_copy_late"];
  SassDependencyGraph g = BuildSassDependencyGraph(late.cubin, late.listing, late.function);
  std::vector<AsyncCopyWait> w = PairAsyncCopies(g);
  ASSERT_EQ(w.size(), 1u);  // the out-of-line retry of the try-wait is the same wait
  EXPECT_EQ(w[0].kind, AsyncCopyKind::kBulk);
  EXPECT_EQ(g.instructions[w[0].wait].offset, 0x480u);
  EXPECT_EQ(w[0].retries.size(), 1u);
  ASSERT_EQ(w[0].copies.size(), 1u);  // once, though an elect loop wraps it
  EXPECT_EQ(g.instructions[w[0].copies[0]].base, "UBLKCP");
  EXPECT_EQ(w[0].iterations, 0u);  // the arrive on the same mbarrier is in this iteration
  EXPECT_FALSE(w[0].iterations_at_least);
  EXPECT_EQ(w[0].distance, 14u);
  AsyncCopyAnalysis a = AnalyzeAsyncCopies(late.cubin, late.listing, late.function, &late.samples, nullptr);
  ASSERT_EQ(a.verdicts.size(), 1u);
  EXPECT_EQ(a.verdicts[0].verdict, WaitVerdict::kStalled);  // 85%: on the branch after the try-wait
  ASSERT_EQ(a.suggestions.size(), 1u);
  EXPECT_EQ(a.suggestions[0].ring_groups, 4u);  // four mbarriers initialized
  EXPECT_EQ(a.suggestions[0].iterations_earlier, 3u);

  const ProfileKernelCode& twin = k["bulk_copy_twin"];
  SassDependencyGraph t = BuildSassDependencyGraph(twin.cubin, twin.listing, twin.function);
  w = PairAsyncCopies(t);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(w[0].iterations_at_least);  // its mbarrier was armed in an earlier iteration
  EXPECT_GE(w[0].iterations, 1u);
  AsyncCopyAnalysis b = AnalyzeAsyncCopies(twin.cubin, twin.listing, twin.function, &twin.samples, nullptr);
  EXPECT_TRUE(b.suggestions.empty());  // already ahead: nothing to move
}

TEST(AsyncCopyH100, TracesOfOtherWarpsAndBlocks) {
  SassTrace w5 = ReadSassTrace(Read(kAsync + "late-small-warp5.trace.json"));
  EXPECT_EQ(w5.thread, "160,0,0");
  EXPECT_EQ(w5.steps.size(), 300u);
  EXPECT_EQ(w5.stop_reason, "limit");
  SassTrace b1 = ReadSassTrace(Read(kAsync + "twin-block1-warp2.trace.json"));
  EXPECT_EQ(b1.block, "0,1,0");
  EXPECT_EQ(b1.thread, "64,0,0");
  EXPECT_EQ(b1.steps.size(), 1500u);
  // Warp 0's full trace, with the operand table: memory read first (the copies' global sources
  // and the shared-memory reads), registers never (the kernel writes each before reading it).
  SassTrace w0 = ReadSassTrace(Read(kAsync + "late-small.trace.json"));
  size_t memory = 0, reads = 0, global = 0;
  for (const SassTraceStep& s : w0.steps) {
    memory += s.memory.has_value();
    reads += !s.reads.empty();
    if (s.memory && s.memory->space == "global") {
      ++global;
      EXPECT_EQ(s.memory->words.size(), 4u);  // 16-byte copies
      EXPECT_EQ(s.text.rfind("LDGSTS", 0), 0u) << s.text;
    }
  }
  EXPECT_GT(memory, 100u);
  EXPECT_GT(global, 10u);
  EXPECT_EQ(reads, 0u);
}

}  // namespace
}  // namespace strata::core
