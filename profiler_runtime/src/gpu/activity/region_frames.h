// Captured region buffers (cupti/region_capture.h), decoded into region frames under their
// launch's kernel node: nesting as recorded, one frame per region id, metrics region_time,
// region_raw_time, region_wait_time per interval. The raw buffer and how it was decoded go with
// the profile. Final drain, aggregator thread.
#pragma once

#include <string>

#include "cct/cct.h"
#include "gpu/activity/attribution.h"

namespace strata::rt::gpu {

// Returns "decoder issues: ..." when the decoder reported any, else "".
std::string AddRegionFrames(Attribution& a, Cct::Unlocked& u);

}  // namespace strata::rt::gpu
