// STRATA_GPU_SAMPLING values (gpu/trace_window_config.h): windows, scale, bad values refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "gpu/trace_window_config.h"

namespace g = strata::rt::gpu;

TEST(TraceWindowConfig, WindowsAndScale) {
  g::TraceWindowConfig c;
  std::string why;
  ASSERT_TRUE(g::ParseTraceWindows("10/100", &c, &why));
  EXPECT_TRUE(c.Enabled());
  EXPECT_EQ(c.on_ms, 10u);
  EXPECT_EQ(c.period_ms, 100u);
  EXPECT_DOUBLE_EQ(c.Scale(), 10.0);
  ASSERT_TRUE(g::ParseTraceWindows(nullptr, &c, &why));
  EXPECT_FALSE(c.Enabled());
  EXPECT_DOUBLE_EQ(c.Scale(), 1.0);
  ASSERT_TRUE(g::ParseTraceWindows("", &c, &why));
  EXPECT_FALSE(c.Enabled());
}

TEST(TraceWindowConfig, ClosedTimeVariesAroundTheRestOfThePeriod) {
  g::TraceWindowConfig c;
  std::string why;
  ASSERT_TRUE(g::ParseTraceWindows("100/1000", &c, &why));
  uint64_t x = 88172645463325252ull, sum = 0;
  uint32_t lo = ~0u, hi = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    uint32_t ms = c.ClosedMs(x);
    lo = std::min(lo, ms), hi = std::max(hi, ms), sum += ms;
  }
  EXPECT_GE(lo, 450u);
  EXPECT_LE(hi, 1350u);
  EXPECT_LT(lo, 470u);  // the whole range is used
  EXPECT_GT(hi, 1330u);
  EXPECT_NEAR(double(sum) / n, 900.0, 5.0);  // the duty cycle holds on average
}

TEST(TraceWindowConfig, BadValuesTraceEveryLaunch) {
  for (const char* v : {"10", "100/10", "10/10", "0/100", "a/b", "10/100ms", "-5/100", "10/9999999"}) {
    g::TraceWindowConfig c;
    std::string why;
    EXPECT_FALSE(g::ParseTraceWindows(v, &c, &why)) << v;
    EXPECT_FALSE(c.Enabled()) << v;
    EXPECT_NE(why.find("STRATA_GPU_SAMPLING="), std::string::npos) << why;
  }
}

// A capture range enters the cycle at a uniform point of one period: in a window ON/PERIOD of
// the time, with the rest of that window (or of the closed part) left to run.
TEST(TraceWindowConfig, RangeStartsAtAUniformPointOfThePeriod) {
  g::TraceWindowConfig c;
  c.on_ms = 100;
  c.period_ms = 1000;
  uint64_t state = 88172645463325252ull;
  const int n = 20000;
  int open = 0;
  double open_left = 0, closed_left = 0;
  for (int i = 0; i < n; ++i) {
    bool o = false;
    uint32_t ms = 0;
    c.StartAt(g::NextWindowRandom(&state), &o, &ms);
    if (o) {
      ++open;
      EXPECT_GE(ms, 1u);
      EXPECT_LE(ms, 100u);
      open_left += ms;
    } else {
      EXPECT_GE(ms, 1u);
      EXPECT_LE(ms, 900u);
      closed_left += ms;
    }
  }
  EXPECT_NEAR(double(open) / n, 0.10, 0.01);
  EXPECT_NEAR(open_left / open, 50.5, 3.0);
  EXPECT_NEAR(closed_left / (n - open), 450.5, 10.0);
}
