#include "replay_driver.h"

#include <dlfcn.h>

#include "strata/replay/replay.h"

namespace strata::replay {
namespace {

template <typename F>
void Sym(void* h, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(h, name));
  if (!*out) throw ReplayError(std::string("the CUDA driver lacks ") + name + " (driver 12.4 or later needed)");
}

}  // namespace

void ReplayDriver::Load() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) throw ReplayError("no CUDA driver here (libcuda.so.1 cannot be loaded): a replay needs the GPU the snapshot came from");
  Sym(h, "cuInit", &Init);
  Sym(h, "cuGetErrorName", &GetErrorName);
  Sym(h, "cuDriverGetVersion", &DriverGetVersion);
  Sym(h, "cuDeviceGet", &DeviceGet);
  Sym(h, "cuDeviceGetName", &DeviceGetName);
  Sym(h, "cuDeviceGetAttribute", &DeviceGetAttribute);
  Sym(h, "cuDeviceTotalMem_v2", &DeviceTotalMem);
  Sym(h, "cuDevicePrimaryCtxRetain", &DevicePrimaryCtxRetain);
  Sym(h, "cuCtxSetCurrent", &CtxSetCurrent);
  Sym(h, "cuCtxSynchronize", &CtxSynchronize);
  Sym(h, "cuMemGetAllocationGranularity", &MemGetAllocationGranularity);
  Sym(h, "cuMemAddressReserve", &MemAddressReserve);
  Sym(h, "cuMemAddressFree", &MemAddressFree);
  Sym(h, "cuMemCreate", &MemCreate);
  Sym(h, "cuMemRelease", &MemRelease);
  Sym(h, "cuMemMap", &MemMap);
  Sym(h, "cuMemSetAccess", &MemSetAccess);
  Sym(h, "cuMemAlloc_v2", &MemAlloc);
  Sym(h, "cuMemsetD8_v2", &MemsetD8);
  Sym(h, "cuMemcpyHtoD_v2", &MemcpyHtoD);
  Sym(h, "cuMemcpyDtoH_v2", &MemcpyDtoH);
  Sym(h, "cuMemcpyDtoDAsync_v2", &MemcpyDtoDAsync);
  Sym(h, "cuModuleLoadData", &ModuleLoadData);
  Sym(h, "cuModuleGetFunction", &ModuleGetFunction);
  Sym(h, "cuFuncSetAttribute", &FuncSetAttribute);
  Sym(h, "cuLaunchKernel", &LaunchKernel);
  Sym(h, "cuLaunchKernelEx", &LaunchKernelEx);
  Sym(h, "cuStreamCreate", &StreamCreate);
  Sym(h, "cuStreamSynchronize", &StreamSynchronize);
  Sym(h, "cuStreamQuery", &StreamQuery);
  Sym(h, "cuEventCreate", &EventCreate);
  Sym(h, "cuEventRecord", &EventRecord);
  Sym(h, "cuEventSynchronize", &EventSynchronize);
  EventElapsedTime = reinterpret_cast<decltype(EventElapsedTime)>(dlsym(h, "cuEventElapsedTime_v2"));
  if (!EventElapsedTime) Sym(h, "cuEventElapsedTime", &EventElapsedTime);
}

std::string ReplayDriver::Name(CUresult r) const {
  const char* n = nullptr;
  if (GetErrorName && GetErrorName(r, &n) == CUDA_SUCCESS && n) return n;
  return "CUDA error " + std::to_string(int(r));
}

void ReplayDriver::Check(CUresult r, const char* what) const {
  if (r != CUDA_SUCCESS) throw ReplayError(std::string(what) + " failed: " + Name(r));
}

}  // namespace strata::replay
