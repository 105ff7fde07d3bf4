// The critical path of a block: from the end of the lane that finishes last, back along that
// lane until the latest wait it was released from while waiting (a binding edge), then over to
// the releasing lane at the release, and so on to a lane's start. What lies on it is what the
// block's time depends on; a lane's time spent waiting for a release is off it.
#include "critical_path.h"

#include <algorithm>
#include <map>

namespace strata::core::overlap::detail {

std::vector<BlockPath> CriticalPaths(const TraceView& v, const std::vector<DependencyEdge>& edges) {
  // Binding edges into each lane, by aligned wait end.
  std::vector<std::vector<std::pair<double, uint32_t>>> into(v.lanes.size());
  for (size_t e = 0; e < edges.size(); ++e)
    if (edges[e].binding) into[edges[e].to_lane].emplace_back(edges[e].wait_end_ns + v.lanes[edges[e].to_lane].shift_ns, uint32_t(e));
  for (auto& x : into) std::sort(x.begin(), x.end());
  std::vector<BlockPath> out;
  for (const auto& [block, lanes] : v.blocks) {
    BlockPath p;
    p.block = block;
    uint32_t lane = lanes.front();
    double first = 1e300;
    for (uint32_t l : lanes) {
      first = std::min(first, v.lanes[l].start_ns);
      if (v.lanes[l].end_ns > v.lanes[lane].end_ns) lane = l;
    }
    double t = v.lanes[lane].end_ns;
    p.span_ns = t - first;
    auto push = [&](uint32_t l, double a, double b, bool sync) {
      if (b <= a) return;
      p.segments.push_back(PathSegment{l, a - v.lanes[l].shift_ns, b - v.lanes[l].shift_ns, sync});
    };
    for (size_t guard = 0; guard <= edges.size() + lanes.size(); ++guard) {
      const auto& in = into[lane];
      // The latest binding wait that ended by t and was released before t.
      int32_t pick = -1;
      for (auto it = std::upper_bound(in.begin(), in.end(), std::make_pair(t, UINT32_MAX)); it != in.begin();) {
        --it;
        const DependencyEdge& e = edges[it->second];
        const double release = e.release_ns + v.lanes[e.from_lane].shift_ns;
        if (release < t && release >= v.lanes[e.from_lane].start_ns) { pick = int32_t(it->second); break; }
      }
      if (pick < 0) {
        push(lane, v.lanes[lane].start_ns, t, false);
        break;
      }
      const DependencyEdge& e = edges[size_t(pick)];
      const double we = e.wait_end_ns + v.lanes[lane].shift_ns;
      const double release = e.release_ns + v.lanes[e.from_lane].shift_ns;
      push(lane, we, t, false);
      push(lane, std::max(release, e.wait_start_ns + v.lanes[lane].shift_ns), we, true);
      p.edges.push_back(uint32_t(pick));
      ++p.lane_switches;
      t = release;
      lane = e.from_lane;
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<PathRegion> PathRegions(const TraceView& v, const std::vector<BlockPath>& paths) {
  const Trace& t = *v.trace;
  std::map<int32_t, double> ns;
  double spans = 0;
  for (const BlockPath& p : paths) {
    spans += p.span_ns;
    for (const PathSegment& s : p.segments) {
      const double len = s.end_ns - s.start_ns;
      if (s.sync) { ns[-2] += len; continue; }
      double covered = 0;
      for (uint32_t i : v.lanes[s.lane].intervals) {
        if (!v.innermost[i] || v.async[i]) continue;
        const auto& iv = t.intervals[i];
        const double o = std::min(iv.end_ns, s.end_ns) - std::max(iv.start_ns, s.start_ns);
        if (o > 0) { ns[iv.region] += o; covered += o; }
      }
      if (len > covered) ns[-1] += len - covered;
    }
  }
  std::map<uint16_t, Activity> act;
  for (size_t i = 0; i < t.intervals.size(); ++i) act[t.intervals[i].region] = v.activity[i];
  std::vector<PathRegion> out;
  for (const auto& [r, x] : ns) {
    PathRegion pr;
    pr.region = r;
    pr.activity = r >= 0 ? act[uint16_t(r)] : r == -2 ? Activity::kWait : Activity::kIdle;
    pr.ns = x;
    pr.share = spans > 0 ? x / spans : 0;
    out.push_back(pr);
  }
  std::sort(out.begin(), out.end(), [](const PathRegion& a, const PathRegion& b) { return a.ns > b.ns; });
  return out;
}

}  // namespace strata::core::overlap::detail
