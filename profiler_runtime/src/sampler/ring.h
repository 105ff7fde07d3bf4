// Single-producer / single-consumer ring of fixed-size records. The producer is the SIGPROF
// handler of one thread (never reentered: SIGPROF is blocked while it runs), the consumer is
// the aggregator thread. Lock-free with acquire/release indices so the handler never blocks.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace strata::rt {

template <typename T, size_t N>
class SpscRing {
  static_assert((N & (N - 1)) == 0, "N must be a power of two");

 public:
  // Producer: a record to fill, or nullptr when full (the caller counts a drop).
  T* Reserve() {
    uint64_t h = head_.load(std::memory_order_relaxed);
    if (h - tail_.load(std::memory_order_acquire) >= N) return nullptr;
    return &items_[h & (N - 1)];
  }
  // Producer: publishes the record returned by the last Reserve().
  void Commit() { head_.store(head_.load(std::memory_order_relaxed) + 1, std::memory_order_release); }

  // Consumer: the oldest record or nullptr; Pop() releases it back to the producer.
  const T* Peek() const {
    uint64_t t = tail_.load(std::memory_order_relaxed);
    if (t == head_.load(std::memory_order_acquire)) return nullptr;
    return &items_[t & (N - 1)];
  }
  void Pop() { tail_.store(tail_.load(std::memory_order_relaxed) + 1, std::memory_order_release); }

  size_t Size() const {
    return size_t(head_.load(std::memory_order_acquire) - tail_.load(std::memory_order_acquire));
  }
  // Only when neither side runs (slot recycling).
  void Reset() { head_.store(0); tail_.store(0); }

 private:
  alignas(64) std::atomic<uint64_t> head_{0};
  alignas(64) std::atomic<uint64_t> tail_{0};
  alignas(64) T items_[N];
};

}  // namespace strata::rt
