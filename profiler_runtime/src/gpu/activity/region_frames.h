// Captured region buffers (cupti/region_capture.h), decoded into region frames under their
// launch's kernel node: nesting as recorded, one frame per region id, metrics region_time,
// region_raw_time, region_wait_time per interval; loop iterations are frames flagged
// kFrameFlagIteration. Each launch (kernel, correlation id, clock rate, record cost, names, raw
// buffer) goes to the profile's region launches section. Final drain, aggregator thread.
#pragma once

#include <string>

#include "cct/cct.h"
#include "gpu/activity/attribution.h"

namespace strata::rt::gpu {

// Returns "decoder issues: ..." when the decoder reported any, else "".
std::string AddRegionFrames(Attribution& a, Cct::Unlocked& u);

}  // namespace strata::rt::gpu
