// What every step of the overlap analysis reads from a trace: per interval its activity, whether
// it is innermost and its loop iteration; per lane its block, role and the shift that puts the
// lanes of one block on one clock.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "strata/core/overlap.h"

namespace strata::core::overlap::detail {

struct LaneView {
  uint32_t block = 0;
  uint32_t role = 0;
  double shift_ns = 0;             // added to the lane's times: the block's lanes share the SM's clock
  double start_ns = 0, end_ns = 0; // aligned: first interval start, last interval end
  std::vector<uint32_t> intervals; // the lane's intervals, in start order
  bool empty = true;
};

struct TraceView {
  const Trace* trace = nullptr;
  std::vector<Activity> activity;   // per interval
  std::vector<bool> innermost;      // no synchronous interval nested inside
  std::vector<bool> async;          // issue to arrival (two starts, one end)
  std::vector<bool> wait;           // a wait (by name, or a barrier wait)
  std::vector<int64_t> iteration;   // the loop iteration it belongs to; -1: none
  std::vector<LaneView> lanes;
  std::map<uint32_t, std::vector<uint32_t>> blocks;  // block -> lanes with intervals
  uint32_t roles = 0;
  double Start(uint32_t iv) const;  // aligned
  double End(uint32_t iv) const;
  // Aligned, on the recorded clock: replay moves records earlier by the markers before them and
  // can turn a region shorter than a record around, so order within an iteration is read here.
  double RawStart(uint32_t iv) const;
};

TraceView BuildTraceView(const Trace& trace, const RegionNames& names);

}  // namespace strata::core::overlap::detail
