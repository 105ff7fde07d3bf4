// What each lane group (warp group, warp or thread set) of a decoded trace spends its time on.
#pragma once

#include <cstdint>
#include <vector>

#include "strata/region_decoder/trace.h"

namespace strata::region_decoder {

// Per lane group (warp group, warp or thread set), each region's share of the group's time:
// its intervals' time over the group's outermost intervals (a loop with an interval of its own
// counts once, not per iteration; repeated instances without one, e.g. Proton's scopes, count
// themselves). Empty when all lanes are in one group. Regions largest share first.
struct RegionShare {
  uint16_t region = 0;
  double share = 0;
  bool outermost = false;  // outermost in some lane of the group
  bool container = false;  // other regions nest inside it
  bool async = false;      // an async region (issue to arrival): overlaps the work
};
struct GroupShare {
  uint32_t group = 0;
  uint32_t lanes = 0;
  std::vector<RegionShare> regions;
};
std::vector<GroupShare> GroupShares(const Trace& trace);

}  // namespace strata::region_decoder
