// Which lane released which wait, per block (dependency_edges.cpp).
#pragma once

#include <vector>

#include "trace_view.h"

namespace strata::core::overlap::detail {

std::vector<DependencyEdge> FindDependencyEdges(const TraceView& view);

}  // namespace strata::core::overlap::detail
