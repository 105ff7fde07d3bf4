#include <gtest/gtest.h>

#include "strata/replay/address_plan.h"

namespace strata::replay {
namespace {

constexpr uint64_t kG = 2 << 20;

TEST(AddressPlan, WidensAndMerges) {
  std::vector<snapshot::Region> r = {
      {0x7f0000200000 + 512, 1024, snapshot::MemoryKind::kDevice, true},  // inside one granule
      {0x7f0000200000 + 4096, 1024, snapshot::MemoryKind::kDevice, true}, // same granule
      {0x7f0000800000, 3 * kG, snapshot::MemoryKind::kDevice, true},      // three granules
      {0x7f0000e00000, 10, snapshot::MemoryKind::kDevice, true},          // touches the previous
  };
  std::vector<Span> s = PlanSpans(r, kG);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].start, 0x7f0000200000u);
  EXPECT_EQ(s[0].size, kG);
  EXPECT_EQ(s[1].start, 0x7f0000800000u);
  EXPECT_EQ(s[1].size, 4 * kG);
}

}  // namespace
}  // namespace strata::replay
