#include <gtest/gtest.h>

#include "strata/replay/device_check.h"

namespace strata::replay {
namespace {

snapshot::Device H100(int driver) { return {"NVIDIA H100 80GB HBM3", 9, 0, driver, 0}; }

TEST(DeviceCheck, SameDeviceAndDriver) { EXPECT_EQ(CheckDevice(H100(13000), H100(13000), false), ""); }

TEST(DeviceCheck, OtherArchitectureIsRefused) {
  snapshot::Device a100{"NVIDIA A100-SXM4-80GB", 8, 0, 13000, 0};
  std::string why = CheckDevice(H100(13000), a100, true);
  EXPECT_NE(why.find("sm_90"), std::string::npos);
  EXPECT_NE(why.find("sm_80"), std::string::npos);
}

TEST(DeviceCheck, OtherDriverNeedsTheFlag) {
  std::string why = CheckDevice(H100(12080), H100(13000), false);
  EXPECT_NE(why.find("12.8"), std::string::npos);
  EXPECT_NE(why.find("--any-driver"), std::string::npos);
  EXPECT_EQ(CheckDevice(H100(12080), H100(13000), true), "");
}

}  // namespace
}  // namespace strata::replay
