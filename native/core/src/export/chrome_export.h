// The GPU activity timeline as a Chrome Trace Event JSON file (what chrome://tracing, Perfetto's
// UI and most trace viewers open): a process per device, a thread per stream, a complete ("X")
// event per kernel, copy and set whose args carry the launch's call path.
#pragma once

#include <string>

#include "gpu_timeline.h"
#include "strata/core/api.h"

namespace strata::core::detail {

// Throws Error (one line) when the profile has no GPU activity timeline.
std::string ExportChrome(const Profile& profile, const GpuTimeline& timeline);

}  // namespace strata::core::detail
