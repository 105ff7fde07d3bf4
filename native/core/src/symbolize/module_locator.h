// Finds the local file to symbolize a recorded module from. A profile names modules by the path
// they had where it was recorded (maybe another machine, a container, a remote GPU host): the
// file at that path is used only when its build id matches; otherwise the symbol paths are
// searched for a file of the same name with that build id, then the standard debug-file store
// (<dir>/.build-id/ab/cdef….debug).
#pragma once

#include <string>
#include <vector>

#include "symbolizer.h"

namespace strata::core::detail {

// "" when no local file is the recorded one. A module recorded without a build id is taken at
// its path (when that is a regular file), as there is nothing to check it against.
std::string LocateModule(const std::string& recorded_path, const std::string& build_id,
                         const std::vector<std::string>& symbol_paths, Symbolizer& symbolizer);

}  // namespace strata::core::detail
