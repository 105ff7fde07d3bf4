// A region names file (docs/regions.md), as `strata regions --names-file` and the timeline take
// it: a names table (`<stem>.names`: `id=name[@file:line]` per line, '#' comments) or a harness
// sidecar (`<stem>.json`: {"names": "1=load;2=mma", "clock_cycles_per_ns": 1.98}). Read here
// once; what comes out is typed (names with their marker's file and line, the clock rate).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "strata/core/regions.h"

namespace strata::core::regions {

struct NamesFile {
  RegionNames names;
  double cycles_per_ns = 0;  // the sidecar's device clock rate; 0 when the file gives none
};

// A names file's text. Throws Error with one line saying why it is not one ("not valid JSON
// (...)", "a JSON names file needs a \"names\" string ..."); malformed table entries are skipped
// (ParseNameTable).
NamesFile ParseNamesFile(std::string_view text);

// Reads and parses the file at `path`; nullopt with `*why` (one line, without the path) when it
// cannot be read or is not a names file.
std::optional<NamesFile> ReadNamesFile(const std::string& path, std::string* why);

}  // namespace strata::core::regions
