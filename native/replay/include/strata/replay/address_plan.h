// The virtual address ranges a replay must reserve to put every region at its snapped address:
// each region widened to the allocation granularity, overlapping or touching ranges merged.
#pragma once

#include <cstdint>
#include <vector>

#include "strata/snapshot/snapshot.h"

namespace strata::replay {

struct Span {
  uint64_t start = 0, size = 0;
};

std::vector<Span> PlanSpans(const std::vector<snapshot::Region>& regions, uint64_t granularity);

}  // namespace strata::replay
