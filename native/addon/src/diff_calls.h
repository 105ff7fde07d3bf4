// The viewer's diff mode through the addon: two open profiles compared by the core
// (strata/core/profile_diff.h), B's view as the flame graph's columns with A's value per node.
#pragma once

#include <napi.h>

#include <memory>
#include <string>

#include "profile_state.h"

namespace strata::addon {

// b.diffAgainst(a[, metric]): {metric, unit, totalA, totalB, commonPaths, fuzzyPaths, view's
// frame table and whole node columns (as view()), baseline (Float64Array: A's inclusive value
// per node), match (Uint8Array: DiffMatch per node), rows (the largest gains and losses: frame,
// A, B, match, B's node, the user's line on the path), appeared and vanished kernels}.
Napi::Value QueueDiff(Napi::Env env, std::shared_ptr<ProfileState> a, std::shared_ptr<ProfileState> b,
                      std::string metric);

}  // namespace strata::addon
