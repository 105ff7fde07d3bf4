// A stored region frame as the core reads it: its name and whether it is one iteration of a
// loop, from the frame flag or, in profiles written before the flag, from the name suffix.
#pragma once

#include <string>

#include "strata/format/reader.h"

namespace strata::core::regions::detail {

struct StoredRegionFrame {
  std::string name;        // the region's name, no suffix
  bool iteration = false;  // one iteration of a loop (format::kFrameFlagIteration)
};
// `f` is a kRegion frame of `r`.
StoredRegionFrame ReadRegionFrame(const format::ProfileReader& r, const format::FrameRecord& f);

}  // namespace strata::core::regions::detail
