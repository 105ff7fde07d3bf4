// The built-in rules: each searches the top-down view and appends findings. Their parameters
// and defaults are listed in kBuiltinRules (docs/analyzers.md documents them).
#pragma once

#include <utility>
#include <vector>

#include "../analysis_context.h"
#include "../rule_params.h"

namespace strata::core::detail {

using RuleFn = void (*)(const AnalysisContext&, const RuleParams&, std::vector<Finding>&);

struct BuiltinRule {
  const char* id;
  RuleFn run;
  std::vector<std::pair<const char*, double>> params;  // name -> default
};

void Hotspot(const AnalysisContext&, const RuleParams&, std::vector<Finding>&);
void KernelFusion(const AnalysisContext&, const RuleParams&, std::vector<Finding>&);
void ForwardBackward(const AnalysisContext&, const RuleParams&, std::vector<Finding>&);
void Stall(const AnalysisContext&, const RuleParams&, std::vector<Finding>&);
void AsyncWait(const AnalysisContext&, const RuleParams&, std::vector<Finding>&);
void CpuLatency(const AnalysisContext&, const RuleParams&, std::vector<Finding>&);
void RegionWait(const AnalysisContext&, const RuleParams&, std::vector<Finding>&);
void RegionImbalance(const AnalysisContext&, const RuleParams&, std::vector<Finding>&);
void CriticalPath(const AnalysisContext&, const RuleParams&, std::vector<Finding>&);
void DataLoaderBound(const AnalysisContext&, const RuleParams&, std::vector<Finding>&);
void Straggler(const AnalysisContext&, const RuleParams&, std::vector<Finding>&);
void ExposedCommunication(const AnalysisContext&, const RuleParams&, std::vector<Finding>&);
void RankImbalance(const AnalysisContext&, const RuleParams&, std::vector<Finding>&);

const std::vector<BuiltinRule>& BuiltinRules();

// Time metrics the rules look at, in the order they prefer them.
inline constexpr const char* kCpuMetrics[] = {"cpu_time", "wall_time"};
inline constexpr const char* kGpuTime = "gpu_time";  // kernels, copies, sets (GPU collector)
inline constexpr const char* kApiTime = "api_time";  // CPU time inside CUDA API calls

}  // namespace strata::core::detail
