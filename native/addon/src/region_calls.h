// The in-kernel region calls of the addon (the timeline view's route to the core, as view() is
// the flame graph's): captured launches and decoded traces as typed-array columns.
#pragma once

#include <napi.h>

#include <memory>
#include <optional>

#include "profile_state.h"

namespace strata::addon {

// decodeRegions, writeRegionChromeTrace, regionLaunches, readRegionNames on the module's exports.
void ExportRegionCalls(Napi::Env env, Napi::Object exports);

// Profile.regionLaunchesOf(view, node[, metric]): the captured launches of the kernel at a view node.
Napi::Value RegionLaunchesOfNode(Napi::Env env, std::shared_ptr<ProfileState> state, ViewKind kind, size_t node,
                                 std::optional<size_t> metric);

}  // namespace strata::addon
