// Frames of special words (sampler/sample.h): operator frames and process-wide Python frames.
// Aggregator thread only (inside a drain, under the CCT lock). Interns the frame in `u`'s CCT
// each call: the caller keeps the word -> frame cache beside that CCT (a forked child's new CCT
// must not be handed the parent's frame ids).
#pragma once

#include <cstdint>

#include "cct/cct.h"

namespace strata::rt {

uint32_t SpecialFrame(uint64_t word, Cct::Unlocked& u);

}  // namespace strata::rt
