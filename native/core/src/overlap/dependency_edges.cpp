// Dependency edges between lanes of one block. With barrier markers: the waits on a barrier and
// use are released by the last arrive on that barrier and use in another lane of the block.
// Without them (older buffers, Proton traces): a wait region (by name) whose wait ended after
// work of another role ended inside it was released by the last such work region, the one
// that ended last before the wait did. Only such binding waits get an inferred edge: a wait
// that found its barrier open says nothing about who opened it.
#include "dependency_edges.h"

#include <algorithm>
#include <map>
#include <climits>
#include <cstdint>
#include <iterator>
#include <tuple>
#include <utility>

namespace strata::core::overlap::detail {

namespace {

// The region an arrive (record `index` of `lane`) releases: the innermost work region open
// around it, else the work region that ended last before it (an arrive between regions, inside
// a loop iteration). By record order, not time: a region may start on the arrive's clock.
int32_t ReleasingInterval(const TraceView& v, uint32_t lane, uint32_t index) {
  int32_t around = -1, before = -1;
  for (uint32_t i : v.lanes[lane].intervals) {
    if (v.async[i] || v.wait[i] || !v.innermost[i]) continue;
    const auto& iv = v.trace->intervals[i];
    if (iv.start_index < index && iv.end_index > index) around = int32_t(i);
    if (iv.end_index < index && (before < 0 || iv.end_index > v.trace->intervals[size_t(before)].end_index)) before = int32_t(i);
  }
  return around >= 0 ? around : before;
}

// Per lane, its work regions (innermost, neither async nor waits) by aligned end.
using WorkEnds = std::vector<std::vector<std::pair<double, uint32_t>>>;
WorkEnds CollectWorkEnds(const TraceView& v) {
  WorkEnds out(v.lanes.size());
  for (size_t l = 0; l < v.lanes.size(); ++l) {
    for (uint32_t i : v.lanes[l].intervals)
      if (v.innermost[i] && !v.async[i] && !v.wait[i]) out[l].emplace_back(v.End(i), i);
    std::sort(out[l].begin(), out[l].end());
  }
  return out;
}

// The work region of `lane` that ended last at or before the aligned time `at`.
int32_t LastWorkBefore(const WorkEnds& ends, uint32_t lane, double at) {
  const auto& e = ends[lane];
  auto it = std::upper_bound(e.begin(), e.end(), std::make_pair(at, UINT32_MAX));
  if (it == e.begin()) return -1;
  return int32_t(std::prev(it)->second);
}

DependencyEdge MakeEdge(const TraceView& v, uint32_t from_lane, int32_t from_iv, double release_aligned, uint32_t wait_iv) {
  const Trace& t = *v.trace;
  const auto& w = t.intervals[wait_iv];
  DependencyEdge e;
  e.block = v.lanes[w.lane].block;
  e.from_lane = from_lane;
  e.to_lane = w.lane;
  e.from_interval = from_iv;
  e.to_interval = int32_t(wait_iv);
  e.from_iteration = from_iv >= 0 ? v.iteration[size_t(from_iv)] : -1;
  e.to_iteration = v.iteration[wait_iv];
  e.release_ns = release_aligned - v.lanes[from_lane].shift_ns;
  e.wait_start_ns = w.start_ns;
  e.wait_end_ns = w.end_ns;
  e.latency_ns = v.End(wait_iv) - release_aligned;
  e.binding = release_aligned > v.Start(wait_iv);
  return e;
}

// An arrive marker's edge. Replay moves each lane's records earlier by that lane's own markers
// before them, so across lanes the replayed times drift apart (by the difference of their
// record counts, every iteration) and lose the order the barrier imposed: which arrive came
// last, whether it came after the wait began, and the latency are read on the recorded clock.
// The latency then holds the arrive marker's own cost (its store, after its clock read), which
// replay takes out as it does from a leaf region.
DependencyEdge MakeArriveEdge(const TraceView& v, const region_decoder::BarrierArrive& ar, int32_t from_iv, uint32_t wait_iv) {
  const Trace& t = *v.trace;
  const auto& w = t.intervals[wait_iv];
  const double shift_from = v.lanes[ar.lane].shift_ns, shift_to = v.lanes[w.lane].shift_ns;
  const double rate = t.lanes[ar.lane].cycles_per_ns;
  const double record_ns = rate > 0 ? t.record_cost_cycles / rate : 0;
  DependencyEdge e = MakeEdge(v, ar.lane, from_iv, ar.ns + shift_from, wait_iv);
  const double release_raw = ar.raw_ns + shift_from;
  e.latency_ns = std::max(0.0, w.raw_end_ns + shift_to - release_raw - record_ns);
  e.binding = release_raw > w.raw_start_ns + shift_to;
  return e;
}

}  // namespace

std::vector<DependencyEdge> FindDependencyEdges(const TraceView& v) {
  const Trace& t = *v.trace;
  std::vector<DependencyEdge> out;
  const WorkEnds ends = CollectWorkEnds(v);
  // Barrier markers: (block, barrier, use) -> the last arrive.
  std::map<std::tuple<uint32_t, uint16_t, int64_t>, std::vector<size_t>> arrives;
  for (size_t a = 0; a < t.arrives.size(); ++a) {
    const auto& ar = t.arrives[a];
    arrives[{v.lanes[ar.lane].block, ar.barrier, ar.use}].push_back(a);
  }
  std::vector<bool> explained(t.intervals.size(), false);
  for (size_t i = 0; i < t.intervals.size(); ++i) {
    const auto& w = t.intervals[i];
    if (w.barrier_use < 0) continue;
    auto it = arrives.find({v.lanes[w.lane].block, w.region, w.barrier_use});
    if (it == arrives.end()) continue;
    int64_t last = -1;
    double last_at = -1e300;
    for (size_t a : it->second) {
      const auto& ar = t.arrives[a];
      if (ar.lane == w.lane) continue;
      const double at = ar.raw_ns + v.lanes[ar.lane].shift_ns;
      if (at > last_at) { last_at = at; last = int64_t(a); }
    }
    if (last < 0) continue;
    const auto& ar = t.arrives[size_t(last)];
    DependencyEdge e = MakeArriveEdge(v, ar, ReleasingInterval(v, ar.lane, ar.index), uint32_t(i));
    e.source = EdgeSource::kBarrier;
    e.barrier = w.region;
    e.use = w.barrier_use;
    explained[i] = true;
    out.push_back(e);
  }
  // Inferred: wait regions without a barrier edge.
  for (const auto& [block, lanes] : v.blocks) {
    for (uint32_t l : lanes) {
      for (uint32_t i : v.lanes[l].intervals) {
        if (!v.wait[i] || explained[i] || v.async[i] || !v.innermost[i]) continue;
        const double ws = v.Start(i), we = v.End(i);
        int32_t best = -1;
        uint32_t best_lane = 0;
        for (uint32_t o : lanes) {
          if (v.lanes[o].role == v.lanes[l].role) continue;
          const int32_t c = LastWorkBefore(ends, o, we);
          if (c >= 0 && (best < 0 || v.End(uint32_t(c)) > v.End(uint32_t(best)))) { best = c; best_lane = o; }
        }
        if (best < 0 || v.End(uint32_t(best)) <= ws) continue;  // not binding: who opened it is unknown
        DependencyEdge e = MakeEdge(v, best_lane, best, v.End(uint32_t(best)), i);
        e.source = EdgeSource::kInferred;
        out.push_back(e);
      }
    }
  }
  return out;
}

}  // namespace strata::core::overlap::detail
