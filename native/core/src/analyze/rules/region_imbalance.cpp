// region-imbalance: the outermost regions of a kernel (one instance per lane: a block's warp
// group, warp or thread set) whose slowest instance runs much longer than the mean one. Reads
// `region_time`'s per-instance statistics (count, mean, max, std) on the region frames directly
// under a kernel frame. Where the profile's captured buffers can be read again (the profile's
// path is known), the lanes are decoded to tell the two causes apart, which need different
// changes: lanes of one block unequal (warp groups or warps of each block: a producer waiting
// for its consumer, unequal roles) or blocks unequal (tiles of unequal work, a tail, a slow SM).
#include <algorithm>
#include <map>

#include "../../value_format.h"
#include "builtin_rules.h"
#include "strata/core/profile_regions.h"

namespace strata::core::detail {

namespace {

struct Split {
  bool known = false;
  double within = 0;   // mean over blocks of (slowest lane / mean lane of the block) - 1
  double between = 0;  // (slowest block / mean block) - 1, a block lasting as long as its slowest lane
  size_t blocks = 0, lanes_per_block = 0;
};

Split SplitLanes(const regions::ProfileRegions& pr, const std::string& kernel, uint64_t region_id) {
  Split s;
  std::vector<double> within;
  std::vector<double> block_times;
  size_t lanes = 0;
  for (size_t i = 0; i < pr.launches.size(); ++i) {
    if (pr.launches[i].kernel != kernel) continue;
    regions::Trace t;
    try { t = regions::DecodeLaunch(pr, i); } catch (...) { continue; }
    std::vector<double> lane_time(t.lanes.size(), 0);
    for (const auto& iv : t.intervals)
      if (iv.parent < 0 && iv.region == region_id) lane_time[iv.lane] += iv.duration_ns();
    std::map<uint32_t, std::vector<double>> by_block;
    for (size_t l = 0; l < t.lanes.size(); ++l)
      if (lane_time[l] > 0) by_block[t.lanes[l].meta.block_linear].push_back(lane_time[l]);
    for (auto& [b, ts] : by_block) {
      double mx = *std::max_element(ts.begin(), ts.end()), sum = 0;
      for (double x : ts) sum += x;
      if (ts.size() > 1) within.push_back(mx / (sum / double(ts.size())) - 1);
      block_times.push_back(mx);
      lanes += ts.size();
    }
  }
  if (block_times.empty()) return s;
  s.known = true;
  s.blocks = block_times.size();
  s.lanes_per_block = lanes / block_times.size();
  for (double w : within) s.within += w / double(within.size());
  double sum = 0;
  for (double b : block_times) sum += b;
  s.between = *std::max_element(block_times.begin(), block_times.end()) / (sum / double(block_times.size())) - 1;
  return s;
}

}  // namespace

void RegionImbalance(const AnalysisContext& cx, const RuleParams& p, std::vector<Finding>& out) {
  auto time = cx.metric_index("region_time");
  if (!time || cx.total(*time) <= 0) return;
  const double max_over_mean = p["max_over_mean"], min_lanes = p["min_lanes"];
  std::optional<regions::ProfileRegions> pr;  // read on the first finding
  for (size_t v = 1; v < cx.size(); ++v) {
    if (cx.kind(v) != Kind::kRegion || cx.parent(v) <= 0 || cx.kind(size_t(cx.parent(v))) != Kind::kKernel) continue;
    const NodeMetric& t = cx.metric(v, *time);
    if (double(t.count) < min_lanes || t.mean <= 0) continue;
    const double spread = t.max / t.mean - 1;
    if (spread < max_over_mean) continue;
    const FrameInfo& f = cx.frame(v);
    const FrameInfo& k = cx.frame(size_t(cx.parent(v)));
    if (!pr && !cx.profile_path().empty()) {
      try { pr = regions::ReadProfileRegions(cx.profile_path()); } catch (...) { pr = regions::ProfileRegions{}; }
    }
    Split split = pr ? SplitLanes(*pr, k.name, f.address) : Split{};
    std::string msg = "The lanes of `" + k.name + "` are unbalanced in `" + Where(f.name, f.file, f.line) +
                      "`: the slowest of " + Count(double(t.count)) + " takes " + Percent(spread) +
                      " longer than the mean (" + Duration(t.max) + " vs " + Duration(t.mean) + ", spread " +
                      Duration(t.std) + " std, fastest " + Duration(t.min) + "). ";
    std::string cause = "lanes";
    if (split.known && split.lanes_per_block > 1 && split.within >= split.between) {
      cause = "within-block";
      msg += "The imbalance is inside each block: its " + Count(double(split.lanes_per_block)) +
             " warp groups (or warps) differ by " + Percent(split.within) + " on average while the " +
             Count(double(split.blocks)) + " blocks differ by " + Percent(split.between) +
             ". The block waits for its slowest group: balance the groups' roles (split the work of the busy one, "
             "give a waiting producer or consumer less to wait for: a deeper pipeline, more stages in flight), "
             "or move registers to the busy group (setmaxnreg).";
    } else if (split.known) {
      cause = "between-blocks";
      msg += "The imbalance is between blocks (" + Count(double(split.blocks)) + " blocks differ by " +
             Percent(split.between) + (split.lanes_per_block > 1 ? ", the groups inside a block by " +
                                                                        Percent(split.within)
                                                                  : std::string()) +
             "). The kernel lasts as long as its slowest block while the others idle: give blocks equal work "
             "(smaller or more tiles, a persistent or stream-K schedule) or look for data-dependent work.";
    } else {
      msg += "The kernel lasts as long as its slowest lane while the others idle: give blocks and the groups in a "
             "block equal work (smaller or more tiles, a persistent or stream-K schedule, balanced warp roles) or "
             "look for data-dependent work.";
    }
    Finding fd = cx.Make("region-imbalance", spread >= 2 * max_over_mean ? "warning" : "note", v, std::move(msg));
    fd.cause = cause;
    fd.evidence = {{"lanes", double(t.count), "count"},
                   {"max_over_mean", spread, "ratio"},
                   {"max", t.max, "ns"},
                   {"mean", t.mean, "ns"},
                   {"min", t.min, "ns"},
                   {"std", t.std, "ns"}};
    if (split.known) {
      fd.evidence.push_back({"within_block_max_over_mean", split.within, "ratio"});
      fd.evidence.push_back({"between_blocks_max_over_mean", split.between, "ratio"});
      fd.evidence.push_back({"blocks", double(split.blocks), "count"});
    }
    out.push_back(std::move(fd));
  }
}

}  // namespace strata::core::detail
