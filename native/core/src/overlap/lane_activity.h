// Per lane: time computing, loading, waiting and idle, and its bubbles (lane_activity.cpp).
#pragma once

#include <vector>

#include "trace_view.h"

namespace strata::core::overlap::detail {

void LaneActivities(const TraceView& view, double min_bubble_ns, std::vector<LaneActivity>* lanes,
                    std::vector<Bubble>* bubbles);

}  // namespace strata::core::overlap::detail
