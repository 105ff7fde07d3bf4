#include "rank_compare.h"

#include <algorithm>

namespace strata::core::detail {

double MedianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::optional<RankCompare> CompareRanks(const AnalysisContext& cx) {
  const RankRun* run = cx.ranks();
  if (!run || run->ranks().size() < 2) return std::nullopt;
  auto metric = RankTimeMetric(cx.profile());
  if (!metric) return std::nullopt;
  RankCompare rc;
  rc.run = run;
  rc.metric = *metric;
  rc.cls = ClassifyRankTime(cx);
  rc.compute_stored = StoredOfClass(cx, rc.cls, RankTime::kCompute);
  rc.compute = run->RankTotals(rc.metric, rc.compute_stored);
  rc.communication = run->RankTotals(rc.metric, StoredOfClass(cx, rc.cls, RankTime::kCommunication));
  std::vector<double> step(rc.compute.size());
  for (size_t k = 0; k < step.size(); ++k) step[k] = rc.compute[k] + rc.communication[k];
  rc.median_step = MedianOf(step);
  return rc;
}

size_t DescendToDifference(const AnalysisContext& cx, const RankCompare& rc, size_t start, double total,
                           const std::function<double(const RankSpread&)>& score,
                           const std::function<bool(const RankSpread&)>& diverged) {
  size_t at = start;
  for (int depth = 0; depth < 512; ++depth) {
    std::vector<size_t> kids;
    for (size_t c = at + 1; c < cx.subtree_end(at); c = cx.subtree_end(c))
      if (rc.cls[c] == RankTime::kCompute) kids.push_back(c);
    if (kids.empty()) break;
    const auto spreads = rc.run->Spreads(cx.view(), kids, rc.metric, &rc.compute_stored);
    size_t best = 0;
    for (size_t i = 1; i < kids.size(); ++i)
      if (score(spreads[i]) > score(spreads[best])) best = i;
    if (score(spreads[best]) < 0.5 * total) break;
    at = kids[best];
    // Only a line of the user's code is a place to act on (the interpreter's and libraries'
    // frames above it hold the same difference).
    if (cx.IsUserFrame(at) && diverged(spreads[best])) break;
  }
  return at;
}

}  // namespace strata::core::detail
