// Per-thread SPSC byte ring carrying code names from the SIGPROF handler to the aggregator. The
// handler copies a code object's file and qualified name here the first time its thread's
// CodeCache misses it (while the object is certainly alive: it is on the interrupted thread's
// stack), and the sample names it by the record's sequence number; the aggregator drains the
// ring every 5 ms, interns the names process-wide and resolves the cache entry. The ring is a
// handoff, not storage: it never fills up for good. A record that does not fit (more new names
// within one drain interval than kBytes) makes the handler drop that sample, counted, rather
// than record a frame without its name.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>

namespace strata::rt::python {

constexpr uint32_t RoundRecord(uint64_t n) { return uint32_t((n + 7) & ~uint64_t(7)); }

struct NameRecord {
  uint32_t seq;        // kWrap: skip to the ring's start
  uint32_t entry;      // CodeCache index waiting for this name
  uint16_t file_len;
  uint16_t name_len;
  // file bytes, then name bytes (UTF-8)
  const char* File() const { return reinterpret_cast<const char*>(this + 1); }
  const char* Name() const { return File() + file_len; }
};

class NameRing {
 public:
  static constexpr uint32_t kBytes = 64 * 1024;  // power of two
  static constexpr uint32_t kMaxString = 1024;   // longer names are cut (at a UTF-8 boundary)
  static constexpr uint32_t kMaxRecord = RoundRecord(sizeof(NameRecord) + 2 * kMaxString);
  static constexpr uint32_t kWrap = 0xFFFFFFFFu;

  // Producer: room for one record of at most kMaxRecord bytes, or nullptr when full.
  NameRecord* Reserve() {
    uint64_t pos = head_.load(std::memory_order_relaxed);
    uint64_t tail = tail_.load(std::memory_order_acquire);
    uint32_t off = uint32_t(pos & (kBytes - 1));
    uint32_t pad = off + kMaxRecord > kBytes ? kBytes - off : 0;
    if (pos + pad + kMaxRecord - tail > kBytes) return nullptr;
    if (pad) reinterpret_cast<NameRecord*>(buf_ + off)->seq = kWrap;
    reserved_ = pos + pad;
    return reinterpret_cast<NameRecord*>(buf_ + (reserved_ & (kBytes - 1)));
  }
  // Producer: publishes the reserved record (its lengths filled in).
  void Commit(const NameRecord* r) {
    head_.store(reserved_ + RoundRecord(sizeof(NameRecord) + r->file_len + r->name_len),
                std::memory_order_release);
  }

  // Consumer.
  const NameRecord* Peek() {
    for (;;) {
      uint64_t tail = tail_.load(std::memory_order_relaxed);
      if (tail == head_.load(std::memory_order_acquire)) return nullptr;
      uint32_t off = uint32_t(tail & (kBytes - 1));
      auto* r = reinterpret_cast<const NameRecord*>(buf_ + off);
      if (kBytes - off < sizeof(NameRecord) || r->seq == kWrap) {
        tail_.store(tail + (kBytes - off), std::memory_order_release);
        continue;
      }
      return r;
    }
  }
  void Pop(const NameRecord* r) {
    uint64_t tail = tail_.load(std::memory_order_relaxed);
    tail_.store(tail + RoundRecord(sizeof(NameRecord) + r->file_len + r->name_len), std::memory_order_release);
  }
  // Consumer, once the producer thread is gone.
  void Clear() {
    head_.store(0, std::memory_order_relaxed);
    tail_.store(0, std::memory_order_relaxed);
  }

 private:
  alignas(64) std::atomic<uint64_t> head_{0};
  uint64_t reserved_ = 0;  // producer-only
  alignas(64) std::atomic<uint64_t> tail_{0};
  alignas(64) char buf_[kBytes];
};

}  // namespace strata::rt::python
