// straggler: one rank of a distributed job whose steady-state compute — its time outside
// collectives, i.e. before it reaches each collective — is well above the other ranks'. The
// others wait for it inside the collectives, so every rank's step is as long as its. Names the
// rank and the frame where its time differs: from the main thread down, the child holding most
// of the difference, stopping at the first user frame the other ranks spend at most a quarter as
// long in.
#include "../../value_format.h"
#include "builtin_rules.h"
#include "rank_compare.h"

namespace strata::core::detail {

void Straggler(const AnalysisContext& cx, const RuleParams& p, std::vector<Finding>& out) {
  auto rc = CompareRanks(cx);
  if (!rc) return;
  const auto& ranks = rc->run->ranks();
  // The rank furthest above the median of the others.
  size_t slow = 0;
  double best_excess = 0, others_median = 0;
  for (size_t k = 0; k < ranks.size(); ++k) {
    std::vector<double> others;
    for (size_t j = 0; j < ranks.size(); ++j)
      if (j != k) others.push_back(rc->compute[j]);
    const double med = MedianOf(others);
    if (rc->compute[k] - med > best_excess) {
      best_excess = rc->compute[k] - med;
      others_median = med;
      slow = k;
    }
  }
  if (best_excess <= 0 || best_excess < p["ratio"] * others_median || best_excess < p["min_share"] * rc->median_step ||
      best_excess < cx.min_cpu_ns())
    return;
  // The frame that makes the difference.
  auto excess_of = [&](const RankSpread& s) {
    std::vector<double> others;
    for (size_t j = 0; j < s.values.size(); ++j)
      if (j != slow) others.push_back(s.values[j]);
    return s.values[slow] - MedianOf(others);
  };
  // A frame the other ranks spend at most a quarter as long in: mostly the rank's own work.
  auto diverged = [&](const RankSpread& s) {
    return s.values[slow] > 0 && s.values[slow] - excess_of(s) <= 0.25 * s.values[slow];
  };
  const size_t start = cx.main_thread();
  const size_t at = DescendToDifference(cx, *rc, start, best_excess, excess_of, diverged);
  const RankSpread here = rc->run->Spread(cx.view(), at, rc->metric);
  const FrameInfo& f = cx.frame(at);
  const int rank = ranks[slow].rank;
  const double here_excess = excess_of(rc->run->Spreads(cx.view(), {at}, rc->metric, &rc->compute_stored)[0]);
  std::string msg = "Rank " + std::to_string(rank) + " is a straggler: its steady-state time outside collectives is " +
                    Duration(rc->compute[slow]) + " against a median of " + Duration(others_median) +
                    " on the other ranks (+" + Percent(others_median > 0 ? best_excess / others_median : 1.0) +
                    "), and they wait for it inside the collectives. The difference is at `" + Where(f.name, f.file, f.line) +
                    "` (rank " + std::to_string(rank) + ": " + Duration(here.values[slow]) + ", other ranks' median " +
                    Duration(here.values[slow] - here_excess) + "). Give that rank less of this work, or move the work out of the step.";
  // With recorded collectives, the same on the ranks' common clock: how often it came last.
  const RankSteps steps = rc->run->Steps();
  size_t last = 0;
  std::vector<double> spread;
  for (const auto& st : steps.steps) {
    last += st.last_rank == rank;
    spread.push_back(st.arrival_spread_ns);
  }
  if (!steps.steps.empty())
    msg += " It issued `" + Where(steps.collective, steps.file, steps.line) + "` last in " + std::to_string(last) +
           " of " + std::to_string(steps.steps.size()) + " steps; the first and last rank's issue were " +
           Duration(MedianOf(spread)) + " apart (median).";
  Finding fd = cx.Make("straggler", best_excess >= 2 * p["min_share"] * rc->median_step ? "warning" : "note", at, std::move(msg));
  fd.cause = "rank " + std::to_string(rank);
  fd.evidence = {{"excess_time", best_excess, "ns"},
                 {"rank", double(rank), "count"},
                 {"rank_time", rc->compute[slow], "ns"},
                 {"others_median_time", others_median, "ns"},
                 {"frame_excess_time", here_excess, "ns"},
                 {"median_step_time", rc->median_step, "ns"}};
  if (!steps.steps.empty()) {
    fd.evidence.push_back({"steps_issued_last", double(last), "count"});
    fd.evidence.push_back({"steps", double(steps.steps.size()), "count"});
  }
  out.push_back(std::move(fd));
}

}  // namespace strata::core::detail
