// A profile as pprof's profile.proto, gzipped (what `go tool pprof` and pprof's web UI read).
#pragma once

#include <string>

#include "strata/core/api.h"

namespace strata::core::detail {

std::string ExportPprof(const Profile& profile);

}  // namespace strata::core::detail
