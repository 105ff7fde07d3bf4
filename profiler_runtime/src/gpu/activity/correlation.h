// Correlation ids -> the gpu_api node of the API call that caused the activity. Entries live a
// bounded time (swept once a second) so memory stays bounded; nested calls are aliases of the
// outer call; records whose API entry has not arrived yet wait here for a few drains.
// Aggregator thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "gpu/activity/gpu_activity.h"
#include "gpu/api/api_role.h"

namespace strata::rt::gpu {

struct Correlation {
  uint32_t node = 0;         // gpu_api node (0 = alias only)
  uint32_t alias = 0;        // outer correlation id
  uint32_t next_launch = 0;  // the next launch of the same thread (placement by launch order)
  int32_t placed = -2;       // a placement strategy's verdict on its kernel (-2 not seen yet, -1 none)
  ApiRole role = ApiRole::kUnknown;
  uint64_t t_insert = 0;
  uint64_t t_match = 0;
};

class CorrelationTable {
 public:
  // A nested call: its records belong to `outer`'s node.
  void NoteAlias(uint32_t corr, uint32_t outer, ApiRole role, uint64_t now);
  // An API call expecting activity got its node.
  void NoteApiNode(uint32_t corr, uint32_t node, ApiRole role, uint64_t now);
  Correlation* Find(uint32_t corr);  // null when unknown
  // The outer call's id for an alias, else `corr`.
  uint32_t Outer(uint32_t corr);
  // The gpu_api node an activity record belongs to, or 0 when its API entry is not known (yet).
  // Marks the entry matched (it is then kept a shorter time).
  uint32_t NodeOf(uint32_t corr, uint64_t now);
  // Drops entries past their time (at most once a second).
  void Sweep(uint64_t now);

  // Records whose API entry has not arrived. Hold: false when too many wait already.
  bool Hold(const GpuActivity& a, uint64_t now);
  // Each waiting record whose node is now known goes to `deliver`; one waiting too long (or
  // all, when `final`) goes to `give_up`; the others keep waiting.
  void RetryWaiting(uint64_t now, bool final, const std::function<void(GpuActivity&, uint32_t node)>& deliver,
                    const std::function<void(GpuActivity&)>& give_up);

 private:
  struct Waiting {
    GpuActivity activity;
    uint64_t since = 0;
  };
  std::unordered_map<uint32_t, Correlation> map_;
  std::vector<Waiting> waiting_;
  uint64_t last_sweep_ = 0;
};

}  // namespace strata::rt::gpu
