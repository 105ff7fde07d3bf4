// Which PC samples get pc frames (gpu/activity/pc_detail.h): all within the budget, else a
// floor for every noticeable kernel node, then the heaviest (kernel node, instruction) pairs,
// originals before copies, the shares of one pair decided together.
#include <gtest/gtest.h>

#include <vector>

#include "gpu/activity/pc_detail.h"

using strata::rt::gpu::PcDetailPlan;
using strata::rt::gpu::PcShare;
using strata::rt::gpu::PlanPcDetail;

namespace {

TEST(PcDetail, EverythingWithinTheBudgetOrWithoutOne) {
  std::vector<PcShare> s = {{1, 0, 5}, {2, 0, 3}, {1, 1, 2}};
  for (size_t budget : {0u, 3u, 100u}) {
    PcDetailPlan p = PlanPcDetail(s, budget);
    EXPECT_EQ(p.itemized, std::vector<bool>({true, true, true})) << budget;
    EXPECT_EQ(p.pairs, 3u);
    EXPECT_EQ(p.pairs_itemized, 3u);
    EXPECT_DOUBLE_EQ(p.samples, 10);
    EXPECT_DOUBLE_EQ(p.samples_itemized, 10);
  }
}

TEST(PcDetail, HeaviestPairsFirstSharesOfAPairTogether) {
  // Node 7's site 3 comes from two launches (serialized mode): 2 + 2 = 4 outweighs 3.5.
  std::vector<PcShare> s = {{7, 3, 2}, {7, 4, 3.5}, {8, 3, 1}, {7, 3, 2}, {8, 5, 6}};
  PcDetailPlan p = PlanPcDetail(s, 2);
  EXPECT_EQ(p.itemized, std::vector<bool>({true, false, false, true, true}));
  EXPECT_EQ(p.pairs, 4u);
  EXPECT_EQ(p.pairs_itemized, 2u);
  EXPECT_DOUBLE_EQ(p.samples, 14.5);
  EXPECT_DOUBLE_EQ(p.samples_itemized, 10);
}

TEST(PcDetail, TiesGoToThePairSeenFirst) {
  std::vector<PcShare> s = {{1, 0, 1}, {1, 1, 1}, {1, 2, 1}, {1, 3, 1}};
  EXPECT_EQ(PlanPcDetail(s, 2).itemized, std::vector<bool>({true, true, false, false}));
}

// A light kernel node keeps its heaviest pairs (16 at most) against a heavy one's lighter ones.
TEST(PcDetail, EveryNoticeableKernelNodeKeepsItsHeaviestPairs) {
  std::vector<PcShare> s;
  for (uint32_t site = 0; site < 40; ++site) s.push_back({1, site, 100.0 - site});  // heavy node
  for (uint32_t site = 40; site < 60; ++site) s.push_back({2, site, 10.0});        // 200 of 3420
  s.push_back({3, 99, 0.5});  // under 2% of the samples: no floor
  // Floors: 16 each (32), then the 8 heaviest of the rest: the heavy node's next ones.
  PcDetailPlan p = PlanPcDetail(s, 40);
  EXPECT_EQ(p.pairs_itemized, 40u);
  size_t light = 0;
  for (size_t i = 40; i < 60; ++i) light += p.itemized[i];
  EXPECT_EQ(light, 16u);  // its 16 first (ties: first seen)
  EXPECT_TRUE(p.itemized[40] && p.itemized[55] && !p.itemized[56]);
  for (size_t i = 0; i < 24; ++i) EXPECT_TRUE(p.itemized[i]) << i;  // the heavy node's heaviest
  EXPECT_FALSE(p.itemized[24]);
  EXPECT_FALSE(p.itemized[60]);
  // Without the floor the light node would have had nothing: 40 heavy pairs outweigh it.
}

// Continuous mode: node 2's shares copy node 1's spread (scaled), so node 1's lighter
// instructions come before node 2's copies of heavier ones; copies fill what is left.
TEST(PcDetail, OriginalsBeforeCopies) {
  std::vector<PcShare> s;
  for (uint32_t site = 0; site < 100; ++site) {
    double samples = 100.0 - site;
    s.push_back({1, site, samples * 0.6, false});
    s.push_back({2, site, samples * 0.4, true});
  }
  // Budget 40 > the floors (16 + 16): 8 more, node 1's next originals, no further copies.
  PcDetailPlan p = PlanPcDetail(s, 40);
  size_t originals = 0, copies = 0;
  for (size_t i = 0; i < s.size(); ++i) (s[i].copy ? copies : originals) += p.itemized[i];
  EXPECT_EQ(originals, 24u);
  EXPECT_EQ(copies, 16u);  // the floor of a kernel node with 40% of the samples
  EXPECT_EQ(p.sites, 100u);
  EXPECT_EQ(p.sites_itemized, 24u);
  double top24 = 0;
  for (int site = 0; site < 24; ++site) top24 += 100.0 - site;
  EXPECT_DOUBLE_EQ(p.site_samples_itemized, top24);
  // Budget 150: every original, then the 50 heaviest copies.
  p = PlanPcDetail(s, 150);
  EXPECT_EQ(p.sites_itemized, 100u);
  EXPECT_TRUE(p.itemized[1 + 2 * 49] && !p.itemized[1 + 2 * 50]);
}

TEST(PcDetail, NoShares) {
  PcDetailPlan p = PlanPcDetail({}, 10);
  EXPECT_TRUE(p.itemized.empty());
  EXPECT_EQ(p.pairs, 0u);
}

}  // namespace
