// Builds the merged call path of one sample, py-spy --native style: every native frame whose PC
// lies in _PyEval_EvalFrameDefault is replaced by the Python frames that evaluation call ran
// (one group per call, innermost first). Groups left over - native unwinding stopped early or
// found no eval frame - go to the root end rather than being dropped. Pure; handler-safe.
#pragma once

#include <cstdint>

#include "python/py_reader.h"

namespace strata::rt {

inline int MergeStacks(const uint64_t* pcs, int npcs, uint64_t eval_begin, uint64_t eval_end,
                       const python::PyStack* ps, uint64_t* out, int max) {
  int n = 0, group = 0;
  for (int i = 0; i < npcs && n < max; ++i) {
    if (ps && group < ps->ngroups && pcs[i] >= eval_begin && pcs[i] < eval_end) {
      for (int k = ps->group_start[group]; k < ps->group_start[group + 1] && n < max; ++k)
        out[n++] = ps->words[k];
      ++group;
      continue;
    }
    out[n++] = pcs[i];
  }
  if (ps) {
    for (; group < ps->ngroups; ++group)
      for (int k = ps->group_start[group]; k < ps->group_start[group + 1] && n < max; ++k)
        out[n++] = ps->words[k];
  }
  return n;
}

}  // namespace strata::rt
