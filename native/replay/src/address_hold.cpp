#include "strata/replay/address_hold.h"

#include <sys/mman.h>

namespace strata::replay {

AddressHold::~AddressHold() { ReleaseAll(); }

int AddressHold::Take(const std::vector<Span>& spans) {
  int taken = 0;
  for (const Span& s : spans) {
    void* want = reinterpret_cast<void*>(uintptr_t(s.start));
#ifdef MAP_FIXED_NOREPLACE
    const int fixed = MAP_FIXED_NOREPLACE;
#else
    const int fixed = 0;  // a hint only: checked below
#endif
    void* got = ::mmap(want, s.size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | fixed, -1, 0);
    if (got == MAP_FAILED) continue;
    if (got != want) {  // an old kernel treats the flag as a hint
      ::munmap(got, s.size);
      continue;
    }
    held_.push_back(s);
    ++taken;
  }
  return taken;
}

void AddressHold::Release(uint64_t start, uint64_t size) {
  for (size_t i = 0; i < held_.size();) {
    const Span& h = held_[i];
    if (h.start < start + size && start < h.start + h.size) {
      ::munmap(reinterpret_cast<void*>(uintptr_t(h.start)), h.size);
      held_[i] = held_.back();
      held_.pop_back();
    } else {
      ++i;
    }
  }
}

void AddressHold::ReleaseAll() {
  for (const Span& h : held_) ::munmap(reinterpret_cast<void*>(uintptr_t(h.start)), h.size);
  held_.clear();
}

}  // namespace strata::replay
