// The CUDA driver entry points the replay calls, from libcuda.so.1 opened at run time (the
// CLI also runs where no driver is installed), typed from cuda.h's declarations.
#pragma once

#include <cuda.h>

#include <string>

namespace strata::replay {

struct ReplayDriver {
  decltype(&cuInit) Init = nullptr;
  decltype(&cuGetErrorName) GetErrorName = nullptr;
  decltype(&cuDriverGetVersion) DriverGetVersion = nullptr;
  decltype(&cuDeviceGet) DeviceGet = nullptr;
  decltype(&cuDeviceGetName) DeviceGetName = nullptr;
  decltype(&cuDeviceGetAttribute) DeviceGetAttribute = nullptr;
  decltype(&cuDeviceTotalMem) DeviceTotalMem = nullptr;
  decltype(&cuDevicePrimaryCtxRetain) DevicePrimaryCtxRetain = nullptr;
  decltype(&cuCtxSetCurrent) CtxSetCurrent = nullptr;
  decltype(&cuCtxSynchronize) CtxSynchronize = nullptr;
  decltype(&cuMemGetAllocationGranularity) MemGetAllocationGranularity = nullptr;
  decltype(&cuMemAddressReserve) MemAddressReserve = nullptr;
  decltype(&cuMemAddressFree) MemAddressFree = nullptr;
  decltype(&cuMemCreate) MemCreate = nullptr;
  decltype(&cuMemRelease) MemRelease = nullptr;
  decltype(&cuMemMap) MemMap = nullptr;
  decltype(&cuMemSetAccess) MemSetAccess = nullptr;
  decltype(&cuMemAlloc) MemAlloc = nullptr;
  decltype(&cuMemsetD8) MemsetD8 = nullptr;
  decltype(&cuMemcpyHtoD) MemcpyHtoD = nullptr;
  decltype(&cuMemcpyDtoH) MemcpyDtoH = nullptr;
  decltype(&cuMemcpyDtoDAsync) MemcpyDtoDAsync = nullptr;
  decltype(&cuModuleLoadData) ModuleLoadData = nullptr;
  decltype(&cuModuleGetFunction) ModuleGetFunction = nullptr;
  decltype(&cuFuncSetAttribute) FuncSetAttribute = nullptr;
  decltype(&cuLaunchKernel) LaunchKernel = nullptr;
  decltype(&cuLaunchKernelEx) LaunchKernelEx = nullptr;
  decltype(&cuStreamCreate) StreamCreate = nullptr;
  decltype(&cuStreamSynchronize) StreamSynchronize = nullptr;
  decltype(&cuStreamQuery) StreamQuery = nullptr;
  decltype(&cuEventCreate) EventCreate = nullptr;
  decltype(&cuEventRecord) EventRecord = nullptr;
  decltype(&cuEventSynchronize) EventSynchronize = nullptr;
  decltype(&cuEventElapsedTime) EventElapsedTime = nullptr;

  // Throws ReplayError when libcuda or an entry point is missing.
  void Load();
  // "cuX failed: CUDA_ERROR_Y" as a ReplayError when r is not success.
  void Check(CUresult r, const char* what) const;
  std::string Name(CUresult r) const;
};

}  // namespace strata::replay
