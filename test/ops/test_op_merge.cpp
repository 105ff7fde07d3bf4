// Operator-frame placement (sampler/merge.h) and word encodings (sampler/sample.h), on synthetic
// stacks: no torch, no runtime. ctest: ops.OpMerge.*
#include <gtest/gtest.h>

#include <vector>

#include "sampler/merge.h"
#include "sampler/sample.h"

namespace rt = strata::rt;
namespace py = strata::rt::python;

namespace {

constexpr uint64_t kEvalBegin = 0x5000, kEvalEnd = 0x6000;
constexpr uint64_t kEval = 0x5100;  // a PC inside the eval loop

std::vector<uint64_t> Merge(const std::vector<uint64_t>& pcs, const std::vector<uint64_t>& sps,
                            const py::PyStack* ps, const rt::OpMarks* ops) {
  std::vector<uint64_t> out(64);
  int n = rt::MergeStacks(pcs.data(), sps.data(), int(pcs.size()), kEvalBegin, kEvalEnd, ps, true, ops,
                          out.data(), int(out.size()));
  out.resize(size_t(n));
  return out;
}

py::PyStack OneGroup(uint64_t a, uint64_t b) {  // one eval call running two Python frames
  py::PyStack ps;
  ps.words[0] = a;
  ps.words[1] = b;
  ps.nwords = 2;
  ps.group_start[0] = 0;
  ps.group_start[1] = 2;
  ps.ngroups = 1;
  return ps;
}

}  // namespace

TEST(OpMerge, WordKindsStayApart) {
  uint64_t native = 0x7f0012345678, pyw = rt::PendingPyWord(17, 42), op = rt::OpFrameWord(5),
           gpy = rt::GlobalPyWord(9, 7), unknown = rt::PendingPyWord(0x3FFFFFFFu, 3);
  EXPECT_TRUE(rt::IsNativeWord(native) && !rt::IsPyFrameWord(native) && !rt::IsSpecialWord(native));
  EXPECT_TRUE(rt::IsPyFrameWord(pyw) && !rt::IsSpecialWord(pyw));
  EXPECT_TRUE(rt::IsPyFrameWord(unknown) && !rt::IsSpecialWord(unknown));
  EXPECT_EQ(rt::PendingPySeq(pyw), 17u);
  EXPECT_EQ(rt::PyWordLine(pyw), 42u);
  EXPECT_TRUE(rt::IsSpecialWord(op) && !rt::IsPyFrameWord(op));
  EXPECT_EQ(rt::SpecialKindOf(op), uint32_t(rt::kSpecialOp));
  EXPECT_EQ(rt::OpWordName(op), 5u);
  EXPECT_EQ(rt::SpecialKindOf(gpy), uint32_t(rt::kSpecialPy));
  EXPECT_TRUE(rt::IsPyFrameWord(gpy) && rt::IsGlobalPyWord(gpy) && !rt::IsPendingPyWord(gpy));
  EXPECT_EQ(rt::GlobalPyCode(gpy), 9u);
  EXPECT_EQ(rt::PyWordLine(gpy), 7u);
}

// Leaf first: kernel (sp 100) < impl (200) < dispatcher owning the guard (300, guard at 350) <
// binding glue (400) < eval loop (500) < main (600). The operator goes right below the Python
// frames; the glue between them is dropped; the guard's owner stays inside the operator.
TEST(OpMerge, OperatorBetweenPythonAndItsNativeFrames) {
  std::vector<uint64_t> pcs = {0x100, 0x200, 0x300, 0x400, kEval, 0x600};
  std::vector<uint64_t> sps = {100, 200, 300, 400, 500, 600};
  py::PyStack ps = OneGroup(rt::PendingPyWord(1, 10), rt::PendingPyWord(2, 20));
  rt::ops::OpEntry e[1] = {{rt::OpFrameWord(3), 350, 350, 0, 0}};
  rt::OpMarks m;
  m.e = e;
  m.n = 1;
  auto out = Merge(pcs, sps, &ps, &m);
  std::vector<uint64_t> want = {0x100, 0x200, 0x300, rt::OpFrameWord(3), rt::PendingPyWord(1, 10),
                                rt::PendingPyWord(2, 20), 0x600};
  EXPECT_EQ(out, want);
}

