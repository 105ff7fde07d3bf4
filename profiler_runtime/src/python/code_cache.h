// Per-thread cache of the Python code objects a thread's samples have seen. The SIGPROF
// handler copies co_filename / co_qualname into a preallocated arena the first time it meets a
// code object, so the aggregator never dereferences Python objects (they may be gone by then).
// Fixed open-addressing table, keyed by the code pointer plus firstlineno and the filename/name
// object pointers: a new code object at a recycled address gets its own entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace strata::rt::python {

struct CodeEntry {
  uintptr_t code;          // 0 = empty
  uintptr_t filename_obj;
  uintptr_t name_obj;
  int32_t firstlineno;
  uint32_t file_off, file_len;
  uint32_t name_off, name_len;
};

class CodeCache {
 public:
  static constexpr uint32_t kEntries = 2048;     // power of two
  static constexpr uint32_t kArenaBytes = 96 * 1024;
  static constexpr uint32_t kMaxProbe = 32;
  static constexpr uint32_t kMaxString = 400;    // longer names are truncated

  // Handler side. Index of the entry for this key, or kMiss when absent.
  static constexpr uint32_t kMiss = 0xFFFFFFFFu;
  uint32_t Find(uintptr_t code, uintptr_t file, uintptr_t name, int32_t firstlineno,
                uint32_t* free_slot) const {
    uint32_t h = Hash(code);
    *free_slot = kMiss;
    for (uint32_t i = 0; i < kMaxProbe; ++i) {
      uint32_t idx = (h + i) & (kEntries - 1);
      const CodeEntry& e = entries_[idx];
      if (e.code == 0) { *free_slot = idx; return kMiss; }
      if (e.code == code && e.filename_obj == file && e.name_obj == name &&
          e.firstlineno == firstlineno)
        return idx;
    }
    return kMiss;
  }
  // Handler side: copies bytes into the arena; false when it is full.
  bool Store(uint32_t idx, uintptr_t code, uintptr_t file, uintptr_t name, int32_t firstlineno,
             const char* f, uint32_t flen, const char* n, uint32_t nlen) {
    if (flen > kMaxString) flen = kMaxString;
    if (nlen > kMaxString) nlen = kMaxString;
    if (arena_used_ + flen + nlen > kArenaBytes) return false;
    CodeEntry& e = entries_[idx];
    e.file_off = arena_used_; memcpy(arena_ + arena_used_, f, flen); arena_used_ += flen;
    e.name_off = arena_used_; memcpy(arena_ + arena_used_, n, nlen); arena_used_ += nlen;
    e.file_len = flen; e.name_len = nlen;
    e.filename_obj = file; e.name_obj = name; e.firstlineno = firstlineno;
    // The code pointer is written last: the entry only becomes findable once complete. The
    // aggregator reads it after the ring's release/acquire handoff of a record naming it.
    __atomic_store_n(&e.code, code, __ATOMIC_RELEASE);
    ++used_;
    return true;
  }

  // Aggregator side.
  const CodeEntry* Entry(uint32_t idx) const { return idx < kEntries ? &entries_[idx] : nullptr; }
  const char* Arena() const { return arena_; }
  // Slots are recycled per thread: only touch (and so commit) the table if it was used.
  void Clear() {
    if (used_) memset(entries_, 0, sizeof(entries_));
    used_ = 0;
    arena_used_ = 0;
  }

 private:
  static uint32_t Hash(uintptr_t p) {
    uint64_t x = uint64_t(p) >> 4;
    x *= 0x9E3779B97F4A7C15ull;
    return uint32_t(x >> 32);
  }
  CodeEntry entries_[kEntries];
  uint32_t arena_used_ = 0;
  uint32_t used_ = 0;
  char arena_[kArenaBytes];
};

}  // namespace strata::rt::python
