#include "builtin_rules.h"

namespace strata::core::detail {

const std::vector<BuiltinRule>& BuiltinRules() {
  static const std::vector<BuiltinRule> rules = {
      {"hotspot", Hotspot, {{"share", 0.10}, {"min_gpu_busy", 0.1}, {"min_gpu_ms", 10}}},
      {"kernel-fusion", KernelFusion, {{"min_launches", 20}, {"max_mean_us", 20}, {"min_share", 0.02}, {"min_wall_share", 0.03}}},
      {"forward-backward", ForwardBackward, {{"ratio", 5.0}, {"min_share", 0.02}, {"min_mean_kernel_us", 20}}},
      {"stall", Stall, {{"min_share", 0.05}, {"min_latency_share", 0.5}, {"min_reason_share", 0.3}, {"lines", 3}}},
      {"cpu-latency", CpuLatency, {{"ratio", 10.0}, {"min_share", 0.10}, {"gpu_busy_max", 0.5}, {"threads_per_core", 1.0}}},
      {"async-wait", AsyncWait, {{"min_share", 0.02}, {"stalled_share", 0.05}}},
      {"region-wait", RegionWait, {{"min_share", 0.10}}},
      {"region-imbalance", RegionImbalance, {{"max_over_mean", 0.25}, {"min_lanes", 4}}},
      {"critical-path", CriticalPath, {{"min_gain_share", 0.05}}},
      {"data-loader", DataLoaderBound, {{"min_share", 0.10}}},
      // The rank rules: silent unless the profile is a distributed job's merged ranks.
      {"straggler", Straggler, {{"ratio", 0.25}, {"min_share", 0.10}}},
      {"exposed-communication", ExposedCommunication, {{"min_share", 0.20}}},
      {"rank-imbalance", RankImbalance, {{"min_spread", 0.20}}},
  };
  return rules;
}

}  // namespace strata::core::detail
