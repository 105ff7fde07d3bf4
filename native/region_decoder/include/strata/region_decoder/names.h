// Region names: what each region id of a kernel is called, and where its marker is.
// Users write them as a names table (regions.cuh STRATA_REGION_NAMES, `strata regions --names`,
// a .names file): `id=name` entries separated by ';' or by newlines ('#' starts a comment line),
// an entry may end in `@file:line`, the marker's source line. ParseNameTable is the one place
// that grammar is read; everything after it holds the typed RegionName.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace strata::region_decoder {

struct RegionName {
  std::string name;
  std::string file;   // the marker's source file as written; "" when the entry has no location
  uint32_t line = 0;  // 1-based; 0 when no location
  bool operator==(const RegionName& o) const { return name == o.name && file == o.file && line == o.line; }
  bool operator!=(const RegionName& o) const { return !(*this == o); }
};
using RegionNames = std::map<uint16_t, RegionName>;

// The table -> id (0..4095) -> name. Malformed entries (no '=', an id that is not 0..4095) are
// skipped; a repeated id: the last entry wins.
RegionNames ParseNameTable(std::string_view table);
// One entry's text after "id=": "load@kernels.cuh:75" -> {"load", "kernels.cuh", 75}; an entry
// without a location (or with something else after an '@') is all name.
RegionName ParseNameEntry(std::string_view entry);
// A region's name: the table's, or "region <id>" when the table lacks it.
RegionName NameOf(const RegionNames& names, uint16_t id);

}  // namespace strata::region_decoder
