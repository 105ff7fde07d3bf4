// Frame kinds by name and number, both from the format's one list (strata/format/reader.h).
#include "strata/core/api.h"
#include "strata/format/reader.h"

namespace strata::core {

const std::vector<std::string>& FrameKindNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (uint32_t k = 0; const char* name = format::FrameKindName(k); ++k) out.push_back(name);
    return out;
  }();
  return names;
}

int FrameKindCode(const std::string& kind) {
  const auto& names = FrameKindNames();
  for (size_t k = 0; k < names.size(); ++k)
    if (names[k] == kind) return int(k);
  return -1;
}

}  // namespace strata::core
