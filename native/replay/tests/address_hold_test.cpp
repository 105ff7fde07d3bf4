// AddressHold: a free range is held (nothing else can map there) until handed back; a range
// already in use is left alone.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include "strata/replay/address_hold.h"

namespace strata::replay {
namespace {

constexpr uint64_t kSize = 4ull << 20;

// A range that is free now: mapped, then unmapped.
uint64_t FreeRange() {
  void* p = ::mmap(nullptr, kSize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  EXPECT_NE(p, MAP_FAILED);
  ::munmap(p, kSize);
  return uint64_t(uintptr_t(p));
}

// Whether something else can map exactly there.
bool Mappable(uint64_t at) {
  void* want = reinterpret_cast<void*>(uintptr_t(at));
  void* got = ::mmap(want, kSize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (got == MAP_FAILED) return false;
  ::munmap(got, kSize);
  return got == want;
}

TEST(AddressHold, HoldsAFreeRangeUntilReleased) {
  const uint64_t at = FreeRange();
  AddressHold hold;
  ASSERT_EQ(hold.Take({{at, kSize}}), 1);
  EXPECT_FALSE(Mappable(at)) << "held";
  hold.Release(at + kSize / 2, 4096);  // any overlap hands back the whole span
  EXPECT_TRUE(Mappable(at)) << "handed back";
}

TEST(AddressHold, LeavesARangeInUseAlone) {
  void* used = ::mmap(nullptr, kSize, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(used, MAP_FAILED);
  {
    AddressHold hold;
    EXPECT_EQ(hold.Take({{uint64_t(uintptr_t(used)), kSize}}), 0);
  }  // the destructor must not unmap what it never took
  // Still mapped after the hold is gone: reading it works.
  EXPECT_EQ(*static_cast<volatile char*>(used), 0);
  EXPECT_EQ(::munmap(used, kSize), 0);
}

TEST(AddressHold, DestructorHandsBack) {
  const uint64_t at = FreeRange();
  {
    AddressHold hold;
    ASSERT_EQ(hold.Take({{at, kSize}}), 1);
  }
  EXPECT_TRUE(Mappable(at));
}

}  // namespace
}  // namespace strata::replay
