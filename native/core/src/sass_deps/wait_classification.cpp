// A wait stalled or with slack, from PC samples: the share of the kernel's samples that wait for
// the copies. On the H100 a warp held by `DEPBAR.LE SB0, N` is sampled on the instruction after
// it with reason long_scoreboard (the late wait of bench/snap/async_copy_pipeline.cu: 99.5% of
// the samples on the BAR.SYNC after its DEPBAR, none on the DEPBAR), so the wait's samples are
// all those on the wait itself plus the long_scoreboard (or reason-less) samples on the
// instructions after it up to the barrier that follows. The barrier's own `barrier` samples
// (warps waiting for other warps: skew of any cause) are reported beside.
#include <map>

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
  // Samples at one instruction: every reason, or only those that mean "waiting for the copy".
  auto at = [&](size_t instr, bool waiting_only, std::map<std::string, double>& by_reason) {
    double s = 0;
    auto it = samples.find(g.instructions[instr].offset);
    if (it == samples.end()) return 0.0;
    for (const auto& [reason, n] : it->second) {
      if (waiting_only && reason != "long_scoreboard" && !reason.empty()) continue;
      s += n;
      by_reason[reason] += n;
    }
    return s;
  };
  std::vector<WaitClassification> out;
  for (size_t k = 0; k < waits.size(); ++k) {
    WaitClassification c;
    c.wait = k;
    c.evidence = "pc samples";
    c.kernel_samples = total;
    std::map<std::string, double> reasons, ignored;
    c.samples = at(waits[k].wait, false, reasons);
    const size_t last = waits[k].barrier ? *waits[k].barrier : waits[k].wait + 1;
    for (size_t i = waits[k].wait + 1; i <= last && i < g.instructions.size(); ++i) c.samples += at(i, true, reasons);
    // An mbarrier wait's out-of-line retry loop: every sample there is the wait's.
    for (size_t r : waits[k].retries) {
      const SassBlock& b = g.blocks[g.block_of[r]];
      for (size_t i = b.first; i <= b.last; ++i) c.samples += at(i, false, reasons);
    }
    if (waits[k].barrier) {
      auto it = samples.find(g.instructions[*waits[k].barrier].offset);
      if (it != samples.end() && it->second.count("barrier")) c.barrier_samples = it->second.at("barrier");
    }
    double best = 0;
    for (const auto& [reason, n] : reasons)
      if (n > best) best = n, c.top_reason = reason;
    c.share = total > 0 ? c.samples / total : 0;
    c.verdict = total < t.min_kernel_samples ? WaitVerdict::kUnknown
                : c.share >= t.stalled_share ? WaitVerdict::kStalled : WaitVerdict::kSlack;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace strata::core
