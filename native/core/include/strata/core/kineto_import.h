// PyTorch-profiler (Kineto) Chrome traces as Strata profiles: each kernel, copy and set under the
// CUDA API call that launched it (joined by CUPTI's correlation id), under the operators and
// Python functions that enclose that call on its thread. Times are the trace's durations; the
// trace's timeline itself is not kept (a profile keeps totals per call path).
#pragma once

#include <string>
#include <vector>

namespace strata::core {

// Metrics of an imported profile: wall_time (ns, each CPU-side event's self time on its thread),
// api_time (ns, CUDA API calls), gpu_time (ns, kernels, copies and sets).
// Throws Error (one line) when the text is not a Kineto trace (not JSON, no traceEvents, or none
// of its cpu_op / python_function / kernel / cuda_runtime events). `source` names the trace in
// the profile's meta.
std::vector<unsigned char> KinetoTraceToProfile(const std::string& text, const std::string& source);

// Reads the trace at `trace_path` and writes the profile to `profile_path` atomically (nothing
// is written on any error). Throws Error (one line).
void ImportKinetoTrace(const std::string& trace_path, const std::string& profile_path);

}  // namespace strata::core
