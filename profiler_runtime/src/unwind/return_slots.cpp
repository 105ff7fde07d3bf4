#include "unwind/return_slots.h"

namespace strata::rt::unwind {

// Return-address slots are no variables of ours: nothing for a sanitizer to check.
__attribute__((no_sanitize_address)) bool ReturnSlots(const uint64_t* pcs, const uint64_t* sps, int n,
                                                      uint64_t* pairs, uint64_t* low) {
#if defined(__x86_64__)
  *low = ~0ull;
  for (int i = 0; i < n; ++i) {
    const uint64_t at = sps[i] - 8;
    if (*reinterpret_cast<const volatile uint64_t*>(uintptr_t(at)) != pcs[i] + 1) return false;
    pairs[2 * i] = at;
    pairs[2 * i + 1] = pcs[i] + 1;
    if (at < *low) *low = at;
  }
  return true;
#else
  (void)pcs, (void)sps, (void)n, (void)pairs, (void)low;
  return false;
#endif
}

__attribute__((no_sanitize_address)) bool ReturnSlotsHold(const uint64_t* pairs, int n) {
  for (int i = 0; i < n; ++i)
    if (*reinterpret_cast<const volatile uint64_t*>(uintptr_t(pairs[2 * i])) != pairs[2 * i + 1]) return false;
  return true;
}

}  // namespace strata::rt::unwind
