// The rank calls of the addon: a distributed job's run folder opened with its rank dimension
// (the core's RankRun) as a Profile, and on such a Profile its ranks, their compute /
// communication / idle split, and a view node's values over the ranks.
#pragma once

#include <napi.h>

#include <memory>
#include <optional>

#include "profile_state.h"

namespace strata::addon {

// openRankRun(path) on the module's exports.
void ExportRankCalls(Napi::Env env, Napi::Object exports, Napi::FunctionReference* profile_ctor);

// profile.ranks(): {ranks: [...], missingRanks: number[], leftOut: string[]}, or null for a
// profile not opened by openRankRun.
Napi::Value RanksOf(Napi::Env env, const std::shared_ptr<ProfileState>& state);
// profile.rankPhases() -> Promise<[{rank, metric, windowNs, computeNs, communicationNs,
// startupNs, idleNs, overlapShare (null: no GPU activity)}]>; [] without ranks.
Napi::Value QueueRankPhases(Napi::Env env, std::shared_ptr<ProfileState> state);
// profile.rankSteps() -> Promise<{collective, file, line, steps: [{arriveUnixNs, computeNs,
// communicationNs (Float64Array per rank, ranks() order), lastRank, arrivalSpreadNs}]}>; steps
// empty without recorded collectives or ranks.
Napi::Value QueueRankSteps(Napi::Env env, std::shared_ptr<ProfileState> state);
// profile.rankTimeline([maxSlices]) -> Promise<RankTimeline | null> (index.d.ts: columns per
// slice); null for a profile not opened by openRankRun.
Napi::Value QueueRankTimeline(Napi::Env env, std::shared_ptr<ProfileState> state, std::optional<size_t> max_slices);
// profile.rankSpread(kind, node[, metricIndex]) -> Promise<{ranks: Int32Array, values:
// Float64Array, min, median, max, minRank, maxRank} | null>, for a node of the view last built
// for `kind` (metric: that view's); null for an unknown node or without ranks.
Napi::Value QueueRankSpread(Napi::Env env, std::shared_ptr<ProfileState> state, strata::core::ViewKind kind, size_t node,
                            std::optional<size_t> metric);

}  // namespace strata::addon
