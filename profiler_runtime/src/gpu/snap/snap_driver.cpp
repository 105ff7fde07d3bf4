#include "gpu/snap/snap_driver.h"

#include <dlfcn.h>

namespace strata::rt::gpu::snap {
namespace {

template <typename F>
bool Sym(void* h, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(h, name));
  return *out != nullptr;
}

}  // namespace

bool LoadSnapDriver(SnapDriver* d) {
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!h) return false;
  // cuEventElapsedTime_v2 (CUDA 12.8+) measures as the first did, without its old defect.
  if (!Sym(h, "cuEventElapsedTime_v2", &d->EventElapsedTime)) Sym(h, "cuEventElapsedTime", &d->EventElapsedTime);
  Sym(h, "cuKernelGetFunction", &d->KernelGetFunction);
  Sym(h, "cuKernelGetParamInfo", &d->KernelGetParamInfo);
  Sym(h, "cuModuleLoadData", &d->ModuleLoadData);
  Sym(h, "cuModuleGetFunction", &d->ModuleGetFunction);
  Sym(h, "cuLaunchKernel", &d->LaunchKernel);
  d->ok = Sym(h, "cuCtxSynchronize", &d->CtxSynchronize) && Sym(h, "cuCtxGetDevice", &d->CtxGetDevice) &&
          Sym(h, "cuPointerGetAttribute", &d->PointerGetAttribute) && Sym(h, "cuMemcpyDtoH_v2", &d->MemcpyDtoH) &&
          Sym(h, "cuMemAllocHost_v2", &d->MemAllocHost) && Sym(h, "cuMemFreeHost", &d->MemFreeHost) &&
          Sym(h, "cuFuncGetParamInfo", &d->FuncGetParamInfo) && Sym(h, "cuFuncGetAttribute", &d->FuncGetAttribute) &&
          Sym(h, "cuFuncGetModule", &d->FuncGetModule) && Sym(h, "cuDeviceGetName", &d->DeviceGetName) &&
          Sym(h, "cuDeviceGetAttribute", &d->DeviceGetAttribute) && Sym(h, "cuDeviceTotalMem_v2", &d->DeviceTotalMem) &&
          Sym(h, "cuDriverGetVersion", &d->DriverGetVersion) && Sym(h, "cuStreamIsCapturing", &d->StreamIsCapturing) &&
          Sym(h, "cuEventCreate", &d->EventCreate) && Sym(h, "cuEventRecord", &d->EventRecord) &&
          Sym(h, "cuEventSynchronize", &d->EventSynchronize) && Sym(h, "cuEventDestroy_v2", &d->EventDestroy) &&
          d->EventElapsedTime != nullptr;
  return d->ok;
}

}  // namespace strata::rt::gpu::snap
