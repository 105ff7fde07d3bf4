// STRATA_GPU_SAMPLING values (gpu/trace_window_config.h): windows, scale, bad values refused.
#include <gtest/gtest.h>

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

TEST(TraceWindowConfig, BadValuesTraceEveryLaunch) {
  for (const char* v : {"10", "100/10", "10/10", "0/100", "a/b", "10/100ms", "-5/100", "10/9999999"}) {
    g::TraceWindowConfig c;
    std::string why;
    EXPECT_FALSE(g::ParseTraceWindows(v, &c, &why)) << v;
    EXPECT_FALSE(c.Enabled()) << v;
    EXPECT_NE(why.find("STRATA_GPU_SAMPLING="), std::string::npos) << why;
  }
}
