// What each lane group (warp group, warp or thread set) of a decoded trace spends its time on:
// per group, each region's time over the group's outermost regions. A loop with an interval of
// its own counts once, not once more per iteration; repeated instances without one (Proton's
// scopes) count themselves. Regions nest and async loads overlap, so shares need not add up to
// 100%. One implementation for the CLI's text summary and the JSON the timeline reads.
#include <algorithm>
#include <map>
#include <set>

#include "strata/region_decoder/group_shares.h"

namespace strata::region_decoder {

std::vector<GroupShare> GroupShares(const Trace& t) {
  struct Acc {
    uint32_t lanes = 0;
    double top_ns = 0;
    std::map<uint16_t, double> ns;
    std::vector<uint16_t> order;  // first seen
    std::set<uint16_t> outer, container, async, looped;
  };
  std::map<uint32_t, Acc> groups;
  for (const Lane& l : t.lanes) ++groups[l.meta.group].lanes;
  if (groups.size() < 2) return {};
  for (const Interval& iv : t.intervals)
    if (iv.iteration < 0) groups[t.lanes[iv.lane].meta.group].looped.insert(iv.region);
  for (const Interval& iv : t.intervals) {
    Acc& a = groups[t.lanes[iv.lane].meta.group];
    if (iv.depth == 0) { a.top_ns += iv.duration_ns(); a.outer.insert(iv.region); }
    if (iv.parent >= 0 && size_t(iv.parent) < t.intervals.size() && t.intervals[size_t(iv.parent)].region != iv.region)
      a.container.insert(t.intervals[size_t(iv.parent)].region);
    if (iv.wait_ns >= 0) a.async.insert(iv.region);
    if (iv.iteration >= 0 && a.looped.count(iv.region)) continue;
    if (!a.ns.count(iv.region)) a.order.push_back(iv.region);
    a.ns[iv.region] += iv.duration_ns();
  }
  std::vector<GroupShare> out;
  for (const auto& [id, a] : groups) {
    GroupShare g{id, a.lanes, {}};
    if (a.top_ns > 0)
      for (uint16_t r : a.order)
        g.regions.push_back({r, a.ns.at(r) / a.top_ns, a.outer.count(r) > 0, a.container.count(r) > 0, a.async.count(r) > 0});
    std::stable_sort(g.regions.begin(), g.regions.end(), [](const RegionShare& x, const RegionShare& y) { return x.share > y.share; });
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace strata::region_decoder
