// The CUDA driver entry points the runtime calls itself (the region capture's buffers, copies,
// events and calibration kernel; the snap's pointer queries, copies and timing), resolved once per
// user from the libcuda the program loaded (never linked), typed from cuda.h's own declarations.
// Every entry is optional here: each user checks the ones it needs (its required set lives with
// it, so one table serves both without either loading the other's).
#pragma once

#include <cuda.h>

namespace strata::rt::gpu {

struct CudaDriver {
  decltype(&cuCtxGetDevice) CtxGetDevice = nullptr;
  decltype(&cuCtxSynchronize) CtxSynchronize = nullptr;
  decltype(&cuDriverGetVersion) DriverGetVersion = nullptr;
  decltype(&cuDeviceGetName) DeviceGetName = nullptr;
  decltype(&cuDeviceGetAttribute) DeviceGetAttribute = nullptr;
  decltype(&cuDeviceTotalMem) DeviceTotalMem = nullptr;
  // Functions, kernels and modules.
  decltype(&cuFuncGetModule) FuncGetModule = nullptr;
  decltype(&cuFuncGetAttribute) FuncGetAttribute = nullptr;
  decltype(&cuFuncGetParamInfo) FuncGetParamInfo = nullptr;      // 12.4+
  decltype(&cuKernelGetFunction) KernelGetFunction = nullptr;    // 12.0+
  decltype(&cuKernelGetParamInfo) KernelGetParamInfo = nullptr;  // 12.4+
  decltype(&cuModuleLoadData) ModuleLoadData = nullptr;
  decltype(&cuModuleUnload) ModuleUnload = nullptr;
  decltype(&cuModuleGetFunction) ModuleGetFunction = nullptr;
  decltype(&cuModuleGetGlobal) ModuleGetGlobal = nullptr;
  decltype(&cuLaunchKernel) LaunchKernel = nullptr;
  // Memory.
  decltype(&cuPointerGetAttribute) PointerGetAttribute = nullptr;
  decltype(&cuMemAlloc) MemAlloc = nullptr;
  decltype(&cuMemFree) MemFree = nullptr;
  decltype(&cuMemAllocHost) MemAllocHost = nullptr;
  decltype(&cuMemFreeHost) MemFreeHost = nullptr;
  decltype(&cuMemsetD8Async) MemsetD8Async = nullptr;
  decltype(&cuMemcpyHtoD) MemcpyHtoD = nullptr;
  decltype(&cuMemcpyHtoDAsync) MemcpyHtoDAsync = nullptr;
  decltype(&cuMemcpyDtoH) MemcpyDtoH = nullptr;
  decltype(&cuMemcpyDtoHAsync) MemcpyDtoHAsync = nullptr;
  // Streams and events.
  decltype(&cuStreamCreate) StreamCreate = nullptr;
  decltype(&cuStreamSynchronize) StreamSynchronize = nullptr;
  decltype(&cuStreamDestroy) StreamDestroy = nullptr;
  decltype(&cuStreamIsCapturing) StreamIsCapturing = nullptr;
  decltype(&cuEventCreate) EventCreate = nullptr;
  decltype(&cuEventRecord) EventRecord = nullptr;
  decltype(&cuEventQuery) EventQuery = nullptr;
  decltype(&cuEventSynchronize) EventSynchronize = nullptr;
  decltype(&cuEventElapsedTime) EventElapsedTime = nullptr;
  decltype(&cuEventDestroy) EventDestroy = nullptr;
};

// False when libcuda is not loaded in the process; else every entry point the driver has.
bool LoadCudaDriver(CudaDriver* d);

}  // namespace strata::rt::gpu
