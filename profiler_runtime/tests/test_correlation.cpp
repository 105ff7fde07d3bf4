// The correlation table (gpu/activity/correlation.h): records find their API call's node through
// aliases; an id noted again (a later attach numbers its calls from 1 again, or a wrap) is a new
// call, kept as long as any unmatched call, not dropped with the earlier call's match.
#include <gtest/gtest.h>

#include "gpu/activity/correlation.h"

using strata::rt::gpu::ApiRole;
using strata::rt::gpu::CorrelationTable;
using strata::rt::gpu::GpuActivity;

namespace {
constexpr uint64_t kS = 1000000000ull;
}

TEST(Correlation, NestedCallsReachTheOuterCallsNode) {
  CorrelationTable t;
  t.NoteApiNode(10, 7, ApiRole::kLaunch, 1);
  t.NoteAlias(11, 10, ApiRole::kLaunch, 1);
  EXPECT_EQ(t.NodeOf(11, 2), 7u);
  EXPECT_EQ(t.Outer(11), 10u);
  EXPECT_EQ(t.NodeOf(12, 2), 0u);
}

TEST(Correlation, AnIdNotedAgainIsANewCallNotTheMatchedOne) {
  CorrelationTable t;
  t.NoteApiNode(5, 1, ApiRole::kLaunch, 1 * kS);
  EXPECT_EQ(t.NodeOf(5, 1 * kS), 1u);  // matched: kept 2 s after the match
  t.NoteApiNode(5, 2, ApiRole::kLaunch, 2 * kS);  // the same id, a later call
  t.Sweep(5 * kS);                                // past the first call's keep time
  EXPECT_EQ(t.NodeOf(5, 5 * kS), 2u);
}

TEST(Correlation, HeldRecordsAreDeliveredOrGivenUp) {
  CorrelationTable t;
  GpuActivity a;
  a.correlation_id = 3;
  ASSERT_TRUE(t.Hold(a, 1 * kS));
  a.correlation_id = 4;
  ASSERT_TRUE(t.Hold(a, 1 * kS));
  t.NoteApiNode(3, 9, ApiRole::kLaunch, 1 * kS);
  int delivered = 0, given_up = 0;
  t.RetryWaiting(2 * kS, false, [&](GpuActivity& r, uint32_t node) { delivered += r.correlation_id == 3 && node == 9; },
                 [&](GpuActivity&) { ++given_up; });
  EXPECT_EQ(delivered, 1);
  EXPECT_EQ(given_up, 0);  // id 4 still waits for its call
  t.RetryWaiting(10 * kS, false, [&](GpuActivity&, uint32_t) { ++delivered; }, [&](GpuActivity&) { ++given_up; });
  EXPECT_EQ(given_up, 1);
}
