// Region launches as profiles written before the region launches section carry them: each
// launch a ModuleRecord "regions:<mangled kernel>#<correlation id>" with a region_buffer blob
// (the raw bytes) and a region_info blob (text "names=<table>\ncycles_per_ns=..\n
// record_cost_cycles=.."), and loop iterations as region frames named "<loop> (iteration)".
// The one place that reads that form; everything after it is typed (docs/profile-format.md).
#pragma once

#include <string>
#include <vector>

#include "strata/core/profile_regions.h"
#include "strata/format/reader.h"

namespace strata::core::regions::detail {

// The launches of the blobs, in blob order (index and the demangled kernel left to the caller).
std::vector<CapturedLaunch> LegacyLaunches(const format::ProfileReader& r);

// A region frame name of the old form: takes off " (iteration)" and says whether it was there.
bool TakeLegacyIterationSuffix(std::string* name);

}  // namespace strata::core::regions::detail
