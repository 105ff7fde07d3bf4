// Theoretical occupancy of a kernel launch (active warps / max warps per SM) from its launch
// configuration and the device's per-SM limits, as the CUDA occupancy calculator does.
#pragma once

#include <cstdint>
#include <vector>

namespace strata::rt::gpu {

class OccupancyCalculator {
 public:
  // -1 when the device's limits are unknown (no driver entry point) or threads <= 0.
  double Of(uint32_t device, int64_t threads, int regs, int64_t smem);

 private:
  struct DeviceLimits {
    bool ok = false;
    int max_threads_sm = 0, max_blocks_sm = 0, regs_sm = 0, smem_sm = 0, smem_reserved_block = 0;
  };
  const DeviceLimits& Limits(uint32_t device);
  static double Occupancy(const DeviceLimits& d, int64_t threads, int regs, int64_t smem);
  std::vector<DeviceLimits> devices_;
};

}  // namespace strata::rt::gpu