// Nested operators nest; native frames between them are dropped (linear > addmm).
TEST(OpMerge, NestedOperatorsDropFramesBetween) {
  std::vector<uint64_t> pcs = {0x100, 0x200, 0x300, 0x400, kEval};
  std::vector<uint64_t> sps = {100, 200, 300, 400, 500};
  py::PyStack ps = OneGroup(rt::PendingPyWord(1, 10), rt::PendingPyWord(2, 20));
  rt::ops::OpEntry e[2] = {{rt::OpFrameWord(1), 350, 1, 0, 0}, {rt::OpFrameWord(2), 150, 2, 0, 0}};
  rt::OpMarks m;
  m.e = e;
  m.n = 2;
  auto out = Merge(pcs, sps, &ps, &m);
  std::vector<uint64_t> want = {0x100, rt::OpFrameWord(2), rt::OpFrameWord(1), rt::PendingPyWord(1, 10),
                                rt::PendingPyWord(2, 20)};
  EXPECT_EQ(out, want);
}

// A backward operator that adopted its forward path: everything above it is replaced.
TEST(OpMerge, AdoptedForwardPathReplacesCallers) {
  std::vector<uint64_t> pcs = {0x100, 0x200, 0x300, 0x400};  // autograd thread, no Python
  std::vector<uint64_t> sps = {100, 200, 300, 400};
  rt::ops::OpEntry e[2] = {{rt::OpFrameWord(7), 250, 1, 0, 0}, {rt::OpFrameWord(8), 150, 2, 0, 0}};
  uint64_t prefix[3] = {rt::OpFrameWord(4), rt::GlobalPyWord(3, 22), rt::GlobalPyWord(4, 38)};
  rt::OpMarks m;
  m.e = e;
  m.n = 2;
  m.lowest = 0;
  m.tail = prefix;
  m.tail_n = 3;
  auto out = Merge(pcs, sps, nullptr, &m);
  std::vector<uint64_t> want = {0x100, rt::OpFrameWord(8), rt::OpFrameWord(7), rt::OpFrameWord(4),
                                rt::GlobalPyWord(3, 22), rt::GlobalPyWord(4, 38)};
  EXPECT_EQ(out, want);
}

// A GPU launch located by the outermost operator's entry trace must get the path the walk by
// SPs gives, or the launch path cache splits one call path into two: with nested operators
// (conv2d > convolution > cudnn_convolution) only the frames inside the innermost one stay.
TEST(OpMerge, EntryTraceJoinEqualsTheWalkBySps) {
  // launch (100) < cudnn impl (200) < guard owner of op 3 (300; guard 350) < glue (400) <
  // guard owner of op 2 (500; guard 550) < glue (600) < guard owner of op 1 (700; guard 750) <
  // the caller of op 1 (800).
  std::vector<uint64_t> pcs = {0x100, 0x200, 0x300, 0x400, 0x500, 0x600, 0x700, 0x800};
  std::vector<uint64_t> sps = {100, 200, 300, 400, 500, 600, 700, 800};
  rt::ops::OpEntry e[3] = {{rt::OpFrameWord(1), 750, 1, 0, 0},
                           {rt::OpFrameWord(2), 550, 2, 0, 0},
                           {rt::OpFrameWord(3), 350, 3, 0, 0}};
  uint64_t ctx[2] = {rt::GlobalPyWord(3, 22), rt::GlobalPyWord(4, 38)};
  rt::OpMarks m;
  m.e = e;
  m.n = 3;
  m.tail = ctx;
  m.tail_n = 2;
  auto by_sps = Merge(pcs, sps, nullptr, &m);
  // What the entry trace locates: frames up to the innermost operator's scope (sp <= 350).
  std::vector<uint64_t> out(64);
  int n = rt::JoinAtOperators(pcs.data(), 3, &m, ctx, 2, out.data(), int(out.size()));
  out.resize(size_t(n));
  EXPECT_EQ(out, by_sps);
  std::vector<uint64_t> want = {0x100, 0x200, 0x300, rt::OpFrameWord(3), rt::OpFrameWord(2), rt::OpFrameWord(1),
                                rt::GlobalPyWord(3, 22), rt::GlobalPyWord(4, 38)};
  EXPECT_EQ(out, want);
  // Cutting at the outermost operator instead (everything below op 1's guard owner) keeps the
  // glue between the operators: a different path for the same launch site.
  std::vector<uint64_t> cut_outer(64);
  n = rt::JoinAtOperators(pcs.data(), 7, &m, ctx, 2, cut_outer.data(), int(cut_outer.size()));
  cut_outer.resize(size_t(n));
  EXPECT_NE(cut_outer, by_sps);
}

