// Per-thread map from a code object's identity to what a frame word can say about its name:
// the process-wide code id (python/code_names.h) once the aggregator has interned the name, or
// the sequence number of the name record still waiting in the thread's name ring. Only the
// identity is kept here, never strings, and entries are evicted (4-way sets, rotating victim),
// so a program with more code objects than entries re-sends a name instead of losing it.
//
// Writers: the owning thread (the SIGPROF handler, or normal code holding a PathScope, which
// keeps the handler out) installs entries; the aggregator only moves an entry's state from
// "pending seq" to "code id" (CAS), so a lookup never sees a torn entry.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>

namespace strata::rt::python {

// Code objects are told apart by address plus firstlineno and the filename/name object
// pointers: a new code object at a recycled address gets its own entry.
struct CodeKey {
  uintptr_t code, file, name;
  int32_t firstlineno;
};

struct CodeEntry {
  uintptr_t code, file, name;
  int32_t firstlineno;
  uint32_t reserved;
  std::atomic<uint64_t> state;  // 0 = empty, kInterned | code id, kPending | seq
};

inline constexpr uint64_t kInterned = 1ull << 63;
inline constexpr uint64_t kPending = 1ull << 62;

class CodeCache {
 public:
  static constexpr uint32_t kWays = 4;
  static constexpr uint32_t kSets = 1024;  // power of two
  static constexpr uint32_t kEntries = kWays * kSets;

  // Owner: the entry for `k`, or nullptr and in *victim the entry to (re)use.
  CodeEntry* Find(const CodeKey& k, uint32_t* victim) {
    uint32_t base = (Hash(k.code) & (kSets - 1)) * kWays;
    uint32_t free_way = kWays;
    for (uint32_t w = 0; w < kWays; ++w) {
      CodeEntry& e = entries_[base + w];
      uint64_t st = e.state.load(std::memory_order_acquire);
      if (!st) { if (free_way == kWays) free_way = w; continue; }
      if (e.code == k.code && e.file == k.file && e.name == k.name && e.firstlineno == k.firstlineno)
        return &e;
    }
    *victim = base + (free_way < kWays ? free_way : (rotate_++ & (kWays - 1)));
    return nullptr;
  }
  // Owner: entry `idx` now holds `k` in `state`. Emptied first, so the aggregator's CAS for the
  // previous occupant fails.
  void Install(uint32_t idx, const CodeKey& k, uint64_t state) {
    CodeEntry& e = entries_[idx];
    e.state.store(0, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    e.code = k.code; e.file = k.file; e.name = k.name; e.firstlineno = k.firstlineno;
    e.state.store(state, std::memory_order_release);
    used_ = true;
  }
  // Owner: the next name record's sequence number (30 bits, as in PendingPyWord).
  uint32_t NextSeq() { return next_seq_++ & 0x3FFFFFFFu; }
  uint32_t Index(const CodeEntry* e) const { return uint32_t(e - entries_); }

  // Aggregator (or the owner): the name of record `seq` is code `id`, if entry `idx` still
  // waits for it.
  void Resolve(uint32_t idx, uint32_t seq, uint32_t id) {
    if (idx >= kEntries) return;
    uint64_t expected = kPending | seq;
    entries_[idx].state.compare_exchange_strong(expected, kInterned | id, std::memory_order_acq_rel);
  }

  // Slots are recycled per thread: only touch (and so commit) the table if it was used.
  void Clear() {
    if (used_) memset(static_cast<void*>(entries_), 0, sizeof(entries_));
    used_ = false;
    next_seq_ = 0;
  }

 private:
  static uint32_t Hash(uintptr_t p) {
    uint64_t x = uint64_t(p) >> 4;
    x *= 0x9E3779B97F4A7C15ull;
    return uint32_t(x >> 32);
  }
  CodeEntry entries_[kEntries];
  uint32_t next_seq_ = 0;
  uint32_t rotate_ = 0;
  bool used_ = false;
};

}  // namespace strata::rt::python
