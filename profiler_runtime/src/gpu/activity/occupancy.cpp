#include "gpu/activity/occupancy.h"

#include <cuda.h>
#include <dlfcn.h>

namespace strata::rt::gpu {

double OccupancyCalculator::Of(uint32_t device, int64_t threads, int regs, int64_t smem) {
  return Occupancy(Limits(device), threads, regs, smem);
}

// Read once per device from the driver the program loaded (looked up, never linked).
const OccupancyCalculator::DeviceLimits& OccupancyCalculator::Limits(uint32_t device) {
  if (devices_.size() <= device) devices_.resize(device + 1);
  DeviceLimits& d = devices_[device];
  if (d.ok) return d;
  using GetFn = int (*)(int*, int, int);
  using DevFn = int (*)(int*, int);
  auto get = reinterpret_cast<GetFn>(dlsym(RTLD_DEFAULT, "cuDeviceGetAttribute"));
  auto dev = reinterpret_cast<DevFn>(dlsym(RTLD_DEFAULT, "cuDeviceGet"));
  int h = 0;
  if (!get || !dev || dev(&h, int(device)) != 0) return d;
  bool ok = get(&d.max_threads_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, h) == 0 &&
            get(&d.max_blocks_sm, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, h) == 0 &&
            get(&d.regs_sm, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, h) == 0 &&
            get(&d.smem_sm, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, h) == 0;
  if (get(&d.smem_reserved_block, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, h) != 0)
    d.smem_reserved_block = 0;
  d.ok = ok && d.max_threads_sm > 0;
  return d;
}

// Register allocation in 256-register units per warp, shared memory per block plus the
// reserved part.
double OccupancyCalculator::Occupancy(const DeviceLimits& d, int64_t threads, int regs, int64_t smem) {
  if (!d.ok || threads <= 0) return -1;
  int64_t warps = (threads + 31) / 32;
  int64_t max_warps = d.max_threads_sm / 32;
  int64_t blocks = max_warps / warps;
  if (d.max_blocks_sm > 0 && d.max_blocks_sm < blocks) blocks = d.max_blocks_sm;
  if (regs > 0) {
    int64_t per_warp = ((int64_t(regs) * 32 + 255) / 256) * 256;
    int64_t by_regs = (d.regs_sm / per_warp) / warps;
    if (by_regs < blocks) blocks = by_regs;
  }
  int64_t per_block = smem + d.smem_reserved_block;
  if (smem > 0 && per_block > 0) {
    int64_t by_smem = d.smem_sm / per_block;
    if (by_smem < blocks) blocks = by_smem;
  }
  if (blocks < 0) blocks = 0;
  return double(blocks * warps) / double(max_warps);
}

}  // namespace strata::rt::gpu
