// rank-imbalance: the ranks' steady-state compute differs widely without one straggler (several
// ranks above the median, or below it: uneven shards, data-dependent work). Every collective
// waits for the slowest, so the spread is lost on every rank but one. A lone straggler is left
// out (its own rule); names the slowest and the fastest of the others and the frame holding most
// of the gap between them.
#include "../../value_format.h"
#include "builtin_rules.h"
#include "rank_compare.h"

namespace strata::core::detail {

void RankImbalance(const AnalysisContext& cx, const RuleParams& p, std::vector<Finding>& out) {
  auto rc = CompareRanks(cx);
  if (!rc || rc->median_step <= 0) return;
  const auto& ranks = rc->run->ranks();
  const double min_spread = p["min_spread"] * rc->median_step;
  // One rank alone far above the others is the straggler rule's finding: judge the others.
  std::vector<size_t> judged(ranks.size());
  for (size_t k = 0; k < judged.size(); ++k) judged[k] = k;
  {
    const RankSpread all = SpreadOf(rc->compute, ranks);
    size_t above = 0, top = 0;
    for (size_t k = 0; k < ranks.size(); ++k)
      if (rc->compute[k] - all.median >= 0.5 * (all.max - all.min)) ++above, top = k;
    if (above == 1 && ranks.size() > 2) judged.erase(judged.begin() + long(top));
  }
  size_t hi_k = judged.front(), lo_k = judged.front();
  std::vector<double> values;
  for (size_t k : judged) {
    values.push_back(rc->compute[k]);
    if (rc->compute[k] > rc->compute[hi_k]) hi_k = k;
    if (rc->compute[k] < rc->compute[lo_k]) lo_k = k;
  }
  const double spread = rc->compute[hi_k] - rc->compute[lo_k];
  if (spread < min_spread || spread < cx.min_cpu_ns()) return;
  const double median = MedianOf(values);
  auto gap = [&](const RankSpread& x) { return x.values[hi_k] - x.values[lo_k]; };
  auto never = [](const RankSpread&) { return false; };
  const size_t at = DescendToDifference(cx, *rc, cx.main_thread(), spread, gap, never);
  const RankSpread here = rc->run->Spreads(cx.view(), {at}, rc->metric, &rc->compute_stored)[0];
  const int32_t anchor = cx.Anchor(at);  // the user's line holding it, where there is one
  const FrameInfo& f = cx.frame(anchor > 0 ? size_t(anchor) : at);
  const int hi = ranks[hi_k].rank, lo = ranks[lo_k].rank;
  std::string msg = "The ranks' steady-state compute is uneven: from " + Duration(rc->compute[lo_k]) + " (rank " + std::to_string(lo) +
                    ") to " + Duration(rc->compute[hi_k]) + " (rank " + std::to_string(hi) + "), median " + Duration(median) +
                    (judged.size() < ranks.size() ? " (the straggler left out)" : "") +
                    "; every collective waits for the slowest. Most of the gap is at `" + Where(f.name, f.file, f.line) +
                    "` (rank " + std::to_string(hi) + ": " + Duration(here.values[hi_k]) + ", rank " + std::to_string(lo) + ": " +
                    Duration(here.values[lo_k]) + "). Even out the ranks' shares of the work (shard sizes, sequence lengths, "
                    "data-dependent branches); on a shared or oversubscribed host, give each rank its own cores.";
  Finding fd = cx.Make("rank-imbalance", spread >= 2 * min_spread ? "warning" : "note", at, std::move(msg));
  fd.cause = "ranks";
  fd.evidence = {{"spread_time", spread, "ns"},
                 {"spread_share", spread / rc->median_step, "share"},
                 {"max_rank", double(hi), "count"},
                 {"min_rank", double(lo), "count"},
                 {"median_step_time", rc->median_step, "ns"}};
  out.push_back(std::move(fd));
}

}  // namespace strata::core::detail
