// The names-table grammar (strata/region_decoder/names.h).
#include "strata/region_decoder/names.h"

#include <cstdlib>

#include "strata/region_decoder/buffer_layout.h"

namespace strata::region_decoder {

namespace {

std::string_view Trim(std::string_view v) {
  const size_t b = v.find_first_not_of(" \t\r"), e = v.find_last_not_of(" \t\r");
  return b == std::string_view::npos ? std::string_view() : v.substr(b, e - b + 1);
}

}  // namespace

RegionNames ParseNameTable(std::string_view table) {
  RegionNames names;
  // Entries end at ';' or at a line's end; '#' starts a comment entry (as the extension reads them).
  while (!table.empty()) {
    const size_t stop = table.find_first_of(";\n");
    std::string_view item = Trim(table.substr(0, stop));
    table = stop == std::string_view::npos ? std::string_view() : table.substr(stop + 1);
    if (item.empty() || item[0] == '#') continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    const std::string_view id_text = Trim(item.substr(0, eq));
    if (id_text.empty() || id_text.size() > 4 || id_text.find_first_not_of("0123456789") != std::string_view::npos) continue;
    const long id = std::strtol(std::string(id_text).c_str(), nullptr, 10);
    if (id > long(kMaxRegionId)) continue;
    names[static_cast<uint16_t>(id)] = ParseNameEntry(Trim(item.substr(eq + 1)));
  }
  return names;
}

RegionName ParseNameEntry(std::string_view entry) {
  RegionName out{std::string(entry), "", 0};
  const size_t at = entry.rfind('@'), colon = entry.rfind(':');
  if (at == std::string_view::npos || colon == std::string_view::npos || colon < at + 2 || colon + 1 >= entry.size())
    return out;
  long line = 0;
  for (size_t i = colon + 1; i < entry.size(); ++i) {
    if (entry[i] < '0' || entry[i] > '9' || line > 100000000) return out;
    line = line * 10 + (entry[i] - '0');
  }
  if (line <= 0) return out;
  std::string_view name = entry.substr(0, at);
  while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.remove_suffix(1);
  out.name = std::string(name);
  std::string_view file = entry.substr(at + 1, colon - at - 1);
  while (!file.empty() && (file.front() == ' ' || file.front() == '\t')) file.remove_prefix(1);
  out.file = std::string(file);
  out.line = uint32_t(line);
  return out;
}

RegionName NameOf(const RegionNames& names, uint16_t id) {
  auto n = names.find(id);
  return n != names.end() ? n->second : RegionName{"region " + std::to_string(id), "", 0};
}

}  // namespace strata::region_decoder
