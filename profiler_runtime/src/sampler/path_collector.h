// One merged call path of the calling thread (native frames with the Python frames spliced in
// where the interpreter evaluated them), leaf first, in SampleRecord frame words. The sampler
// calls it from the SIGPROF handler with the interrupted context; GPU API callbacks and
// operator entries call it from normal code (uc = nullptr) on the thread that launches.
// Async-signal-safe with uc set; from normal code the caller must hold off SIGPROF sampling of
// this thread (PathScope does) since both use the thread's Python code cache.
#pragma once

#include <ucontext.h>

#include <cstdint>

#include "sampler/sample.h"
#include "sampler/thread_registry.h"

namespace strata::rt {

struct CollectedPath {
  int depth = 0;
  uint16_t flags = 0;  // SampleFlags
};

// `skip`: frames of the caller's own helpers to leave out (normal code only).
CollectedPath CollectPath(ucontext_t* uc, ThreadSlot* slot, int skip, uint64_t* out, int max);

// Marks the thread as busy for the sampler (t_in_handler) while a path is collected from
// normal code: a SIGPROF arriving then is skipped rather than reentering the code cache.
class PathScope {
 public:
  PathScope();
  ~PathScope();
  bool ok() const { return ok_; }  // false: already inside the handler or a collection
 private:
  bool ok_;
};

}  // namespace strata::rt
