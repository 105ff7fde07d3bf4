// Builds the merged call path of one sample, py-spy --native style: every native frame whose PC
// lies in _PyEval_EvalFrameDefault is replaced by the Python frames that evaluation call ran
// (one group per call, innermost first). Pure; handler-safe.
//
// More groups than eval frames: a Python call evaluated through a C frame that is not
// recognized (a frame-evaluation hook such as torch.compile's, a cold part of the eval loop).
// When the native stack is complete (unwound to the process or thread entry), the outermost
// groups belong to the outermost eval frames, so the surplus goes with the innermost eval frame
// (never above the process entry). When it is not complete, the groups left over are callers
// the unwinder did not reach and go to the root end rather than being dropped; the cut word
// (`cut`: a CutWord, 0 when the walk reached the root) goes where the native frames end, before
// those leftover groups: what lies between is unknown.
//
// A Python walk that was cut (ps->truncated: its outermost frames did not fit) ends the path at
// the first eval frame left without a group, or after the last group: a depth-limit cut word
// stands there and nothing rootward of it is emitted (those native frames would read as if they
// called the innermost kept Python frames directly).
#pragma once

#include <cstdint>

#include "ops/op_stack.h"
#include "sampler/sample.h"
#include "python/py_reader.h"

namespace strata::rt {

// Groups to emit together with the innermost eval frame beyond its own (see above).
inline int SurplusGroups(const uint64_t* pcs, int npcs, uint64_t eval_begin, uint64_t eval_end,
                         const python::PyStack* ps, bool complete) {
  if (!ps || !complete) return 0;
  int evals = 0;
  for (int i = 0; i < npcs; ++i) evals += pcs[i] >= eval_begin && pcs[i] < eval_end;
  return evals > 0 && ps->ngroups > evals ? ps->ngroups - evals : 0;
}

// Where a cut Python walk ends the path (see above): the cut word, if it fits; returns n.
inline int EndAtPythonCut(uint64_t* out, int n, int max) {
  if (n > 0 && IsCutWord(out[n - 1])) return n;
  if (n < max) out[n++] = CutWord(kCutDepthLimit);
  else if (max > 0) out[max - 1] = CutWord(kCutDepthLimit);
  return n;
}

inline int MergeStacks(const uint64_t* pcs, int npcs, uint64_t eval_begin, uint64_t eval_end,
                       const python::PyStack* ps, bool complete, uint64_t* out, int max, uint64_t cut = 0) {
  int n = 0, group = 0;
  int surplus = SurplusGroups(pcs, npcs, eval_begin, eval_end, ps, complete);
  for (int i = 0; i < npcs && n < max; ++i) {
    if (ps && ps->truncated && group >= ps->ngroups && pcs[i] >= eval_begin && pcs[i] < eval_end)
      return EndAtPythonCut(out, n, max);
    if (ps && group < ps->ngroups && pcs[i] >= eval_begin && pcs[i] < eval_end) {
      for (int last = group + surplus; group <= last; ++group)
        for (int k = ps->group_start[group]; k < ps->group_start[group + 1] && n < max; ++k)
          out[n++] = ps->words[k];
      surplus = 0;
      continue;
    }
    out[n++] = pcs[i];
  }
  if (cut && n < max) out[n++] = cut;
  if (ps) {
    for (; group < ps->ngroups; ++group)
      for (int k = ps->group_start[group]; k < ps->group_start[group + 1] && n < max; ++k)
        out[n++] = ps->words[k];
    if (ps->truncated) return EndAtPythonCut(out, n, max);
  }
  return n;
}

// Operator frames to splice into a merged path: entries outermost first (an OpStack's).
// Entries below `lowest` are not emitted; when `tail` is set, everything rootward of entry
// `lowest` is replaced by tail[0..tail_n) (a backward operator's adopted forward path, or the
// outermost operator's cached context on the GPU launch path).
struct OpMarks {
  const ops::OpEntry* e = nullptr;
  int n = 0;
  int lowest = 0;
  const uint64_t* tail = nullptr;
  int tail_n = 0;
};

// MergeStacks with operator frames. `sps` holds each native frame's stack pointer (may be null:
// then operators go right below the innermost Python frame). An operator is emitted right
// below the first native frame whose SP is above the operator's scope address (its caller);
// operators with sp 0 go right below the innermost Python group. Native frames between an
// operator and the next boundary rootward (its calling operator, or the Python frame that
// called it) are dropped: bindings and dispatcher glue are what the operator frame stands for,
// giving "Python > operator > operator > native" paths that are the same for samples, GPU
// launches and backward operators that adopt a forward path. Native frames below the innermost
// operator, and between a Python group and an operator that Python code ran inside, are kept.
inline int MergeStacks(const uint64_t* pcs, const uint64_t* sps, int npcs, uint64_t eval_begin,
                       uint64_t eval_end, const python::PyStack* ps, bool complete, const OpMarks* ops,
                       uint64_t* out, int max, uint64_t cut = 0) {
  if (!ops || ops->n <= ops->lowest) return MergeStacks(pcs, npcs, eval_begin, eval_end, ps, complete, out, max, cut);
  int n = 0, group = 0, k = ops->n - 1, glue = -1;
  int surplus = SurplusGroups(pcs, npcs, eval_begin, eval_end, ps, complete);
  auto emit_op = [&](int idx) {
    if (glue >= 0) n = glue;  // drop the native frames between this operator and the inner one
    if (n < max) out[n++] = ops->e[idx].word;
    glue = n;
  };
  auto emit_tail = [&]() {
    for (int t = 0; t < ops->tail_n && n < max; ++t) out[n++] = ops->tail[t];
    return n;
  };
  for (int i = 0; i < npcs && n < max; ++i) {
    if (ps && ps->truncated && group >= ps->ngroups && pcs[i] >= eval_begin && pcs[i] < eval_end)
      return EndAtPythonCut(out, n, max);
    bool eval = ps && group < ps->ngroups && pcs[i] >= eval_begin && pcs[i] < eval_end;
    while (k >= ops->lowest &&
           (ops->e[k].sp ? (sps && sps[i] > ops->e[k].sp) : eval)) {
      emit_op(k);
      --k;
    }
    if (ops->tail && k < ops->lowest) return emit_tail();
    if (eval) {
      if (glue >= 0) n = glue;  // bindings between the Python line and its operator
      glue = -1;
      for (int last = group + surplus; group <= last; ++group)
        for (int q = ps->group_start[group]; q < ps->group_start[group + 1] && n < max; ++q)
          out[n++] = ps->words[q];
      surplus = 0;
      continue;
    }
    if (n < max) out[n++] = pcs[i];
  }
  // Native frames ended (root, or unwinding stopped): operators still open go here.
  if (cut && n < max) out[n++] = cut;
  for (; k >= ops->lowest; --k) emit_op(k);
  if (ops->tail) return emit_tail();
  if (ps && group < ps->ngroups) {
    if (glue >= 0) n = glue;
    for (; group < ps->ngroups; ++group)
      for (int q = ps->group_start[group]; q < ps->group_start[group + 1] && n < max; ++q)
        out[n++] = ps->words[q];
  }
  if (ps && ps->truncated) return EndAtPythonCut(out, n, max);
  return n;
}

// A launch path located by the outermost operator's entry trace instead of by SPs: `below`
// holds the native frames inside the innermost operator (leaf first), then come the operators
// from the innermost outwards and `tail` (the adopted or cached context). The result is the one
// MergeStacks gives with SPs and `ops->tail` set, provided `below` stops where MergeStacks would
// emit the innermost operator: the glue between nested operators is dropped in both.
inline int JoinAtOperators(const uint64_t* below, int nbelow, const OpMarks* ops, const uint64_t* tail,
                           int tail_n, uint64_t* out, int max) {
  int n = 0;
  for (int q = 0; q < nbelow && n < max; ++q) out[n++] = below[q];
  for (int k = ops->n - 1; k >= ops->lowest && n < max; --k) out[n++] = ops->e[k].word;
  for (int q = 0; q < tail_n && n < max; ++q) out[n++] = tail[q];
  return n;
}

}  // namespace strata::rt
