// What a run collects beyond API calls, kernels, copies, sets and syncs. Set by the CUPTI
// session's Start (InitializeInjection) before collection begins; read everywhere after.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/trace_window_config.h"

namespace strata::rt::gpu {

struct CollectionOptions {
  bool take_paths = true;      // STRATA_GPU_CALLPATHS=0: API frames at the root
  bool pc_sampling = false;    // PC sampling on (cupti/pc_sampling.h)
  bool pc_serialized = false;  // ... one launch at a time, samples tagged by launch
  bool regions = false;        // region buffers handed to launches (cupti/region_capture.h)
  TraceWindowConfig windows;   // sampled tracing (trace_window_config.h); off = every launch
  bool capture_range = false;  // collect only between cudaProfilerStart/Stop (cupti/capture_range.h)
  bool snap = false;           // one launch written to a snapshot file (snap/snap_capture.h)
  // Diagnostics for the launch-cost breakdown (docs/benchmarks.md), set by the environment:
  bool api_work = true;              // STRATA_GPU_CALLBACK_WORK=none: API callbacks return at once
  size_t buffer_bytes = 4u << 20;    // STRATA_GPU_BUFFER_MB: CUPTI's activity buffers
  uint32_t flush_period_ms = 100;    // STRATA_GPU_FLUSH_MS (0: CUPTI flushes only full buffers)
};

}  // namespace strata::rt::gpu