// Without SPs (loader busy: PC only) operators go right below the innermost Python frame.
TEST(OpMerge, NoStackPointersPutsOperatorsBelowPython) {
  std::vector<uint64_t> pcs = {0x100};
  std::vector<uint64_t> out(16);
  py::PyStack ps = OneGroup(rt::PendingPyWord(1, 10), rt::PendingPyWord(2, 20));
  rt::ops::OpEntry e[1] = {{rt::OpFrameWord(3), 350, 3, 0, 0}};
  rt::OpMarks m;
  m.e = e;
  m.n = 1;
  int n = rt::MergeStacks(pcs.data(), nullptr, 1, kEvalBegin, kEvalEnd, &ps, false, &m, out.data(), 16);
  out.resize(size_t(n));
  std::vector<uint64_t> want = {0x100, rt::OpFrameWord(3), rt::PendingPyWord(1, 10), rt::PendingPyWord(2, 20)};
  EXPECT_EQ(out, want);
}

// No operators: the plain merge, unchanged.
TEST(OpMerge, NoOperatorsIsThePlainMerge) {
  std::vector<uint64_t> pcs = {0x100, kEval, 0x600};
  std::vector<uint64_t> sps = {100, 500, 600};
  py::PyStack ps = OneGroup(rt::PendingPyWord(1, 10), rt::PendingPyWord(2, 20));
  std::vector<uint64_t> want = {0x100, rt::PendingPyWord(1, 10), rt::PendingPyWord(2, 20), 0x600};
  EXPECT_EQ(Merge(pcs, sps, &ps, nullptr), want);
}

// Two Python groups, one eval frame, complete native stack, an operator inside: the outer group
// goes with the innermost eval frame, so the native root (the process entry) stays the root.
TEST(OpMerge, SurplusGroupsStayBelowTheProcessEntry) {
  std::vector<uint64_t> pcs = {0x100, 0x200, kEval, 0x700};
  std::vector<uint64_t> sps = {100, 200, 500, 700};
  py::PyStack ps;
  ps.words[0] = rt::PendingPyWord(1, 10);
  ps.words[1] = rt::PendingPyWord(2, 20);
  ps.nwords = 2;
  ps.group_start[0] = 0;
  ps.group_start[1] = 1;
  ps.group_start[2] = 2;
  ps.ngroups = 2;
  rt::ops::OpEntry e[1] = {{rt::OpFrameWord(3), 150, 3, 0, 0}};
  rt::OpMarks m;
  m.e = e;
  m.n = 1;
  std::vector<uint64_t> want = {0x100, rt::OpFrameWord(3), rt::PendingPyWord(1, 10), rt::PendingPyWord(2, 20), 0x700};
  EXPECT_EQ(Merge(pcs, sps, &ps, &m), want);
}

// A Python walk cut at its depth limit: the path ends where the Python frames ran out, with a
// depth-limit cut word, so the native frames rootward (another eval call, the process entry)
// are not shown as callers of the innermost kept Python frames.
TEST(OpMerge, CutPythonWalkEndsThePathAtTheCut) {
  std::vector<uint64_t> pcs = {0x100, kEval, 0x300, kEval, 0x700};
  std::vector<uint64_t> sps = {100, 200, 300, 400, 700};
  py::PyStack ps = OneGroup(rt::PendingPyWord(1, 10), rt::PendingPyWord(2, 20));
  ps.truncated = true;
  std::vector<uint64_t> want = {0x100, rt::PendingPyWord(1, 10), rt::PendingPyWord(2, 20), 0x300,
                                rt::CutWord(rt::kCutDepthLimit)};
  EXPECT_EQ(Merge(pcs, sps, &ps, nullptr), want);
  // With operator marks too, and when the native walk ends before the Python frames do.
  rt::ops::OpEntry e[1] = {{rt::OpFrameWord(3), 150, 3, 0, 0}};
  rt::OpMarks m;
  m.e = e;
  m.n = 1;
  want = {0x100, rt::OpFrameWord(3), rt::PendingPyWord(1, 10), rt::PendingPyWord(2, 20), 0x300,
          rt::CutWord(rt::kCutDepthLimit)};
  EXPECT_EQ(Merge(pcs, sps, &ps, &m), want);
  std::vector<uint64_t> shallow = {0x100, 0x200};
  want = {0x100, 0x200, rt::PendingPyWord(1, 10), rt::PendingPyWord(2, 20), rt::CutWord(rt::kCutDepthLimit)};
  EXPECT_EQ(Merge(shallow, {100, 200}, &ps, nullptr), want);
}
