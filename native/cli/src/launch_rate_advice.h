// After a run traced in full: a program that launched GPU work at a high rate pays most for
// tracing every launch (on the H100, GPT-2 token-by-token decoding x1.3-2.1 and a tiny-kernel
// loop x1.7-1.9, against x1.2 and below for training steps), so `strata record` says that
// sampled tracing, capture ranges and (operators recorded) operators from frames exist.
#pragma once

#include <optional>
#include <string>

#include "strata/core/api.h"

namespace strata::cli {

// GPT-2 decoding under the launch-cost benchmark: 87,000 operations at 4,300 a second of the
// whole run (imports included); ResNet-50 training for 25 steps: 15,000 at 1,300.
struct LaunchRateThresholds {
  double min_operations = 50000;  // kernels, copies and sets (gpu_time's count)
  double min_per_second = 2000;   // of the run's duration
};

// The line to print, or nullopt (no GPU work, a low rate, or no run duration in the meta).
std::optional<std::string> LaunchRateAdvice(const core::Profile& profile, const LaunchRateThresholds& t = {});

}  // namespace strata::cli
