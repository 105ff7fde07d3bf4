// Where `report` and `analyze` look for the modules of a profile recorded elsewhere: the
// --symbol-path folders, then $STRATA_SYMBOL_PATH (colon-separated).
#pragma once

#include <string>
#include <vector>

namespace strata::cli {

std::vector<std::string> SymbolPaths(const std::vector<std::string>& from_flags);

}  // namespace strata::cli
