// Which collective a framework's name stands for: torch.distributed's work titles
// ("gloo:all_reduce", "nccl:all_reduce", "mpi:...", "ucc:..."), split into backend and
// collective once, here, and NCCL's kernel names (ncclKernel_AllReduce_RING_LL_Sum_float,
// ncclDevKernel_AllGather_RING_LL) for the device side.
#pragma once

#include <string>
#include <string_view>

#include "strata/format/layout.h"

namespace strata::rt::collectives {

// "all_reduce", "allreduce", "_allgather_base", "reduce_scatter_tensor_coalesced", ... -> op.
strata::format::CollectiveOp OpOfName(std::string_view name);

struct WorkTitle {
  std::string backend;     // "gloo", "nccl", "mpi", "ucc"
  std::string collective;  // "all_reduce", "broadcast", ...
};
// A process group work's profiling title; false for any other name (a user's record_function).
bool ParseWorkTitle(std::string_view title, WorkTitle* out);

// An NCCL kernel's name -> its collective; kOther when the name is not an NCCL collective kernel.
strata::format::CollectiveOp OpOfNcclKernel(std::string_view kernel);

}  // namespace strata::rt::collectives
