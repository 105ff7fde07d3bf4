#include "gpu/cupti/cuda_driver.h"

#include <dlfcn.h>

namespace strata::rt::gpu {
namespace {

template <typename F>
bool Sym(void* h, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(h, name));
  return *out != nullptr;
}

}  // namespace

bool LoadCudaDriver(CudaDriver* d) {
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!h) return false;
  d->ok = Sym(h, "cuFuncGetModule", &d->FuncGetModule) && Sym(h, "cuModuleGetGlobal_v2", &d->ModuleGetGlobal) &&
          Sym(h, "cuMemAlloc_v2", &d->MemAlloc) && Sym(h, "cuMemFree_v2", &d->MemFree) &&
          Sym(h, "cuMemAllocHost_v2", &d->MemAllocHost) && Sym(h, "cuMemFreeHost", &d->MemFreeHost) &&
          Sym(h, "cuMemsetD8Async", &d->MemsetD8Async) && Sym(h, "cuMemcpyHtoDAsync_v2", &d->MemcpyHtoDAsync) &&
          Sym(h, "cuMemcpyDtoHAsync_v2", &d->MemcpyDtoHAsync) && Sym(h, "cuMemcpyDtoH_v2", &d->MemcpyDtoH) &&
          Sym(h, "cuEventCreate", &d->EventCreate) && Sym(h, "cuEventRecord", &d->EventRecord) &&
          Sym(h, "cuEventQuery", &d->EventQuery) && Sym(h, "cuEventSynchronize", &d->EventSynchronize) &&
          Sym(h, "cuEventDestroy_v2", &d->EventDestroy);
  Sym(h, "cuKernelGetFunction", &d->KernelGetFunction);
  Sym(h, "cuCtxGetDevice", &d->CtxGetDevice);
  Sym(h, "cuModuleLoadData", &d->ModuleLoadData);
  Sym(h, "cuModuleUnload", &d->ModuleUnload);
  Sym(h, "cuModuleGetFunction", &d->ModuleGetFunction);
  Sym(h, "cuLaunchKernel", &d->LaunchKernel);
  Sym(h, "cuStreamCreate", &d->StreamCreate);
  Sym(h, "cuStreamSynchronize", &d->StreamSynchronize);
  Sym(h, "cuStreamDestroy_v2", &d->StreamDestroy);
  Sym(h, "cuMemcpyHtoD_v2", &d->MemcpyHtoD);
  Sym(h, "cuDeviceGetAttribute", &d->DeviceGetAttribute);
  return d->ok;
}

}  // namespace strata::rt::gpu
