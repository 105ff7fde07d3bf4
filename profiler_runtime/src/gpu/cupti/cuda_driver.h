// CUDA driver entry points the region capture calls (its own buffers, copies, events and the
// calibration kernel), resolved from the libcuda the program loaded (never linked).
#pragma once

#include <cuda.h>

namespace strata::rt::gpu {

struct CudaDriver {
  bool ok = false;
  CUresult (*FuncGetModule)(CUmodule*, CUfunction) = nullptr;
  CUresult (*KernelGetFunction)(CUfunction*, CUkernel) = nullptr;  // optional (CUDA 12+)
  CUresult (*CtxGetDevice)(CUdevice*) = nullptr;
  // The calibration kernel (optional: without them no calibration).
  CUresult (*ModuleLoadData)(CUmodule*, const void*) = nullptr;
  CUresult (*ModuleUnload)(CUmodule) = nullptr;
  CUresult (*ModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           CUstream, void**, void**) = nullptr;
  CUresult (*StreamCreate)(CUstream*, unsigned) = nullptr;
  CUresult (*StreamSynchronize)(CUstream) = nullptr;
  CUresult (*StreamDestroy)(CUstream) = nullptr;
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*DeviceGetAttribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*ModuleGetGlobal)(CUdeviceptr*, size_t*, CUmodule, const char*) = nullptr;
  CUresult (*MemAlloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*MemFree)(CUdeviceptr) = nullptr;
  CUresult (*MemAllocHost)(void**, size_t) = nullptr;
  CUresult (*MemFreeHost)(void*) = nullptr;
  CUresult (*MemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream) = nullptr;
  CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void*, size_t, CUstream) = nullptr;
  CUresult (*MemcpyDtoHAsync)(void*, CUdeviceptr, size_t, CUstream) = nullptr;
  CUresult (*MemcpyDtoH)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*EventCreate)(CUevent*, unsigned) = nullptr;
  CUresult (*EventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*EventQuery)(CUevent) = nullptr;
  CUresult (*EventSynchronize)(CUevent) = nullptr;
  CUresult (*EventDestroy)(CUevent) = nullptr;
};

// False when libcuda is not loaded or lacks a required entry point; optional ones stay null.
bool LoadCudaDriver(CudaDriver* d);

}  // namespace strata::rt::gpu
