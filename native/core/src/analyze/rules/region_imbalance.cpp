// region-imbalance: the outermost regions of a kernel (one instance per lane: a block's warp
// group, warp or thread set) whose slowest instance runs much longer than the mean one. The
// kernel lasts as long as its slowest block, so the others idle at the end (a tail): unequal
// tiles, data-dependent work, or a straggler SM. Reads `region_time`'s per-instance statistics
// (count, mean, max, std) on the region frames directly under a kernel frame.
#include "../../value_format.h"
#include "builtin_rules.h"

namespace strata::core::detail {

void RegionImbalance(const AnalysisContext& cx, const RuleParams& p, std::vector<Finding>& out) {
  auto time = cx.metric_index("region_time");
  if (!time || cx.total(*time) <= 0) return;
  const double max_over_mean = p["max_over_mean"], min_lanes = p["min_lanes"];
  for (size_t v = 1; v < cx.size(); ++v) {
    if (cx.kind(v) != Kind::kRegion || cx.parent(v) <= 0 || cx.kind(size_t(cx.parent(v))) != Kind::kKernel) continue;
    const NodeMetric& t = cx.metric(v, *time);
    if (double(t.count) < min_lanes || t.mean <= 0) continue;
    const double spread = t.max / t.mean - 1;
    if (spread < max_over_mean) continue;
    const FrameInfo& f = cx.frame(v);
    const FrameInfo& k = cx.frame(size_t(cx.parent(v)));
    std::string msg = "The lanes of `" + k.name + "` are unbalanced in `" + Where(f.name, f.file, f.line) + "`: the slowest of " +
                      std::to_string(t.count) + " takes " + Percent(spread) + " longer than the mean (" + Duration(t.max) +
                      " vs " + Duration(t.mean) + ", spread " + Duration(t.std) + " std, fastest " + Duration(t.min) +
                      "). The kernel lasts as long as its slowest block while the others idle: give blocks equal work "
                      "(smaller or more tiles, a persistent or stream-K schedule) or look for data-dependent work.";
    Finding fd = cx.Make("region-imbalance", spread >= 2 * max_over_mean ? "warning" : "note", v, std::move(msg));
    fd.evidence = {{"lanes", double(t.count), "count"},
                   {"max_over_mean", spread, "ratio"},
                   {"max", t.max, "ns"},
                   {"mean", t.mean, "ns"},
                   {"min", t.min, "ns"},
                   {"std", t.std, "ns"}};
    out.push_back(std::move(fd));
  }
}

}  // namespace strata::core::detail
