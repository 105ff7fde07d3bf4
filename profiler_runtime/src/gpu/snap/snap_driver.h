// The CUDA driver entry points the snap calls, resolved from the libcuda the program loaded
// (never linked), typed from cuda.h's own declarations.
#pragma once

#include <cuda.h>

namespace strata::rt::gpu::snap {

struct SnapDriver {
  bool ok = false;
  decltype(&cuCtxSynchronize) CtxSynchronize = nullptr;
  decltype(&cuCtxGetDevice) CtxGetDevice = nullptr;
  decltype(&cuPointerGetAttribute) PointerGetAttribute = nullptr;
  decltype(&cuMemcpyDtoH) MemcpyDtoH = nullptr;
  decltype(&cuMemAllocHost) MemAllocHost = nullptr;
  decltype(&cuMemFreeHost) MemFreeHost = nullptr;
  decltype(&cuFuncGetParamInfo) FuncGetParamInfo = nullptr;
  decltype(&cuFuncGetAttribute) FuncGetAttribute = nullptr;
  decltype(&cuKernelGetFunction) KernelGetFunction = nullptr;  // optional
  decltype(&cuKernelGetParamInfo) KernelGetParamInfo = nullptr;  // optional (12.4+)
  decltype(&cuFuncGetModule) FuncGetModule = nullptr;
  decltype(&cuDeviceGetName) DeviceGetName = nullptr;
  decltype(&cuDeviceGetAttribute) DeviceGetAttribute = nullptr;
  decltype(&cuDeviceTotalMem) DeviceTotalMem = nullptr;
  decltype(&cuDriverGetVersion) DriverGetVersion = nullptr;
  decltype(&cuStreamIsCapturing) StreamIsCapturing = nullptr;
  decltype(&cuEventCreate) EventCreate = nullptr;
  decltype(&cuEventRecord) EventRecord = nullptr;
  decltype(&cuEventSynchronize) EventSynchronize = nullptr;
  decltype(&cuEventElapsedTime) EventElapsedTime = nullptr;
  decltype(&cuEventDestroy) EventDestroy = nullptr;
  // The wait kernel before the start event (optional: without it the in-run time includes the
  // launch's latency).
  decltype(&cuModuleLoadData) ModuleLoadData = nullptr;
  decltype(&cuModuleGetFunction) ModuleGetFunction = nullptr;
  decltype(&cuLaunchKernel) LaunchKernel = nullptr;
};

// False (and d->ok false) when libcuda is not loaded or lacks a required entry point.
bool LoadSnapDriver(SnapDriver* d);

}  // namespace strata::rt::gpu::snap
