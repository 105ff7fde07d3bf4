// One GPU activity record, whatever the vendor API that reported it (CUPTI's kernel, memcpy,
// memset and synchronization records are decoded into it by cupti/activity_decode.cpp).
#pragma once

#include <cstdint>
#include <string>

namespace strata::rt::gpu {

enum class GpuActivityKind : uint8_t { kNone = 0, kKernel = 1, kMemcpy = 2, kMemset = 3, kSync = 4 };

// Direction of a copy (host, device, array, peer); kOther when the API did not say.
enum class CopyKind : uint8_t { kOther = 0, kHtoD, kDtoH, kHtoA, kAtoH, kAtoA, kAtoD, kDtoA, kDtoD, kHtoH, kPtoP };

struct GpuActivity {
  GpuActivityKind kind = GpuActivityKind::kNone;
  CopyKind copy_kind = CopyKind::kOther;  // memcpy
  uint32_t correlation_id = 0;            // the API call that caused it
  uint32_t device = 0;                    // kernel, memcpy, memset
  uint32_t context = 0, stream = 0;       // the tracer's ids (kernel, memcpy, memset)
  uint64_t start_ns = 0, end_ns = 0;      // the tracer's clock (end >= start)
  uint64_t duration_ns = 0;
  uint64_t bytes = 0;                     // memcpy, memset
  int64_t grid_blocks = 0, block_threads = 0;  // kernel launch configuration
  uint32_t grid[3] = {}, block[3] = {};        //   per dimension
  int32_t registers_per_thread = 0, static_shared_bytes = 0, dynamic_shared_bytes = 0;
  std::string name;                       // kernel, mangled
};

}  // namespace strata::rt::gpu
