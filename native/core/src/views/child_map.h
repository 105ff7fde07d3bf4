// Open-addressing map (parent view node, frame or function id) -> view node, used by the views
// that merge stored nodes (bottom-up by function, top-down by call site).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace strata::core::detail {

class ChildMap {
 public:
  explicit ChildMap(size_t expected) {
    size_t cap = 1 << 12;  // grows on demand; `expected` is only an upper bound
    while (cap < expected * 2 && cap < (size_t(1) << 21)) cap <<= 1;
    Rehash(cap);
  }
  // `may_insert` false: a missing key is not added and nullptr is returned (a capped view).
  uint32_t* FindOrInsert(uint64_t key, bool* inserted, bool may_insert = true) {
    if ((size_ + 1) * 2 > slots_.size()) Rehash(slots_.size() * 2);
    size_t mask = slots_.size() - 1, i = Hash(key) & mask;
    while (slots_[i].key != kEmpty) {
      if (slots_[i].key == key) { *inserted = false; return &slots_[i].val; }
      i = (i + 1) & mask;
    }
    if (!may_insert) { *inserted = false; return nullptr; }
    slots_[i].key = key;
    ++size_;
    *inserted = true;
    return &slots_[i].val;
  }

 private:
  static constexpr uint64_t kEmpty = ~0ull;
  // Key and value side by side: one cache line per probe.
  struct Slot {
    uint64_t key = kEmpty;
    uint32_t val = 0;
  };
  static size_t Hash(uint64_t k) {
    k ^= k >> 33; k *= 0xff51afd7ed558ccdull; k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ull; k ^= k >> 33;
    return size_t(k);
  }
  void Rehash(size_t cap) {
    std::vector<Slot> old(cap);
    old.swap(slots_);
    size_t mask = cap - 1;
    for (const Slot& o : old) {
      if (o.key == kEmpty) continue;
      size_t i = Hash(o.key) & mask;
      while (slots_[i].key != kEmpty) i = (i + 1) & mask;
      slots_[i] = o;
    }
  }
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace strata::core::detail
