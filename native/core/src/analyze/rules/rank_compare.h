// What the rank rules (straggler, exposed-communication, rank-imbalance) share: each rank's
// steady-state compute and communication time on the merged profile of a distributed job, and
// the descent that finds the frame where one rank's time differs from the others'.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "../../runs/rank_phases.h"
#include "../analysis_context.h"
#include "strata/core/rank_run.h"

namespace strata::core::detail {

struct RankCompare {
  const RankRun* run = nullptr;
  size_t metric = 0;                  // wall_time, else cpu_time
  std::vector<RankTime> cls;          // per view node
  std::vector<char> compute_stored;   // per stored node: its values are steady compute
  std::vector<double> compute, communication;  // per rank (RankRun::ranks() order)
  double median_step = 0;             // median over ranks of compute + communication
};

// nullopt when the context has no ranks, fewer than two, or no time metric.
std::optional<RankCompare> CompareRanks(const AnalysisContext& cx);

double MedianOf(std::vector<double> v);

// From `start` down the compute nodes: at each step the child whose `score` (of its per-rank
// compute values) is largest, while it keeps at least half of `total`; stops early at the first
// frame of the user's code where `diverged` holds (the line that makes the difference). Returns
// the node reached.
size_t DescendToDifference(const AnalysisContext& cx, const RankCompare& rc, size_t start, double total,
                           const std::function<double(const RankSpread&)>& score,
                           const std::function<bool(const RankSpread&)>& diverged);

}  // namespace strata::core::detail
