// GPU collection when the runtime was built without the CUDA/CUPTI headers.
#include "gpu/gpu.h"

namespace strata::rt::gpu {
void OnRuntimeStart(Aggregator*) {}
void FlushForExit() {}
void OnForkChild() {}
void OnLibraryLoaded(const char*) {}
GpuStatus StatusNow() { return {"not collected: built without CUDA headers", {}}; }
std::string PcSamplingStatusLine() { return "not collected: built without CUDA headers"; }
std::string RegionsStatusLine() { return "not collected: built without CUDA headers"; }
// interpose/cuda_profiler_api.cpp's hooks (gpu/cupti/capture_range.h): nothing to switch.
void BeforeProfilerStart() {}
void BeforeProfilerStop() {}
}  // namespace strata::rt::gpu
