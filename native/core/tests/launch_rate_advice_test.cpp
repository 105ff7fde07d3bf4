// `strata record`'s advice after a run that launched GPU work at a high rate, on real H100
// profiles: the torch operator run (35k GPU operations in 15.9 s) and a training run (2.5k).
#include <gtest/gtest.h>

#include "launch_rate_advice.h"
#include "strata/core/api.h"

using strata::cli::LaunchRateAdvice;
using strata::cli::LaunchRateThresholds;

namespace {
const std::string kDir = STRATA_H100_FIXTURES;
}  // namespace

TEST(LaunchRateAdvice, HighRateRunGetsTheSampledOptions) {
  auto p = strata::core::Profile::Open(kDir + "/ops_torch_cuda.strata");
  EXPECT_FALSE(LaunchRateAdvice(*p));  // under the default count
  auto advice = LaunchRateAdvice(*p, LaunchRateThresholds{30000, 2000});
  ASSERT_TRUE(advice);
  EXPECT_NE(advice->find("--gpu-sampling 100/1000"), std::string::npos) << *advice;
  EXPECT_NE(advice->find("--capture-range cudaProfilerApi"), std::string::npos) << *advice;
  EXPECT_NE(advice->find(" in 15.9 s"), std::string::npos) << *advice;
  EXPECT_NE(advice->find("--operators frames"), std::string::npos) << *advice;  // operators were recorded
}

TEST(LaunchRateAdvice, LowRateOrNoGpuSaysNothing) {
  auto train = strata::core::Profile::Open(kDir + "/gpu_torch_train.strata");
  EXPECT_FALSE(LaunchRateAdvice(*train, LaunchRateThresholds{1000, 2000}));  // ~180 a second
  auto cpu = strata::core::Profile::Open(kDir + "/ops_torch_cpu.strata");
  EXPECT_FALSE(LaunchRateAdvice(*cpu, LaunchRateThresholds{0, 0}));
}
