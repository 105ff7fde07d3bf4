// The critical path of each block through its lanes (critical_path.cpp).
#pragma once

#include <vector>

#include "trace_view.h"

namespace strata::core::overlap::detail {

std::vector<BlockPath> CriticalPaths(const TraceView& view, const std::vector<DependencyEdge>& edges);
// Each region's time on the paths (untracked and sync hops as regions -1 and -2), largest first.
std::vector<PathRegion> PathRegions(const TraceView& view, const std::vector<BlockPath>& paths);

}  // namespace strata::core::overlap::detail
