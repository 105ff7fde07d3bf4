// Sampled GPU tracing: CUPTI collects in windows instead of all the time, for launch-bound
// programs where tracing every launch costs too much. STRATA_GPU_SAMPLING=ON_MS/PERIOD_MS
// (e.g. 100/1000): API callbacks, activity records and operator recording are on for ON_MS out
// of every PERIOD_MS and CUPTI is detached in between; each detach and attach costs the program a
// few ms, so long periods are cheap and short ones are not (docs/benchmarks.md). Each window opens with
// the callbacks before the activity kinds and closes in the reverse order, so every kernel that
// is recorded has its launch's call path. Additive GPU metrics (gpu_time, sync_time, bytes,
// API time) are scaled by PERIOD_MS / ON_MS, so totals estimate the whole run; counts and
// per-launch attributes are as observed. The profile's gpu line states both.
#pragma once

#include <string>

#include "gpu/trace_window_config.h"

namespace strata::rt::gpu {

class CuptiSession;

// Starts the thread that opens and closes the windows (after the session enabled everything:
// the first window is open). Returns false when the thread cannot be started (tracing stays on).
bool StartTraceWindows(CuptiSession* s);
// "sampled: windows of 10 ms every 100 ms (N windows); ... scaled x10" for the gpu line.
std::string TraceWindowsStatus(const CuptiSession& s);

}  // namespace strata::rt::gpu
