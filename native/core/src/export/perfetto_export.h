// What a profile has on a timeline, as a Perfetto protobuf trace (perfetto.protos.Trace of
// TracePackets: TrackDescriptors and TrackEvent slices), what ui.perfetto.dev and trace_processor
// open: each captured in-kernel region launch as a track with one child track per lane (warp
// group) holding its regions as nested slices, at the device's globaltimer times.
#pragma once

#include <string>

#include "strata/core/api.h"
#include "strata/core/profile_regions.h"

namespace strata::core::detail {

// Throws Error (one line) when the profile has no region launches: the calling context tree
// keeps per-call-path totals, not when each kernel ran, so nothing else has a time.
std::string ExportPerfetto(const Profile& profile, const regions::ProfileRegions& launches);

}  // namespace strata::core::detail
