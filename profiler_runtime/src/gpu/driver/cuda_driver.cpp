#include "gpu/driver/cuda_driver.h"

#include <dlfcn.h>

namespace strata::rt::gpu {
namespace {

template <typename F>
void Sym(void* h, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(h, name));
}

}  // namespace

bool LoadCudaDriver(CudaDriver* d) {
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!h) return false;
  // The versioned names are the ones cuda.h's macros map the plain names to.
  Sym(h, "cuCtxGetDevice", &d->CtxGetDevice);
  Sym(h, "cuCtxSynchronize", &d->CtxSynchronize);
  Sym(h, "cuDriverGetVersion", &d->DriverGetVersion);
  Sym(h, "cuDeviceGetName", &d->DeviceGetName);
  Sym(h, "cuDeviceGetAttribute", &d->DeviceGetAttribute);
  Sym(h, "cuDeviceTotalMem_v2", &d->DeviceTotalMem);
  Sym(h, "cuFuncGetModule", &d->FuncGetModule);
  Sym(h, "cuFuncGetAttribute", &d->FuncGetAttribute);
  Sym(h, "cuFuncGetParamInfo", &d->FuncGetParamInfo);
  Sym(h, "cuKernelGetFunction", &d->KernelGetFunction);
  Sym(h, "cuKernelGetParamInfo", &d->KernelGetParamInfo);
  Sym(h, "cuModuleLoadData", &d->ModuleLoadData);
  Sym(h, "cuModuleUnload", &d->ModuleUnload);
  Sym(h, "cuModuleGetFunction", &d->ModuleGetFunction);
  Sym(h, "cuModuleGetGlobal_v2", &d->ModuleGetGlobal);
  Sym(h, "cuLaunchKernel", &d->LaunchKernel);
  Sym(h, "cuPointerGetAttribute", &d->PointerGetAttribute);
  Sym(h, "cuMemAlloc_v2", &d->MemAlloc);
  Sym(h, "cuMemFree_v2", &d->MemFree);
  Sym(h, "cuMemAllocHost_v2", &d->MemAllocHost);
  Sym(h, "cuMemFreeHost", &d->MemFreeHost);
  Sym(h, "cuMemsetD8Async", &d->MemsetD8Async);
  Sym(h, "cuMemcpyHtoD_v2", &d->MemcpyHtoD);
  Sym(h, "cuMemcpyHtoDAsync_v2", &d->MemcpyHtoDAsync);
  Sym(h, "cuMemcpyDtoH_v2", &d->MemcpyDtoH);
  Sym(h, "cuMemcpyDtoHAsync_v2", &d->MemcpyDtoHAsync);
  Sym(h, "cuStreamCreate", &d->StreamCreate);
  Sym(h, "cuStreamSynchronize", &d->StreamSynchronize);
  Sym(h, "cuStreamDestroy_v2", &d->StreamDestroy);
  Sym(h, "cuStreamIsCapturing", &d->StreamIsCapturing);
  Sym(h, "cuEventCreate", &d->EventCreate);
  Sym(h, "cuEventRecord", &d->EventRecord);
  Sym(h, "cuEventQuery", &d->EventQuery);
  Sym(h, "cuEventSynchronize", &d->EventSynchronize);
  // cuEventElapsedTime_v2 (CUDA 12.8+) measures as the first did, without its old defect.
  Sym(h, "cuEventElapsedTime_v2", &d->EventElapsedTime);
  if (!d->EventElapsedTime) Sym(h, "cuEventElapsedTime", &d->EventElapsedTime);
  Sym(h, "cuEventDestroy_v2", &d->EventDestroy);
  return true;
}

}  // namespace strata::rt::gpu
