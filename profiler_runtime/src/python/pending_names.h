// Aggregator side of the name handoff (name_ring.h): drains one thread's ring into the
// process-wide code names (code_names.h), resolves the thread's CodeCache entries that waited
// for them, and remembers the last kKept sequence numbers -> code ids for the samples that
// still carry them. Normal code, the aggregator thread only.
//
// Why kKept is enough: a sample can only carry a sequence number that its own handler call read
// from a pending cache entry, and an entry stops being pending as soon as its record is drained
// here. So between the drain of record s and the sample carrying s, the thread adds at most one
// ring's worth of records (NameRing::kBytes / 16) plus one walk's (PyStack::kMaxFrames, 512), and one more ring's
// worth may be drained before that sample is read.
#pragma once

#include <cstdint>
#include <vector>

#include "python/code_cache.h"
#include "python/name_ring.h"

namespace strata::rt::python {

class PendingNames {
 public:
  static constexpr uint32_t kKept = 1u << 14;  // > 2 * NameRing::kBytes / 16 + 512
  static_assert(kKept > 2 * (NameRing::kBytes / 16) + 512, "kKept must cover two rings");

  void Drain(CodeCache& cache, NameRing& ring);
  // The code id of record `seq`; false when it is not (or no longer) known.
  bool Find(uint32_t seq, uint32_t* id) const;
  void Clear() { ids_.clear(); }

 private:
  std::vector<uint64_t> ids_;  // [seq % kKept] = (seq + 1) << 32 | code id; sized at first use
};

}  // namespace strata::rt::python
