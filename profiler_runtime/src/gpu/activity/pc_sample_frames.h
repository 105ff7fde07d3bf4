// PC samples (cupti/pc_sampling.h) as pc frames below the kernel nodes of their function, with
// metrics pc_samples and stall_<reason>; the cubins they point into go with the profile. Only
// the heaviest (kernel node, instruction) pairs get a pc frame (pc_detail.h); the others'
// samples are counted on the kernel node itself. Final drain, aggregator thread.
#pragma once

#include "cct/cct.h"
#include "gpu/activity/attribution.h"

namespace strata::rt::gpu {

// The launch's own node when CUPTI tagged the launch (serialized mode), else shared among the
// function's nodes by GPU time.
void AddPcSampleFrames(Attribution& a, Cct::Unlocked& u);

}  // namespace strata::rt::gpu
