#include "sampler/path_collector.h"

#include <atomic>

#include "common/tls.h"
#include "ops/op_stack.h"
#include "python/main_stack.h"
#include "python/py_reader.h"
#include "sampler/merge.h"
#include "unwind/native_unwind.h"

namespace strata::rt {
namespace {

// Whether an eval-loop frame (Python run from inside an operator) is among the PCs.
bool PythonInside(const uint64_t* pcs, int n, uint64_t eval_begin, uint64_t eval_end) {
  for (int i = 0; i < n; ++i)
    if (pcs[i] >= eval_begin && pcs[i] < eval_end) return true;
  return false;
}

// A consistent copy of the thread's operator marks (the handler interrupts its own thread, so
// the stack cannot change under it; from normal code it is the caller's own thread too).
bool ReadMarks(const ops::OpStack* s, OpMarks* m) {
  if (!s) return false;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  int depth = s->depth;
  if (depth <= 0) return false;
  m->e = s->e;
  m->n = depth < ops::kMaxOps ? depth : ops::kMaxOps;
  int adopt = s->adopt_at;
  if (adopt >= 0 && adopt < m->n) {
    m->lowest = adopt;
    m->tail = s->prefix;
    m->tail_n = s->prefix_n;
  }
  return true;
}

// A merged path that filled `out` lost its rootward end (even past an earlier cut: the Python
// frames after it did not all fit): its last word becomes a cut.
void MarkFullPath(CollectedPath* r, uint64_t* out, int max) {
  if (r->depth < max || max <= 0 || IsCutWord(out[max - 1])) return;
  out[max - 1] = CutWord(kCutDepthLimit);
  r->flags |= kSampleTruncated;
}

}  // namespace

CollectedPath CollectPath(ucontext_t* uc, ThreadSlot* slot, int skip, uint64_t* out, int max) {
  CollectedPath r;
  uint64_t pcs[kMaxDepth];
  uint64_t sps[kMaxDepth];
  OpMarks marks;
  const ops::OpStack* os = ops::CurrentStack();
  bool have_ops = ReadMarks(os, &marks);
  const python::Runtime* py = python::Current();
  uint64_t eval_begin = py ? py->eval_begin : 0, eval_end = py ? py->eval_end : 0;
  int npcs;
  bool failed = false;

  // Normal code inside an operator (a GPU launch): walk only down to the operator chain's
  // outermost entry and reuse the context cached at operator level (the forward path adopted by
  // a backward operator, else the Python path above the outermost operator), so the kernels of
  // one operator do not walk Python and the whole native stack again. The path must be the one
  // the walk by SPs below gives (the launch path cache stores whichever ran first).
  if (!uc && have_ops && marks.lowest == 0 && os->entry_n > 0) {
    // Fast: libunwind's fast trace, cut where it stops sharing frames with the outermost
    // operator's entry trace (below: that operator's own frames; above: its callers).
    npcs = unwind::FromCurrentContext(pcs, nullptr, kMaxDepth, skip + 1, &failed);
    int i = npcs - 1, j = os->entry_n - 1;
    while (i >= 0 && j >= 0 && pcs[i] == os->entry[j]) --i, --j;
    int cut = i + 1;
    const uint64_t* below = pcs;
    int nbelow = cut;
    bool located = cut < npcs && !PythonInside(pcs, cut, eval_begin, eval_end);
    // Nested operators: the frames between them are dispatcher glue that every other path drops
    // (merge.h), so only the frames inside the innermost operator stay; its scope address finds
    // them with a walk by SPs that ends there, much shorter than one down to the outermost.
    if (located && marks.n > 1) {
      uint64_t stop = marks.e[marks.n - 1].sp;
      for (int k = 0; k < marks.n; ++k) located &= marks.e[k].sp != 0;
      // The fast branch has no use for sps[]: its two halves hold this short walk.
      constexpr int kHalf = kMaxDepth / 2;
      uint64_t* inner_pcs = sps;
      uint64_t* inner_sps = sps + kHalf;
      bool walk_failed = false;
      int m = located ? unwind::FromCurrentContext(inner_pcs, inner_sps, kHalf, skip + 1, &walk_failed, stop) : 0;
      located = located && !walk_failed && m > 0 && inner_sps[m - 1] > stop;
      below = inner_pcs;
      nbelow = m - 1;
    }
    if (located) {
      if (failed) r.flags |= kSampleUnwindFailed;
      const uint64_t* tail = pcs + cut;  // no Python: the native callers the fast trace has
      int tail_n = npcs - cut;
      if (marks.tail) {
        tail = marks.tail, tail_n = marks.tail_n;
      } else if (ops::EnsurePythonContext(os)) {
        tail = os->ctx, tail_n = os->ctx_n;
      }
      r.depth = JoinAtOperators(below, nbelow, &marks, tail, tail_n, out, max);
      MarkFullPath(&r, out, max);
      return r;
    }
  }
  if (!uc && have_ops) ops::WantEntryTraces(os);  // next operators of this name take entry traces
  if (!uc && have_ops && marks.e[marks.lowest].sp) {
    const bool adopted = marks.tail != nullptr;
    if (!adopted && ops::EnsureContext(os)) {
      marks.tail = os->ctx;
      marks.tail_n = os->ctx_n;
    }
    if (marks.tail && marks.tail_n > 0) {
      npcs = unwind::FromCurrentContext(pcs, sps, kMaxDepth, skip + 1, &failed, marks.e[marks.lowest].sp);
      // Python called from inside an operator: take the full path.
      if (!PythonInside(pcs, npcs, eval_begin, eval_end)) {
        if (failed) r.flags |= kSampleUnwindFailed;
        r.depth = MergeStacks(pcs, sps, npcs, eval_begin, eval_end, nullptr, !failed, &marks, out, max,
                              failed ? CutWord(kCutUnwindFailed) : 0);
        MarkFullPath(&r, out, max);
        return r;
      }
    }
    if (!adopted) {  // the full path below uses the real frames above the operators
      marks.tail = nullptr;
      marks.tail_n = 0;
    }
  }

  // The handler inside an operator whose rootward part is known already: a backward operator's
  // adopted forward path (a full path is cut there anyway), or the context its outermost
  // operator took (the same Python frames, interned). The walk stops at the operator's scope
  // instead of going on through the interpreter to the root: with distributions' libunwind
  // every frame costs two system calls. Python run from inside the operator, or a walk that
  // does not get there, takes the full path.
  if (uc && have_ops && !t_loader_busy && marks.e[marks.lowest].sp) {
    const bool adopted = marks.tail != nullptr;
    const int ctx_n = os->ctx_n;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (!adopted && marks.lowest == 0 && ctx_n > 0) {
      marks.tail = os->ctx;
      marks.tail_n = ctx_n;
    }
    if (marks.tail && marks.tail_n > 0) {
      const uint64_t stop = marks.e[marks.lowest].sp;
      npcs = unwind::FromSignalContextToSp(uc, pcs, sps, kMaxDepth, stop, &failed);
      if (!failed && npcs > 0 && sps[npcs - 1] > stop && !PythonInside(pcs, npcs, eval_begin, eval_end)) {
        r.depth = MergeStacks(pcs, sps, npcs, eval_begin, eval_end, nullptr, true, &marks, out, max);
        MarkFullPath(&r, out, max);
        if (!adopted && python::OnMainThread()) {  // the main thread's line, as the full path publishes it
          uint64_t* py = sps;  // no longer needed; kMaxDepth >= kMainStackMax
          int k = 0;
          for (int i = 0; i < r.depth && k < python::kMainStackMax; ++i)
            if (IsPyFrameWord(out[i])) py[k++] = out[i];
          python::PublishIfMain(py, k);
        }
        return r;
      }
    }
    if (!adopted) {
      marks.tail = nullptr;
      marks.tail_n = 0;
    }
    failed = false;
  }
  if (uc && t_loader_busy) {
    pcs[0] = unwind::InterruptedPc(uc);
    sps[0] = 0;
    npcs = 1;
    r.flags |= kSamplePcOnly;
  } else {
    // Without operators no SPs are needed: libunwind's fast trace, in the handler too.
    uint64_t* want_sps = have_ops ? sps : nullptr;
    npcs = uc ? unwind::FromSignalContext(uc, pcs, want_sps, kMaxDepth, &failed)
              : unwind::FromCurrentContext(pcs, want_sps, kMaxDepth, skip + 1, &failed);
    if (failed) r.flags |= kSampleUnwindFailed;
    if (npcs == kMaxDepth) r.flags |= kSampleTruncated;
  }
  python::PyStack ps;
  // The handler queues new names in the thread's ring; normal code interns them itself.
  bool have_py = py && slot && python::WalkCurrentThread(py, &slot->code_cache, uc ? &slot->names : nullptr, &ps);
  if (ps.names_dropped) r.flags |= kSampleNamesDropped;
  if (have_py) python::PublishIfMain(ps.words, ps.nwords);  // for threads working on its behalf
  bool pc_only = (r.flags & kSamplePcOnly) != 0;
  uint64_t cut = pc_only                             ? CutWord(kCutPcOnly)
                 : (r.flags & kSampleTruncated)      ? CutWord(kCutDepthLimit)
                 : (r.flags & kSampleUnwindFailed)   ? CutWord(kCutUnwindFailed)
                                                     : 0;
  r.depth = MergeStacks(pcs, pc_only ? nullptr : sps, npcs, eval_begin, eval_end,
                        have_py ? &ps : nullptr, cut == 0, have_ops ? &marks : nullptr, out, max, cut);
  MarkFullPath(&r, out, max);
  return r;
}

PathScope::PathScope() : ok_(t_in_handler == 0) {
  if (ok_) t_in_handler = 1;
}

PathScope::~PathScope() {
  if (ok_) t_in_handler = 0;
}

}  // namespace strata::rt
