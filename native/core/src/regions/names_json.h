// A names table as JSON, the one shape every JSON output of the core gives it (`strata regions
// --format json` and `--list --format json`): [{"id", "name", "file", "line"}], file and line
// only where the names gave the marker's location. Typed: no "name@file:line" to split.
#pragma once

#include <nlohmann/json.hpp>

#include "strata/core/regions.h"

namespace strata::core::regions {

nlohmann::json NamesJson(const RegionNames& names);

}  // namespace strata::core::regions
