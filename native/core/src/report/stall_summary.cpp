// Aggregates the top-down view: every pc node counts for the nearest kernel above it, by the
// innermost source line its frame resolved to (gpu_code); a kernel node's own stall samples
// (instructions without a pc frame) count for its totals only. Samples per line are `pc_samples`
// where present (else the sum of the stall reasons); shares are of stall samples.
#include "stall_summary.h"

#include <algorithm>
#include <map>
#include <optional>

namespace strata::core::detail {

namespace {

std::vector<StallReason> Ranked(const std::map<std::string, double>& by_reason, size_t keep) {
  std::vector<StallReason> out;
  double total = 0;
  for (const auto& [r, s] : by_reason) total += s;
  for (const auto& [r, s] : by_reason)
    if (s > 0) out.push_back(StallReason{r, s, total > 0 ? s / total : 0});
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.samples > b.samples; });
  if (keep && out.size() > keep) out.resize(keep);
  return out;
}

}  // namespace

std::vector<KernelStalls> SummarizeStalls(const Profile& profile) {
  const auto& metrics = profile.metrics();
  std::vector<size_t> stalls;
  for (size_t k = 0; k < metrics.size(); ++k)
    if (metrics[k].name.rfind("stall_", 0) == 0) stalls.push_back(k);
  if (stalls.empty()) return {};
  std::optional<size_t> pc_samples = FindMetric(profile, "pc_samples");

  ViewOptions options;
  options.expand = false;
  View v = profile.BuildView(ViewKind::kTopDown, options);
  struct Acc {
    double samples = 0;
    std::map<std::string, double> reasons;
    std::map<std::pair<std::string, uint32_t>, std::pair<double, std::map<std::string, double>>> lines;
  };
  std::map<std::string, Acc> kernels;
  std::vector<int32_t> kernel_of(v.size(), -1);  // nearest kernel ancestor (preorder: parent first)
  for (size_t i = 1; i < v.size(); ++i) {
    const FrameInfo& f = v.frame(i);
    const int32_t parent = v.parent[i];
    kernel_of[i] = f.kind == "kernel" ? int32_t(i) : (parent >= 0 ? kernel_of[size_t(parent)] : -1);
    if (f.kind == "kernel") {
      // Samples of instructions the runtime gave no pc frame (its detail limit) are counted on
      // the kernel node itself: they belong to the kernel's totals, at no line.
      double stall_sum = 0;
      for (size_t k : stalls) stall_sum += std::max(0.0, v.metric(i, k).exclusive);
      if (stall_sum <= 0) continue;
      Acc& acc = kernels[f.name];
      for (size_t k : stalls)
        if (double s = v.metric(i, k).exclusive; s > 0) acc.reasons[metrics[k].name.substr(6)] += s;
      acc.samples += pc_samples ? v.metric(i, *pc_samples).exclusive : stall_sum;
      continue;
    }
    if (f.kind != "pc" || kernel_of[i] < 0) continue;
    Acc& acc = kernels[v.frame(size_t(kernel_of[i])).name];
    auto& line = acc.lines[{f.file, f.line}];
    double stall_sum = 0;
    for (size_t k : stalls) {
      double s = v.metric(i, k).exclusive;
      if (s <= 0) continue;
      std::string reason = metrics[k].name.substr(6);
      acc.reasons[reason] += s;
      line.second[reason] += s;
      stall_sum += s;
    }
    double samples = pc_samples ? v.metric(i, *pc_samples).exclusive : stall_sum;
    acc.samples += samples;
    line.first += samples;
  }

  std::vector<KernelStalls> out;
  for (auto& [name, acc] : kernels) {
    if (acc.samples <= 0 && acc.reasons.empty()) continue;
    KernelStalls ks{name, acc.samples, Ranked(acc.reasons, 0), {}};
    for (const auto& [key, value] : acc.lines)
      if (value.first > 0) ks.lines.push_back(StallLine{key.first, key.second, value.first, Ranked(value.second, 3)});
    std::stable_sort(ks.lines.begin(), ks.lines.end(), [](const auto& a, const auto& b) { return a.samples > b.samples; });
    out.push_back(std::move(ks));
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.samples > b.samples; });
  return out;
}

}  // namespace strata::core::detail
