// A profile in speedscope's file format (https://www.speedscope.app/file-format-schema.json).
#pragma once

#include <string>

#include "strata/core/api.h"

namespace strata::core::detail {

std::string ExportSpeedscope(const Profile& profile);

}  // namespace strata::core::detail
