// cudaProfilerStart / cuProfilerStart and their stops, interposed so that a capture range can
// detach CUPTI between ranges (and sampled tracing between windows inside one): a detached CUPTI
// sees no API call, so a start or a stop must reach the runtime another way
// (gpu/cupti/capture_range.h). Programs without CUDA never call these.
#include <dlfcn.h>
#include <link.h>

#include <cstring>

#include "common/loaded_objects.h"
#include "gpu/cupti/capture_range.h"

namespace {

using StartFn = int (*)(void);

// The next definition: RTLD_NEXT sees the global scope only, and a library loaded with
// RTLD_LOCAL (a Python extension's dependencies) is not in it; then the loaded library whose
// name starts with `lib` is asked directly.
StartFn Real(const char* name, const char* lib) {
  if (void* f = dlsym(RTLD_NEXT, name)) return reinterpret_cast<StartFn>(f);
  struct Find {
    const char* lib;
    const char* path = nullptr;
  } find{lib};
  strata::rt::IterateLoadedObjects(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* f = static_cast<Find*>(data);
        const char* base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : nullptr;
        if (base && strncmp(base + 1, f->lib, strlen(f->lib)) == 0) {
          f->path = info->dlpi_name;
          return 1;
        }
        return 0;
      },
      &find);
  if (!find.path) return nullptr;
  void* h = dlopen(find.path, RTLD_LAZY | RTLD_NOLOAD);
  return h ? reinterpret_cast<StartFn>(dlsym(h, name)) : nullptr;
}

// cudaErrorNotSupported and CUDA_ERROR_NOT_SUPPORTED: only when no CUDA library defines the call
// (a program that looked the symbol up by name and found this one).
constexpr int kNotSupported = 801;

}  // namespace

#define STRATA_EXPORT extern "C" __attribute__((visibility("default")))

// Both return an error enum (cudaError_t / CUresult) whose success is 0; an int has their size
// and calling convention, so no CUDA header is needed here.
STRATA_EXPORT int cudaProfilerStart(void) {
  static StartFn real = Real("cudaProfilerStart", "libcudart.so");
  strata::rt::gpu::BeforeProfilerStart();
  return real ? real() : kNotSupported;
}

STRATA_EXPORT int cuProfilerStart(void) {
  static StartFn real = Real("cuProfilerStart", "libcuda.so");
  strata::rt::gpu::BeforeProfilerStart();
  return real ? real() : kNotSupported;
}

STRATA_EXPORT int cudaProfilerStop(void) {
  static StartFn real = Real("cudaProfilerStop", "libcudart.so");
  strata::rt::gpu::BeforeProfilerStop();
  return real ? real() : kNotSupported;
}

STRATA_EXPORT int cuProfilerStop(void) {
  static StartFn real = Real("cuProfilerStop", "libcuda.so");
  strata::rt::gpu::BeforeProfilerStop();
  return real ? real() : kNotSupported;
}
