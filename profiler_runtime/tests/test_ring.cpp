// The single-producer/single-consumer ring: ordering, full detection, concurrent handoff.
#include <gtest/gtest.h>

#include <thread>

#include "sampler/ring.h"

using strata::rt::SpscRing;

TEST(Ring, FillDrainAndFull) {
  static SpscRing<uint64_t, 8> ring;
  for (uint64_t i = 0; i < 8; ++i) {
    uint64_t* p = ring.Reserve();
    ASSERT_NE(p, nullptr);
    *p = i;
    ring.Commit();
  }
  EXPECT_EQ(ring.Reserve(), nullptr);  // full: the producer drops
  EXPECT_EQ(ring.Size(), 8u);
  for (uint64_t i = 0; i < 8; ++i) {
    const uint64_t* p = ring.Peek();
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(*p, i);
    ring.Pop();
  }
  EXPECT_EQ(ring.Peek(), nullptr);
}

TEST(Ring, ConcurrentInOrder) {
  static SpscRing<uint64_t, 64> ring;
  constexpr uint64_t kN = 200000;
  std::thread producer([] {
    for (uint64_t i = 0; i < kN;) {
      if (uint64_t* p = ring.Reserve()) { *p = i++; ring.Commit(); }
    }
  });
  uint64_t expect = 0;
  while (expect < kN) {
    if (const uint64_t* p = ring.Peek()) {
      ASSERT_EQ(*p, expect);
      ++expect;
      ring.Pop();
    }
  }
  producer.join();
}
