// Native stack of the interrupted context, with libunwind, from inside the SIGPROF handler.
#pragma once

#include <ucontext.h>

#include <cstdint>

namespace strata::rt::unwind {

// Normal context, once: warms libunwind up (its lazy init takes locks) and selects the
// per-thread cache. Builds without one (the distributions') keep a process-wide cache that
// unw_step locks at every frame, signals blocked around the lock: still handler-safe, but two
// system calls per frame (meta `sampler` says which kind this process has).
void Init();

// False when libunwind has no per-thread cache (see Init).
bool CachePerThread();

// Normal context, on each thread before its first sample (thread start, runtime init): builds
// libunwind's per-thread trace cache here, where it may allocate (its first use sets a pthread
// key, which can calloc). Until a thread has been prepared its samples walk.
void PrepareThread();

// Normal context, after a dlopen or dlclose: the loaded modules' TLS generation may have moved.
// A thread whose own TLS vector is older updates it at its next dynamic TLS access, and that
// update can allocate (glibc grows the vector with malloc). libunwind's fast trace makes such an
// access, so from the handler it could deadlock a thread interrupted inside malloc (seen on the
// H200: a Python import stuck on the malloc arena's lock inside the sampler's handler). Samples
// of a thread with an older vector walk instead (the walk makes no TLS access). The calling
// thread's own vector is updated here. Each call pairs with a BeforeLoaderChange() made before
// the dlopen or dlclose: in between, no thread takes the fast trace.
void BeforeLoaderChange();
void AfterLoaderChange();

// In a forked child (fork's child handler): the dlopen calls of other threads are gone.
void OnForkChild();

// Writes up to `max` PCs, leaf first: pcs[0] is the interrupted PC as is, caller frames are
// return address - 1 so they map to the call site. Returns the count; *failed is set when
// libunwind reported an error before reaching the outermost frame. `sps` (may be null) gets
// each frame's stack pointer: it orders native frames against marks taken on the same stack
// (operator entries), since the stack grows down (a caller's SP is higher). Without `sps` the
// handler takes libunwind's fast trace through the signal frame (STRATA_UNWIND_FAST_SIGNAL=0:
// never), falling back to the walk when the interrupted PC is not found in it.
int FromSignalContext(ucontext_t* uc, uint64_t* pcs, uint64_t* sps, int max, bool* failed);

// The walk with SPs from the interrupted context, ending after the first frame whose SP is
// above stop_sp (a caller of the operator whose scope lives there), or at the root.
int FromSignalContextToSp(ucontext_t* uc, uint64_t* pcs, uint64_t* sps, int max, uint64_t stop_sp, bool* failed);

// The same for the calling thread's own stack, from normal code (a CUDA launch callback, an
// operator entry). The first `skip` frames (the caller's own helpers) are left out. With `sps`
// and a stop_sp, the walk ends after the first frame whose SP is above it, as above.
int FromCurrentContext(uint64_t* pcs, uint64_t* sps, int max, int skip, bool* failed, uint64_t stop_sp = 0);

// PC only (used when the loader lock may be held).
uint64_t InterruptedPc(const ucontext_t* uc);

}  // namespace strata::rt::unwind
