// Call paths of GPU API calls, cached per thread. Taking a full path at every launch (unwinding
// the whole native stack, resolving every Python frame's line) costs several µs, and launch
// loops repeat the same few call sites. The key is cheap to take and pins the path down: the
// innermost native return addresses (libunwind's fast trace, a few dozen frames: the launch
// site inside the framework), every Python frame's address, code and instruction (py_reader's
// StackKey, nothing resolved) and the thread's operator stack. A hit copies the cached words.
// The native trace is most of a hit's cost (~50 ns a frame). STRATA_GPU_PATH_KEY=cheap leaves it
// out and keys the API call and its kernel's name instead; an entry's first hits and then one
// hit in about 64 (drawn) also take the trace and compare it with the one the entry was filled
// with, and a cheap key seen with two traces is keyed with the trace from then on. Checking
// only every 64th hit missed cuDNN's two call sites of one kernel at the same stack depth on
// ResNet-50 training (STRATA_GPU_PATH_CACHE=verify): between checks, hits took the other
// site's innermost frames. STRATA_GPU_PATH_KEY=trace keeps the trace in every key.
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
