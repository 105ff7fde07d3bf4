// Reads the interrupted thread's own Python stack from inside the SIGPROF handler, without the
// GIL: PyGILState_GetThisThreadState() (a TLS read) -> the innermost frame -> previous...
// Everything Python-specific that needs dlsym/dladdr happens in Detect(), from a normal thread.
#pragma once

#include <atomic>
#include <cstdint>

#include "python/code_cache.h"
#include "python/name_ring.h"
#include "python/offsets.h"

namespace strata::rt::python {

struct Runtime {
  const Offsets* off = nullptr;
  void* (*get_this_thread_state)() = nullptr;
  uintptr_t eval_begin = 0, eval_end = 0;  // _PyEval_EvalFrameDefault [begin, end)
  uintptr_t code_type = 0;                 // &PyCode_Type, to validate code pointers
  uintptr_t unicode_type = 0;              // &PyUnicode_Type
  char version[32] = {0};                  // "3.11.2"
};

// Published once Python is found (acquire in the handler).
const Runtime* Current();
// For meta "python": "3.11.2", "none", or the version and why its frames are not read:
// "3.8.18 (unsupported: CPython 3.9-3.13 are read)", "3.13.0 (free-threaded build, unsupported)".
// Normal threads only.
const char* VersionString();

// Looks for a CPython in the process (RTLD_DEFAULT, then loaded libpython* objects). Safe to
// call repeatedly from a normal thread; returns true once found (supported or not).
bool Detect();

// True when the object header of a static type object (PyCode_Type) is laid out as in a
// free-threaded build (ob_tid, ..., ob_type at 24) rather than the default one (ob_type at 8).
bool LooksFreeThreaded(uintptr_t static_type, uintptr_t type_type);

// Output of one walk: frame words (leaf first) split into groups, one group per C-level
// evaluation call (3.9/3.10: one frame; 3.11: up to and including an is_entry frame; 3.12+: up
// to the next frame owned by the C stack). group_start[g] indexes words; group g ends where
// g+1 starts.
struct PyStack {
  static constexpr int kMaxFrames = 512;
  static constexpr int kMaxGroups = kMaxFrames;
  uint64_t words[kMaxFrames];
  uint16_t group_start[kMaxGroups + 1];
  int nwords = 0;
  int ngroups = 0;
  bool names_dropped = false;  // the name ring was full: the caller drops the sample
  bool truncated = false;      // outer frames did not fit: the root end of the Python stack is cut
};

// Walks this thread's Python stack. Frame words name code objects through the thread's cache:
// interned code ids (GlobalPyWord) where known; otherwise, in the SIGPROF handler (`ring` set),
// the name is queued in the ring and the word carries its sequence number (PendingPyWord); in
// normal code (`ring` null, the caller holding a PathScope) the name is interned on the spot,
// so such walks only ever produce interned words. False when no Python state is attached to
// this thread.
bool WalkCurrentThread(const Runtime* rt, CodeCache* cache, NameRing* ring, PyStack* out);

// A hash of this thread's Python stack as it is now: every frame's address, code object and
// current instruction, nothing resolved (no code cache, no line table). Equal keys mean the
// same frames at the same instructions, so the same Python path. False: no Python state.
bool StackKey(const Runtime* rt, uint64_t* key);

}  // namespace strata::rt::python
