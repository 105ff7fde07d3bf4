#include "rank_phases.h"

#include <algorithm>

#include "collective_frames.h"

namespace strata::core::detail {

std::optional<size_t> RankTimeMetric(const Profile& profile) {
  if (auto m = FindMetric(profile, "wall_time")) return m;
  return FindMetric(profile, "cpu_time");
}

std::vector<RankTime> ClassifyRankTime(const AnalysisContext& cx) {
  const size_t n = cx.size();
  std::vector<RankTime> cls(n, RankTime::kOther);
  std::vector<char> comm(n, 0);
  const size_t main = cx.main_thread();
  const size_t main_end = main > 0 ? cx.subtree_end(main) : n;
  for (size_t u = 1; u < n; ++u) {
    comm[u] = comm[size_t(cx.parent(u))] || IsCollectiveFrameInfo(cx.frame(u));
    if (u < main || u >= main_end) continue;
    switch (cx.phase(u)) {
      case Phase::kSteady: cls[u] = comm[u] ? RankTime::kCommunication : RankTime::kCompute; break;
      case Phase::kProfiler: break;
      default: cls[u] = RankTime::kStartup; break;
    }
  }
  return cls;
}

std::vector<char> StoredOfClass(const AnalysisContext& cx, const std::vector<RankTime>& cls, RankTime which) {
  const auto& landing = cx.view().landing;
  std::vector<char> out(landing.size(), 0);
  for (size_t s = 0; s < landing.size(); ++s) out[s] = landing[s] < cls.size() && cls[landing[s]] == which;
  return out;
}

std::vector<RankPhases> RankPhasesOf(const AnalysisContext& cx, const RankRun& run,
                                     const std::vector<std::optional<double>>& gpu_overlap) {
  const auto& ranks = run.ranks();
  std::vector<RankPhases> out(ranks.size());
  auto metric = RankTimeMetric(cx.profile());
  for (size_t k = 0; k < ranks.size(); ++k) {
    out[k].rank = ranks[k].rank;
    if (k < gpu_overlap.size()) out[k].overlap_share = gpu_overlap[k];
  }
  if (!metric) return out;
  const auto cls = ClassifyRankTime(cx);
  const auto compute = run.RankTotals(*metric, StoredOfClass(cx, cls, RankTime::kCompute));
  const auto comm = run.RankTotals(*metric, StoredOfClass(cx, cls, RankTime::kCommunication));
  const auto startup = run.RankTotals(*metric, StoredOfClass(cx, cls, RankTime::kStartup));
  // The window: the ranks' realtime spans on one clock (one host's CLOCK_REALTIME; across hosts
  // docs/architecture.md "Ranks" says how far apart those clocks may be). Without spans, the
  // longest rank's accounted time.
  int64_t lo = 0, hi = 0;
  for (const auto& r : ranks) {
    if (r.start_unix_ns > 0 && (lo == 0 || r.start_unix_ns < lo)) lo = r.start_unix_ns;
    hi = std::max(hi, r.end_unix_ns);
  }
  double window = lo > 0 && hi > lo ? double(hi - lo) : 0.0;
  if (window == 0)
    for (size_t k = 0; k < ranks.size(); ++k) window = std::max(window, compute[k] + comm[k] + startup[k]);
  const std::string name = cx.metrics()[*metric].name;
  // Recorded calls, where the profiles have them, measure the waits that CPU-time samples miss
  // (a gloo rank blocked in all_reduce burns no CPU); the samples under collectives lie inside
  // those calls.
  const auto calls = run.CollectiveCallNs();
  for (size_t k = 0; k < ranks.size(); ++k) {
    RankPhases& p = out[k];
    p.metric = name;
    p.window_ns = window;
    p.compute_ns = compute[k];
    p.communication_ns = comm[k];
    if (k < calls.size() && calls[k]) {
      p.communication_ns = *calls[k];
      p.communication_from_calls = true;
    }
    p.startup_ns = startup[k];
    p.idle_ns = std::max(0.0, window - p.compute_ns - p.communication_ns - p.startup_ns);
  }
  return out;
}

RankClasses ClassifyRankRun(const RankRun& run, const std::vector<std::optional<double>>& gpu_overlap) {
  ViewOptions vo;
  vo.expand = false;
  vo.all_metrics = false;
  const Profile& p = run.profile();
  AnalysisContext cx(p, p.BuildView(ViewKind::kTopDown, vo));
  RankClasses out;
  out.phases = RankPhasesOf(cx, run, gpu_overlap);
  const auto& landing = cx.view().landing;
  out.stored_phase.assign(landing.size(), Phase::kProfiler);
  for (size_t s = 0; s < landing.size(); ++s)
    if (landing[s] < cx.size()) out.stored_phase[s] = cx.phase(landing[s]);
  return out;
}

}  // namespace strata::core::detail
