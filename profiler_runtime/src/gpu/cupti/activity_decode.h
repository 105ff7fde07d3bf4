// CUPTI activity records -> GpuActivity (kernel, memcpy, memset, synchronization).
#pragma once

#include <cupti.h>

#include "gpu/activity/gpu_activity.h"

namespace strata::rt::gpu {

// False for kinds the collector does not attribute (and stream-wait-event syncs). Sets only
// the fields of the record's kind: a reused `out` keeps the others.
bool DecodeActivity(const CUpti_Activity* r, GpuActivity* out);

}  // namespace strata::rt::gpu
