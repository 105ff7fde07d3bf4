// The ranks' compute / communication / startup / idle split (RankPhases), from the merged
// profile's top-down view (its nodes classified once) and each rank's values.
#pragma once

#include <optional>
#include <vector>

#include "../analyze/analysis_context.h"
#include "strata/core/rank_run.h"

namespace strata::core::detail {

// What a view node's time is to its rank.
enum class RankTime : uint8_t {
  kOther,          // not the main thread (library threads waiting for work), or the profiler's own
  kCompute,        // the main thread in the steady state, outside collectives
  kCommunication,  // the main thread in the steady state, under a collective call
  kStartup,        // the main thread in imports, construction, compilation, warm-up, shutdown
};

// The metric the split is of: wall_time (wall-clock sampling sees waits) else cpu_time.
std::optional<size_t> RankTimeMetric(const Profile& profile);
// Per view node of cx's top-down view.
std::vector<RankTime> ClassifyRankTime(const AnalysisContext& cx);
// Per stored node of the profile: the class of the view node its values land at.
std::vector<char> StoredOfClass(const AnalysisContext& cx, const std::vector<RankTime>& cls, RankTime which);

std::vector<RankPhases> RankPhasesOf(const AnalysisContext& cx, const RankRun& run,
                                     const std::vector<std::optional<double>>& gpu_overlap);
// What RankRun classifies once from one context: the split per rank, and per stored node of
// the profile the phase of the view node its values land at (kProfiler where they land nowhere).
struct RankClasses {
  std::vector<RankPhases> phases;
  std::vector<Phase> stored_phase;
};
RankClasses ClassifyRankRun(const RankRun& run, const std::vector<std::optional<double>>& gpu_overlap);

}  // namespace strata::core::detail
