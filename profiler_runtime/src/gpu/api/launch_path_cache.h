// Call paths of GPU API calls, cached per thread. Taking a full path at every launch (unwinding
// the whole native stack, resolving every Python frame's line) costs several µs, and launch
// loops repeat the same few call sites. The key is cheap to take and pins the path down: the
// innermost native return addresses (libunwind's fast trace, a few dozen frames: the launch
// site inside the framework), every Python frame's address, code and instruction (py_reader's
// StackKey, nothing resolved) and the thread's operator stack. A hit copies the cached words.
// The native trace is most of a hit's cost (~50 ns a frame), so by default the key leaves it out
// and takes the API call and its kernel's name instead; the fill records where on the stack each
// of the trace's return addresses lies, and every hit compares those words in place, so a key
// that two call sites share (cuDNN launching one kernel from two places at the same stack depth)
// falls back to the trace at the other site's first launch. Checking one hit in 64 against the
// trace instead let hits between checks take the other site's innermost frames on ResNet-50
// training. STRATA_GPU_PATH_KEY=trace keeps the trace in every key (=cheap names the default).
// STRATA_GPU_PATH_CACHE=off disables the cache; =verify takes the full path anyway and counts
// the hits whose cached path differs (reported in meta gpu).
#pragma once

#include <cstdint>
#include <string>

#include "sampler/thread_registry.h"

namespace strata::rt::gpu {

// Everything the cache keeps for the process (the threads' caches, the exited threads' counts,
// the mode); the CUPTI session owns the one instance.
struct LaunchPathCacheState;
LaunchPathCacheState* NewLaunchPathCacheState();

void ConfigureLaunchPathCache();
// The calling thread's merged path (CollectPath words, leaf first); the caller holds a PathScope.
// call: what the API call itself tells apart (its id, the launched kernel's name).
int LaunchPath(ThreadSlot* slot, uint64_t call, uint64_t* out, int max);
// "path cache: N hits of M (V verify mismatches)" or "" when off.
std::string LaunchPathCacheStatus();

}  // namespace strata::rt::gpu
