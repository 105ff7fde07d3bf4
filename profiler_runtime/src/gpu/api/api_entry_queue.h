// GPU API calls seen on the target's threads, queued for the aggregator thread: one typed entry
// per call, its call path words (leaf first) in a side array, under one short mutex.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "gpu/api/api_role.h"

namespace strata::rt::gpu {

inline constexpr uint32_t kNoSlot = 0xFFFFFFFFu;

struct ApiEntry {
  uint32_t correlation_id = 0;
  // Non-zero: a tracked call nested in another (cudaLaunchKernel -> cuLaunchKernel); its
  // records belong to this outer call's path, and the entry has no path of its own.
  uint32_t outer_correlation_id = 0;
  uint32_t slot = kNoSlot;       // the launching thread's slot (its Python code cache)
  uint32_t slot_generation = 0;  // ... while the slot still holds that thread
  uint64_t api_ns = 0;           // time inside the call
  const char* api_name = nullptr;  // CUPTI's function name (static in libcupti); null for nested calls
  ApiRole role = ApiRole::kUnknown;
  ApiRole inner_role = ApiRole::kUnknown;  // the nested call's, with inner_correlation_id
  uint16_t path_depth = 0;       // its words follow the previous entries' words in ApiEntryBatch::words
  // Non-zero on an outer call: the first tracked call nested in it (cudaLaunchKernel's
  // cuLaunchKernel), whose records belong to this call; carried here rather than queued as an
  // entry of its own (one queue push a launch instead of two).
  uint32_t inner_correlation_id = 0;
};

struct ApiEntryBatch {
  std::vector<ApiEntry> entries;
  std::vector<uint64_t> words;  // the entries' path words, in entry order
  void clear() {
    entries.clear();
    words.clear();
  }
};

class ApiEntryQueue {
 public:
  ApiEntryQueue();
  // Any thread. A full queue (the aggregator fell far behind) drops the entry and counts it.
  void Push(const ApiEntry& e, const uint64_t* words, int n);
  // Aggregator thread: everything queued so far, in push order (swapped with `batch`).
  void TakeAll(ApiEntryBatch* batch);
  uint64_t Dropped() const { return dropped_.load(); }

 private:
  std::mutex mu_;
  ApiEntryBatch q_;
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace strata::rt::gpu
