// The names table as JSON records (names_json.h).
#include "names_json.h"

namespace strata::core::regions {

nlohmann::json NamesJson(const RegionNames& names) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [id, n] : names) {
    nlohmann::json o = {{"id", id}, {"name", n.name}};
    if (!n.file.empty()) {
      o["file"] = n.file;
      o["line"] = n.line;
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace strata::core::regions
