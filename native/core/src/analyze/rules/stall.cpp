// stall: a hot kernel's dominant stall reason and the source lines that stall for it, from PC
// sampling (metrics named stall_<reason> on the kernel's pc frames, issue 4). Silent when the
// profile has no stall metrics.
#include <algorithm>

#include "../value_format.h"
#include "builtin_rules.h"

namespace strata::core::detail {

void Stall(const AnalysisContext& cx, const RuleParams& p, std::vector<Finding>& out) {
  auto gpu = cx.metric_index(kGpuTime);
  std::vector<size_t> stalls;
  for (size_t k = 0; k < cx.metrics().size(); ++k)
    if (cx.metrics()[k].name.rfind("stall_", 0) == 0) stalls.push_back(k);
  if (!gpu || stalls.empty() || cx.total(*gpu) <= 0) return;
  for (size_t v = 1; v < cx.size(); ++v) {
    if (cx.kind(v) != Kind::kKernel) continue;
    double share = cx.metric(v, *gpu).inclusive / cx.total(*gpu);
    if (share < p["min_share"]) continue;
    double all = 0, best = 0;
    size_t reason = stalls[0];
    for (size_t k : stalls) {
      double s = cx.metric(v, k).inclusive;
      all += s;
      if (s > best) { best = s; reason = k; }
    }
    if (all <= 0 || best / all < p["min_reason_share"]) continue;
    // The pc frames (instructions) with most samples of that reason.
    std::vector<std::pair<double, size_t>> pcs;
    for (size_t c = v + 1; c < cx.subtree_end(v); ++c)
      if (cx.kind(c) == Kind::kPc && cx.metric(c, reason).exclusive > 0)
        pcs.push_back({cx.metric(c, reason).exclusive, c});
    std::sort(pcs.begin(), pcs.end(), [](auto& a, auto& b) { return a.first > b.first; });
    std::string lines;
    size_t shown = 0;
    for (const auto& [s, c] : pcs) {
      if (shown >= size_t(p["lines"])) break;
      const FrameInfo& f = cx.frame(c);
      lines += std::string(shown ? ", " : "") + (f.line ? Where("line", f.file, f.line) : f.name) + " " + Percent(s / best);
      ++shown;
    }
    std::string why = cx.metrics()[reason].name.substr(6);
    const FrameInfo& kf = cx.frame(v);
    std::string msg = "Kernel `" + kf.name + "` (" + Percent(share) + " of GPU time) stalls mostly on " + why + " (" +
                      Percent(best / all) + " of its stall samples)" + (lines.empty() ? "" : "; at " + lines) +
                      ". Work on what that stall means at those lines (e.g. long_scoreboard: global memory latency "
                      "- stage through shared memory or raise occupancy; barrier: unbalanced warps).";
    Finding fd = cx.Make("stall", "warning", pcs.empty() ? v : pcs.front().second, std::move(msg));
    fd.evidence = {{"gpu_time_share", share, "share"}, {"stall_reason_share", best / all, "share"},
                   {cx.metrics()[reason].name, best, cx.metrics()[reason].unit}};
    out.push_back(std::move(fd));
  }
}

}  // namespace strata::core::detail
