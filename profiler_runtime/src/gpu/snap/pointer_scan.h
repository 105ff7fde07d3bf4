// Finds the device allocations a launch can reach: every 8-byte word of the parameter buffer
// (pointers, pointers inside structs, the global address inside a TMA descriptor) and of the
// small regions found so (arrays of pointers, one level), resolved by address range.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "strata/snapshot/snapshot.h"

namespace strata::rt::gpu::snap {

struct Resolved {
  snapshot::WordKind kind = snapshot::WordKind::kUnresolved;  // kUnresolved: not an allocation
  uint64_t base = 0, size = 0;
  snapshot::MemoryKind memory = snapshot::MemoryKind::kDevice;
};
using Resolver = std::function<Resolved(uint64_t address)>;

// Scans `bytes` (the parameter buffer when in_region is -1, else region `in_region`'s contents)
// and adds the pointer words and any new regions to `s`. Words that resolve to nothing are
// recorded only where a whole 8-byte parameter looks like an address.
void ScanWords(const uint8_t* bytes, size_t size, int32_t in_region, const Resolver& resolve, snapshot::Snapshot* s);

// Marks regions beyond `max_bytes` (in the order found) as not saved; returns the bytes kept.
uint64_t BoundRegions(uint64_t max_bytes, snapshot::Snapshot* s);

}  // namespace strata::rt::gpu::snap
