// Whether a snapshot can be replayed on this GPU and driver: "" or one line saying why not.
#pragma once

#include <string>

#include "strata/snapshot/snapshot.h"

namespace strata::replay {

std::string CheckDevice(const snapshot::Device& snapped, const snapshot::Device& here, bool any_driver);

}  // namespace strata::replay
