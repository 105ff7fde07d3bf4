// The overlap analysis's reading of a trace (trace_view.h). Lanes of one block run on one SM,
// whose clock64 they all read: the decoder anchors each lane on the coarse globaltimer on its
// own, so lanes of a block can disagree by tens of ns; here they are put back on the clock of
// the block's first lane, which dependency edges (a release before the wait ends) need.
#include "trace_view.h"

#include <algorithm>
#include <set>

namespace strata::core::overlap::detail {

double TraceView::Start(uint32_t iv) const {
  const auto& i = trace->intervals[iv];
  return i.start_ns + lanes[i.lane].shift_ns;
}
double TraceView::End(uint32_t iv) const {
  const auto& i = trace->intervals[iv];
  return i.end_ns + lanes[i.lane].shift_ns;
}
double TraceView::RawStart(uint32_t iv) const {
  const auto& i = trace->intervals[iv];
  return i.raw_start_ns + lanes[i.lane].shift_ns;
}

TraceView BuildTraceView(const Trace& t, const RegionNames& names) {
  TraceView v;
  v.trace = &t;
  const size_t n = t.intervals.size();
  v.activity.assign(n, Activity::kCompute);
  v.innermost.assign(n, true);
  v.async.assign(n, false);
  v.wait.assign(n, false);
  v.iteration.assign(n, -1);
  v.lanes.resize(t.lanes.size());
  for (size_t i = 0; i < n; ++i) {
    const auto& iv = t.intervals[i];
    v.async[i] = iv.wait_ns >= 0;
    if (iv.parent >= 0 && size_t(iv.parent) < n && !v.async[i]) v.innermost[size_t(iv.parent)] = false;
    const auto name = regions::NameOf(names, iv.region).name;
    v.activity[i] = iv.barrier_use >= 0 ? Activity::kWait : ClassifyRegionName(name);
    v.wait[i] = v.activity[i] == Activity::kWait;
    v.lanes[iv.lane].intervals.push_back(uint32_t(i));
  }
  // The loop iteration: the interval's own (a loop iteration, or Proton's k-th instance of a
  // repeated scope) or its nearest enclosing one's.
  for (size_t i = 0; i < n; ++i) {
    int32_t k = int32_t(i);
    for (int guard = 0; k >= 0 && guard < 64; ++guard) {
      if (t.intervals[size_t(k)].iteration >= 0) { v.iteration[i] = t.intervals[size_t(k)].iteration; break; }
      k = t.intervals[size_t(k)].parent;
    }
  }
  // Roles: lanes with the same set of regions.
  std::map<std::set<uint16_t>, uint32_t> role_of;
  for (size_t l = 0; l < t.lanes.size(); ++l) {
    LaneView& lv = v.lanes[l];
    lv.block = t.lanes[l].meta.block_linear;
    if (lv.intervals.empty()) continue;
    lv.empty = false;
    std::set<uint16_t> set;
    for (uint32_t i : lv.intervals) set.insert(t.intervals[i].region);
    auto it = role_of.emplace(set, uint32_t(role_of.size())).first;
    lv.role = it->second;
    v.blocks[lv.block].push_back(uint32_t(l));
  }
  v.roles = uint32_t(role_of.size());
  // One clock per block: the lane's raw ns minus its raw cycles over the rate is the lane's
  // anchor; every lane takes the block's first lane's anchor.
  for (auto& [block, lanes] : v.blocks) {
    double ref = 0;
    bool have_ref = false;
    for (uint32_t l : lanes) {
      const double rate = t.lanes[l].cycles_per_ns;
      const auto& first = t.intervals[v.lanes[l].intervals.front()];
      if (rate <= 0 || first.end_cycles <= first.start_cycles) continue;
      const double anchor = first.raw_start_ns - double(first.start_cycles) / rate;
      if (!have_ref) { ref = anchor; have_ref = true; }
      v.lanes[l].shift_ns = ref - anchor;
    }
  }
  for (size_t l = 0; l < v.lanes.size(); ++l) {
    LaneView& lv = v.lanes[l];
    if (lv.empty) continue;
    lv.start_ns = 1e300;
    lv.end_ns = -1e300;
    for (uint32_t i : lv.intervals) {
      lv.start_ns = std::min(lv.start_ns, v.Start(i));
      lv.end_ns = std::max(lv.end_ns, v.End(i));
    }
  }
  return v;
}

}  // namespace strata::core::overlap::detail
