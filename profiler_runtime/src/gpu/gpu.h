// GPU collection (CUPTI), seen from the rest of the runtime. Built from collector.cpp when the
// CUDA/CUPTI headers were found at configure time, otherwise from gpu_stub.cpp. CUPTI is never
// linked: libcupti is dlopened when the CUDA driver calls InitializeInjection (cuInit).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace strata::rt {
class Aggregator;
class Cct;
}  // namespace strata::rt

namespace strata::rt::gpu {

// Constructor of the runtime (active process only): exports CUDA_INJECTION64_PATH (unless
// another tool holds it) and hooks the GPU join into the aggregator's drain.
void OnRuntimeStart(Aggregator* agg);
// Normal exit, on the exiting thread, before the final drain: forces CUPTI to hand over every
// buffered activity record. Never called from a signal handler.
void FlushForExit();
// A forked child (no exec): stop queueing API calls (no aggregator drains them there).
void OnForkChild();
// dlopen interposer, after a successful dlopen: the first jaxlib / JAX plugin library makes
// XLA dump its optimized HLO (XLA_FLAGS) so XLA kernels map to HLO ops and Python lines.
void OnLibraryLoaded(const char* file);
// Sampled GPU tracing (empty when every launch was traced or GPU work was not collected): typed
// meta entries beside "gpu" — gpu_window_ms, gpu_window_period_ms, gpu_windows_opened,
// gpu_scale (the factor the written additive GPU metrics carry), gpu_time_scale (the windows'
// share of time, PERIOD/ON), gpu_scale_basis ("operator_calls" or "window_time"); with torch,
// gpu_op_calls_counted, gpu_op_calls_counted_traced and gpu_op_count_probability
// (CuptiSession::OperatorCallShare) — and the factors the written file applies to those metrics
// on top of the PERIOD/ON they were added with.
struct SampledTracing {
  std::vector<std::pair<std::string, std::string>> meta;
  std::vector<std::pair<std::string, double>> metric_factors;
};
// What one written profile says of GPU collection: meta "gpu" ("collected: ..." or
// "not collected: <why>") and the sampled-tracing entries, from one reading of the counters so
// the line and the factors never disagree.
struct GpuStatus {
  std::string line;
  SampledTracing sampled;
};
GpuStatus StatusNow();
// Value of the profile's meta "pc_sampling": "off ...", "collected: ...", "not collected: <why>".
std::string PcSamplingStatusLine();
// Value of the profile's meta "regions" (in-kernel region buffers captured from launches).
std::string RegionsStatusLine();

}  // namespace strata::rt::gpu
