// The viewer's diff mode through the addon: two open profiles compared by the core
// (strata/core/profile_diff.h), B's view as the flame graph's columns with A's value per node.
#pragma once

#include <napi.h>

#include <memory>
#include <string>

#include "profile_state.h"
#include "view_calls.h"

namespace strata::addon {

// b.diffAgainst(a[, metric[, first]]): {metric, unit, totalA, totalB, commonPaths, fuzzyPaths,
// nodes (B's view's), largestChange, the view's frame table and node columns (as view(): its
// first part with `first`, else the whole view), baseline (Float64Array: A's inclusive value per
// node sent), match (Uint8Array: DiffMatch per node sent), rows (the largest gains and losses:
// frame, A, B, match, B's node, the user's line on the path), appeared and vanished kernels,
// part(node, bound) / path(node) (promises of a part's columns with baseline and match, as
// viewPart's; path: the nodes from the root to `node`), frameOf(node)}.
Napi::Value QueueDiff(Napi::Env env, std::shared_ptr<ProfileState> a, std::shared_ptr<ProfileState> b,
                      std::string metric, std::optional<FirstPart> first);

}  // namespace strata::addon
