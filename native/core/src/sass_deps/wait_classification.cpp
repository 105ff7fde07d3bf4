// A wait stalled or with slack, from PC samples: the share of the kernel's samples that land on
// the wait instruction itself (warps held there until their copies land). The barrier right
// after it is reported beside (warps waiting there wait for the slowest warp's copies too, but
// also for any other skew).
#include "strata/core/sass_deps.h"

namespace strata::core {

const char* WaitVerdictName(WaitVerdict v) {
  switch (v) {
    case WaitVerdict::kUnknown: return "unknown";
    case WaitVerdict::kStalled: return "stalled";
    case WaitVerdict::kSlack: return "slack";
  }
  return "?";
}

std::vector<WaitClassification> ClassifyWaitsFromSamples(const SassDependencyGraph& g, const std::vector<AsyncCopyWait>& waits,
                                                         const SassPcSamples& samples, const WaitThresholds& t) {
  double total = 0;
  for (const auto& [_, reasons] : samples)
    for (const auto& [__, n] : reasons) total += n;
  auto at = [&](size_t instr, std::string* top) {
    double s = 0, best = 0;
    auto it = samples.find(g.instructions[instr].offset);
    if (it == samples.end()) return 0.0;
    for (const auto& [reason, n] : it->second) {
      s += n;
      if (top && n > best) best = n, *top = reason;
    }
    return s;
  };
  std::vector<WaitClassification> out;
  for (size_t k = 0; k < waits.size(); ++k) {
    WaitClassification c;
    c.wait = k;
    c.evidence = "pc samples";
    c.kernel_samples = total;
    c.samples = at(waits[k].wait, &c.top_reason);
    if (waits[k].barrier) c.barrier_samples = at(*waits[k].barrier, nullptr);
    c.share = total > 0 ? c.samples / total : 0;
    c.verdict = total < t.min_kernel_samples ? WaitVerdict::kUnknown
                : c.share >= t.stalled_share ? WaitVerdict::kStalled : WaitVerdict::kSlack;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace strata::core
