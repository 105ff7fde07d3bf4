// Sampled GPU tracing read back from a profile's meta: stated, absent, or not a sampling.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "strata/core/api.h"
#include "strata/core/gpu_sampling.h"
#include "test_util.h"

using strata::core::Profile;
using strata::core::ReadGpuSampling;

namespace {

using Meta = std::vector<std::pair<std::string, std::string>>;

// The small profile with `meta` added, opened.
std::unique_ptr<Profile> WithMeta(const std::string& dir, const Meta& meta) {
  const std::string path = dir + "/p.strata";
  strata::test::WriteFile(path, strata::test::SmallProfile());
  if (!meta.empty()) strata::core::RewriteProfileMeta(path, meta);
  return Profile::Open(path);
}

// The 100 ms / 1000 ms sampling (scale 10) with `windows` opened.
void ExpectTenthSampling(const std::optional<strata::core::GpuSampling>& s, uint64_t windows) {
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->window_ms, 100u);
  EXPECT_EQ(s->period_ms, 1000u);
  EXPECT_DOUBLE_EQ(s->scale, 10.0);
  EXPECT_EQ(s->windows_opened, windows);
}

}  // namespace

TEST(GpuSampling, StatedByTheRuntimesEntries) {
  const std::string dir = strata::test::TempDir();
  auto p = WithMeta(dir, {{"gpu_window_ms", "100"}, {"gpu_window_period_ms", "1000"}, {"gpu_scale", "10"},
                          {"gpu_windows_opened", "37"}});
  ExpectTenthSampling(ReadGpuSampling(*p), 37);
  EXPECT_FALSE(ReadGpuSampling(*p)->few_windows);
  // A scale that is not a whole number, as %.17g writes it; windows opened missing: 0.
  p = WithMeta(dir, {{"gpu_window_ms", "30"}, {"gpu_window_period_ms", "100"}, {"gpu_scale", "3.3333333333333335"}});
  auto s = ReadGpuSampling(*p);
  ASSERT_TRUE(s.has_value());
  EXPECT_NEAR(s->scale, 100.0 / 30.0, 1e-12);
  EXPECT_EQ(s->windows_opened, 0u);
  EXPECT_NEAR(s->time_scale, 100.0 / 30.0, 1e-12) << "profiles before gpu_time_scale: the scale is the time share";
  EXPECT_FALSE(s->by_operator_calls);
  // Scaled by operator calls (torch): the factor applied and the time share beside it.
  p = WithMeta(dir, {{"gpu_window_ms", "100"}, {"gpu_window_period_ms", "1000"}, {"gpu_scale", "12.68"},
                     {"gpu_time_scale", "10"}, {"gpu_scale_basis", "operator_calls"}, {"gpu_op_calls_counted", "5072"},
                     {"gpu_op_calls_counted_traced", "400"}});
  s = ReadGpuSampling(*p);
  ASSERT_TRUE(s.has_value());
  EXPECT_DOUBLE_EQ(s->scale, 12.68);
  EXPECT_DOUBLE_EQ(s->time_scale, 10.0);
  EXPECT_TRUE(s->by_operator_calls);
  std::system(("rm -rf " + dir).c_str());
}

TEST(GpuSampling, FewWindowsSaidSo) {
  const std::string dir = strata::test::TempDir();
  auto with_windows = [&](const std::string& n) {
    return ReadGpuSampling(*WithMeta(dir, {{"gpu_window_ms", "100"}, {"gpu_window_period_ms", "1000"},
                                           {"gpu_scale", "10"}, {"gpu_windows_opened", n}}));
  };
  EXPECT_TRUE(with_windows("1")->few_windows);
  EXPECT_TRUE(with_windows("3")->few_windows) << "ResNet-50's 3-window runs had a line 8.5 points off";
  EXPECT_TRUE(with_windows(std::to_string(strata::core::kSteadyWindows - 1))->few_windows);
  EXPECT_FALSE(with_windows(std::to_string(strata::core::kSteadyWindows))->few_windows);
  EXPECT_FALSE(with_windows("0")->few_windows) << "a count the profile does not state is not a small count";
  std::system(("rm -rf " + dir).c_str());
}

TEST(GpuSampling, AbsentOrNotASampling) {
  const std::string dir = strata::test::TempDir();
  EXPECT_FALSE(ReadGpuSampling(*WithMeta(dir, {})).has_value()) << "every launch traced";
  const std::vector<Meta> bad = {
      {{"gpu_window_ms", "100"}, {"gpu_scale", "10"}},                                      // no period
      {{"gpu_window_ms", "1000"}, {"gpu_window_period_ms", "1000"}, {"gpu_scale", "1"}},    // window = period
      {{"gpu_window_ms", "0"}, {"gpu_window_period_ms", "1000"}, {"gpu_scale", "10"}},      // no window
      {{"gpu_window_ms", "100"}, {"gpu_window_period_ms", "1000"}, {"gpu_scale", "ten"}},   // not a number
      {{"gpu_window_ms", "100"}, {"gpu_window_period_ms", "1000"}, {"gpu_scale", "0.5"}},   // below 1
      {{"gpu_window_ms", "-100"}, {"gpu_window_period_ms", "1000"}, {"gpu_scale", "10"}},   // negative
      {{"gpu_window_ms", "100ms"}, {"gpu_window_period_ms", "1000"}, {"gpu_scale", "10"}},  // a unit
      {{"gpu_window_ms", "100"}, {"gpu_window_period_ms", "99999999999"}, {"gpu_scale", "10"}},  // > 32 bits
      {{"gpu_window_ms", "100"}, {"gpu_window_period_ms", "1000"}, {"gpu_scale", "inf"}},
  };
  for (const Meta& m : bad) {
    std::string what;
    for (const auto& [k, v] : m) what += k + "=" + v + " ";
    EXPECT_FALSE(ReadGpuSampling(*WithMeta(dir, m)).has_value()) << what;
  }
  std::system(("rm -rf " + dir).c_str());
}

// A real sampled run (torchvision ResNet-50 training on the H200, windows of 100 ms every
// 1000 ms inside capture ranges): the runtime's own entries read back.
TEST(GpuSampling, RealSampledProfileFromTheH200) {
  auto p = Profile::Open(STRATA_H200_FIXTURES "/sampled/resnet50_train_sampled.strata");
  ASSERT_TRUE(p);
  ExpectTenthSampling(ReadGpuSampling(*p), 4);
  EXPECT_TRUE(ReadGpuSampling(*p)->few_windows);
  // HF GPT-2 training, 21 windows, scaled by the operator calls made in them; the windows'
  // measured share of time beside it.
  auto by_calls = Profile::Open(STRATA_H200_FIXTURES "/sampled/gpt2_train_sampled_by_calls.strata");
  ASSERT_TRUE(by_calls);
  const auto s = ReadGpuSampling(*by_calls);
  ASSERT_TRUE(s.has_value());
  EXPECT_TRUE(s->by_operator_calls);
  EXPECT_NEAR(s->scale, 27245.0 / 2828.0, 1e-9);
  EXPECT_NEAR(s->time_scale, 18230311557.0 / 1686054184.0, 1e-9);
  EXPECT_EQ(s->windows_opened, 21u);
  EXPECT_FALSE(s->few_windows);
  // A fully traced real run states no sampling.
  auto full = Profile::Open(STRATA_H100_FIXTURES "/gpu_torch_train.strata");
  ASSERT_TRUE(full);
  EXPECT_FALSE(ReadGpuSampling(*full).has_value());
}
