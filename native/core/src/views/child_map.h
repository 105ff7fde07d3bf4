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
    if ((size_ + 1) * 2 > keys_.size()) Rehash(keys_.size() * 2);
    size_t mask = keys_.size() - 1, i = Hash(key) & mask;
    while (keys_[i] != kEmpty) {
      if (keys_[i] == key) { *inserted = false; return &vals_[i]; }
      i = (i + 1) & mask;
    }
    if (!may_insert) { *inserted = false; return nullptr; }
    keys_[i] = key;
    ++size_;
    *inserted = true;
    return &vals_[i];
  }

 private:
  static constexpr uint64_t kEmpty = ~0ull;
  static size_t Hash(uint64_t k) {
    k ^= k >> 33; k *= 0xff51afd7ed558ccdull; k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ull; k ^= k >> 33;
    return size_t(k);
  }
  void Rehash(size_t cap) {
    std::vector<uint64_t> ok(cap, kEmpty);
    std::vector<uint32_t> ov(cap);
    ok.swap(keys_);
    ov.swap(vals_);
    size_t mask = cap - 1;
    for (size_t j = 0; j < ok.size(); ++j) {
      if (ok[j] == kEmpty) continue;
      size_t i = Hash(ok[j]) & mask;
      while (keys_[i] != kEmpty) i = (i + 1) & mask;
      keys_[i] = ok[j];
      vals_[i] = ov[j];
    }
  }
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> vals_;
  size_t size_ = 0;
};


}  // namespace strata::core::detail
