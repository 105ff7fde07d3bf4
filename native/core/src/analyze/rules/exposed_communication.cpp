// exposed-communication: time the ranks spend inside collectives that nothing else overlaps, on
// the line that issues them. On CPU (gloo, or any blocking call) a collective holds its thread for
// its whole time; with GPU activity the share overlapped by the rank's other kernels is not
// exposed (RankPhases::overlap_share). Reported per issuing line when the median rank's exposed
// time there is a large share of the median step.
#include <map>

#include "../../value_format.h"
#include "builtin_rules.h"
#include "rank_compare.h"

namespace strata::core::detail {
namespace {

// One finding: `what` (the issuing line, its frame) holds the ranks `share` of their step; `e` is
// the ranks' exposed time there, `detail` how it was measured, `how` what exposes it.
Finding Exposed(const AnalysisContext& cx, const RuleParams& p, size_t node, const std::string& what, double share,
                const RankSpread& e, double median_step, const std::string& detail, const char* how) {
  std::string msg = "`" + what + "` holds the ranks " + Percent(share) + " of their step (" + detail + "; rank " +
                    std::to_string(e.max_rank) + " the most: " + Duration(e.max) + ", rank " + std::to_string(e.min_rank) +
                    " the least: " + Duration(e.min) + ")" + how + ". ";
  if (e.max > 2 * e.min && e.min >= 0)
    msg += "The spread over ranks says most of it is waiting for the slowest rank (see straggler / rank-imbalance). ";
  msg += "Overlap it with compute: issue it asynchronously (async_op=True, wait where the result is needed), bucket "
         "gradients so communication starts during backward (DDP does), or communicate less often or fewer bytes.";
  Finding fd = cx.Make("exposed-communication", share >= 2 * p["min_share"] ? "warning" : "note", node, std::move(msg));
  fd.evidence = {{"exposed_time_median", e.median, "ns"},
                 {"step_share", share, "share"},
                 {"exposed_time_max", e.max, "ns"},
                 {"exposed_time_min", e.min, "ns"},
                 {"median_step_time", median_step, "ns"}};
  return fd;
}

}  // namespace

void ExposedCommunication(const AnalysisContext& cx, const RuleParams& p, std::vector<Finding>& out) {
  auto rc = CompareRanks(cx);
  if (!rc || rc->median_step <= 0) return;
  const auto& ranks = rc->run->ranks();
  const auto phases = rc->run->Phases();
  // Outermost collective nodes in the steady state, grouped by the line that issues them.
  std::map<int32_t, std::vector<size_t>> by_line;
  for (size_t u = 1; u < cx.size(); ++u)
    if (rc->cls[u] == RankTime::kCommunication && rc->cls[size_t(cx.parent(u))] != RankTime::kCommunication)
      by_line[cx.Anchor(u)].push_back(u);
  bool found = false;
  for (const auto& [line, nodes] : by_line) {
    const auto spreads = rc->run->Spreads(cx.view(), nodes, rc->metric);
    std::vector<double> exposed(ranks.size(), 0.0);
    for (const auto& s : spreads)
      for (size_t k = 0; k < ranks.size(); ++k) {
        const double hidden = k < phases.size() && phases[k].overlap_share ? *phases[k].overlap_share : 0.0;
        exposed[k] += s.values[k] * (1.0 - hidden);
      }
    const RankSpread e = SpreadOf(exposed, ranks);
    const double share = e.median / rc->median_step;
    if (share < p["min_share"] || e.median < cx.min_cpu_ns()) continue;
    const size_t node = nodes.front();
    const FrameInfo& f = cx.frame(node);
    const bool gpu = !phases.empty() && phases[0].overlap_share.has_value();
    Finding fd = Exposed(cx, p, node, Where(f.name, f.file, f.line), share, e, rc->median_step,
                         "median " + Duration(e.median), gpu ? ", not overlapped by compute kernels" : ", blocking its thread");
    fd.cause = f.name;
    for (size_t k = 1; k < nodes.size(); ++k) fd.other_paths.push_back(cx.Path(nodes[k]));
    out.push_back(std::move(fd));
    found = true;
  }
  if (found) return;
  // CPU sampling does not see a rank waiting in a collective (no CPU time): the recorded
  // collectives' call times do (RankRun::Steps, wall clock).
  const RankSteps steps = rc->run->Steps();
  if (steps.steps.empty()) return;
  std::vector<double> comm, step;
  for (size_t k = 0; k < ranks.size(); ++k) {
    std::vector<double> c, t;
    for (const auto& st : steps.steps) {
      c.push_back(st.communication_ns[k]);
      t.push_back(st.communication_ns[k] + st.compute_ns[k]);
    }
    comm.push_back(MedianOf(c));
    step.push_back(MedianOf(t));
  }
  const RankSpread e = SpreadOf(comm, ranks);
  const double median_step = MedianOf(step);
  if (median_step <= 0 || e.median / median_step < p["min_share"]) return;
  const double share = e.median / median_step;
  // The line: the outermost collective frame with the most time, else the profile.
  size_t node = 0;
  double best = -1;
  for (const auto& [line, nodes] : by_line)
    for (size_t u : nodes)
      if (cx.metric(u, rc->metric).inclusive > best) best = cx.metric(u, rc->metric).inclusive, node = u;
  Finding fd = Exposed(cx, p, node, Where(steps.collective, steps.file, steps.line), share, e, median_step,
                       "median per step " + Duration(e.median) + " of " + Duration(median_step) + "; from the recorded collectives",
                       ", blocking its thread");
  fd.cause = steps.collective;
  out.push_back(std::move(fd));
}

}  // namespace strata::core::detail
