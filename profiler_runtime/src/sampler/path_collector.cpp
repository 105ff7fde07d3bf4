#include "sampler/path_collector.h"

#include "common/tls.h"
#include "python/py_reader.h"
#include "sampler/merge.h"
#include "unwind/native_unwind.h"

namespace strata::rt {


CollectedPath CollectPath(ucontext_t* uc, ThreadSlot* slot, int skip, uint64_t* out, int max) {
  CollectedPath r;
  uint64_t pcs[kMaxDepth];
  int npcs;
  bool failed = false;
  if (uc && t_loader_busy) {
    pcs[0] = unwind::InterruptedPc(uc);
    npcs = 1;
    r.flags |= kSamplePcOnly;
  } else {
    npcs = uc ? unwind::FromSignalContext(uc, pcs, nullptr, kMaxDepth, &failed)
              : unwind::FromCurrentContext(pcs, nullptr, kMaxDepth, skip + 1, &failed);
    if (failed) r.flags |= kSampleUnwindFailed;
    if (npcs == kMaxDepth) r.flags |= kSampleTruncated;
  }
  const python::Runtime* py = python::Current();
  python::PyStack ps;
  bool have_py = py && slot && python::WalkCurrentThread(py, &slot->code_cache, &ps);
  r.depth = MergeStacks(pcs, npcs, py ? py->eval_begin : 0, py ? py->eval_end : 0,
                        have_py ? &ps : nullptr, out, max);
  return r;
}

PathScope::PathScope() : ok_(t_in_handler == 0) {
  if (ok_) t_in_handler = 1;
}

PathScope::~PathScope() {
  if (ok_) t_in_handler = 0;
}

}  // namespace strata::rt
