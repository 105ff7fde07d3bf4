// Frames of special words (sampler/sample.h): operator frames and process-wide Python frames.
// Aggregator thread only (inside a drain, under the CCT lock).
#pragma once

#include <cstdint>

#include "cct/cct.h"

namespace strata::rt {

uint32_t SpecialFrame(uint64_t word, Cct::Unlocked& u);

}  // namespace strata::rt
