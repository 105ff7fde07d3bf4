// What a profile has on a timeline, as a Perfetto protobuf trace (perfetto.protos.Trace of
// TracePackets: TrackDescriptors and TrackEvent slices), what ui.perfetto.dev and trace_processor
// open: the GPU activity timeline as one track per device with a child track per stream, each
// kernel, copy and set a slice whose arguments carry its launch's call path, in host time; and
// each captured in-kernel region launch as a track with one child track per lane (warp group)
// holding its regions as nested slices, at the device's globaltimer times.
#pragma once

#include <string>

#include "strata/core/api.h"
#include "strata/core/profile_regions.h"
#include "gpu_timeline.h"

namespace strata::core::detail {

// Throws Error (one line) when the profile has neither GPU activities nor region launches: the
// calling context tree keeps per-call-path totals, not when each kernel ran.
std::string ExportPerfetto(const Profile& profile, const regions::ProfileRegions& launches,
                           const GpuTimeline& timeline);

}  // namespace strata::core::detail
