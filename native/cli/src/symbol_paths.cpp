#include "symbol_paths.h"

#include <cstdlib>

namespace strata::cli {

std::vector<std::string> SymbolPaths(const std::vector<std::string>& from_flags) {
  std::vector<std::string> out = from_flags;
  if (const char* env = std::getenv("STRATA_SYMBOL_PATH")) {
    std::string list = env;
    for (size_t start = 0; start <= list.size();) {
      size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      if (end > start) out.push_back(list.substr(start, end - start));
      start = end + 1;
    }
  }
  return out;
}

}  // namespace strata::cli
