// Collectives, device side: NCCL's kernels in the GPU activity timeline become collective sites
// with kCollectiveOnDevice at the kernel's tree node (under its launch's call path), the
// collective told from the kernel's name (collective_kind.h). Counts and times only: the
// kernels' own times are on the GPU tracer's clock and stay in the GPU activities section.
// Untested on a GPU (no NCCL run was possible where this was written); unit-tested on
// synthetic timeline records. Kernels past the timeline's limit (STRATA_GPU_TIMELINE) are not
// seen here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>

#include "cct/cct.h"

namespace strata::rt::collectives {

class DeviceSites {
 public:
  // Aggregator thread, under the CCT lock: the timeline records added since the last call.
  void Update(Cct::Unlocked& u);
  void Reset() { *this = DeviceSites(); }

 private:
  size_t seen_ = 0;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> sites_;  // (node, op) -> site index
};

}  // namespace strata::rt::collectives
