// Roles and their per-iteration stages, the SWP / WS models and what they predict for a change
// (pipeline_models.cpp).
#pragma once

#include <vector>

#include "trace_view.h"

namespace strata::core::overlap::detail {

std::vector<Role> BuildRoles(const TraceView& view, const std::vector<DependencyEdge>& edges,
                             const std::vector<LaneActivity>& lanes);
PipelineModel BuildModel(const TraceView& view, const std::vector<DependencyEdge>& edges, const std::vector<Role>& roles,
                         const std::vector<BlockPath>& paths);
// Findings from the model (or, without one, from the critical path): the region whose
// shortening shortens the kernel most, a release that could come earlier, another stage.
std::vector<OverlapFinding> ModelFindings(const PipelineModel& model, const std::vector<Role>& roles,
                                          const std::vector<PathRegion>& path_regions, const RegionNames& names,
                                          double min_gain_share);

}  // namespace strata::core::overlap::detail
