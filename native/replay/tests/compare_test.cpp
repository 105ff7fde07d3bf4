#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "strata/replay/compare.h"

namespace strata::replay {
namespace {

TEST(Compare, IdenticalIsExact) {
  std::vector<float> a(100, 1.5f);
  RegionDiff d = CompareRegion(a.data(), a.data(), a.size() * 4, ElementType::kF32, 0, 0);
  EXPECT_EQ(d.bytes_differ, 0u);
  EXPECT_TRUE(d.within_tolerance);
}

TEST(Compare, FloatDifferenceWithAndWithoutTolerance) {
  std::vector<float> a(100, 1.0f), b = a;
  b[10] = 1.0f + 1e-6f;
  RegionDiff exact = CompareRegion(a.data(), b.data(), 400, ElementType::kF32, 0, 0);
  EXPECT_GT(exact.bytes_differ, 0u);
  EXPECT_EQ(exact.first_differ / 4, 10u);
  EXPECT_EQ(exact.elements_differ, 1u);
  EXPECT_FALSE(exact.within_tolerance);
  EXPECT_NEAR(exact.max_rel, 1e-6, 2e-7);
  RegionDiff tol = CompareRegion(a.data(), b.data(), 400, ElementType::kF32, 1e-5, 0);
  EXPECT_TRUE(tol.within_tolerance);
  b[20] = NAN;
  EXPECT_FALSE(CompareRegion(a.data(), b.data(), 400, ElementType::kF32, 1e-5, 0).within_tolerance);
}

TEST(Compare, HalfTypes) {
  uint16_t one_h = 0x3C00, near_h = 0x3C01;      // 1.0, 1.000977 in f16
  uint16_t one_b = 0x3F80, near_b = 0x3F81;      // 1.0, 1.0078 in bf16
  RegionDiff h = CompareRegion(&one_h, &near_h, 2, ElementType::kF16, 0, 0);
  EXPECT_NEAR(h.max_abs, 0.000977, 1e-5);
  RegionDiff b = CompareRegion(&one_b, &near_b, 2, ElementType::kBF16, 0.01, 0);
  EXPECT_NEAR(b.max_abs, 0.0078125, 1e-6);
  EXPECT_TRUE(b.within_tolerance);
  ElementType t;
  EXPECT_EQ(ParseElementType("bf16", &t), "");
  EXPECT_NE(ParseElementType("f64", &t).find("f32, f16 or bf16"), std::string::npos);
}

}  // namespace
}  // namespace strata::replay
