// What a frame says about communication between ranks: the calls that issue a collective or
// wait for one, as recorded (Python API, c10d operators, the wait of a work object, NCCL
// kernels). Decided from the frame's kind and name alone.
#pragma once

#include <string_view>

#include "strata/core/api.h"

namespace strata::core::detail {

bool IsCollectiveFrameInfo(const FrameInfo& frame);
// A GPU kernel that moves data between ranks (NCCL's kernels: ncclKernel_*, ncclDevKernel_*).
bool IsCollectiveKernelName(std::string_view name);

}  // namespace strata::core::detail
