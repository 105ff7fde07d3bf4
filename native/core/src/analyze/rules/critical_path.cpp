// critical-path: from the captured region buffers of a kernel (strata record --regions), the
// overlap analysis (strata/core/overlap.h): dependency edges between lanes, the critical path,
// the software-pipelining or warp-specialization model on the measured stage latencies; its
// findings name the region whose shortening shortens the kernel (or a release that could come
// earlier, a stage to add), with the predicted gain, on that region's frame (the marker's line).
// Needs the profile's path: the buffers are decoded again.
#include <set>

#include "builtin_rules.h"
#include "strata/core/overlap.h"
#include "strata/core/profile_regions.h"

namespace strata::core::detail {

void CriticalPath(const AnalysisContext& cx, const RuleParams& p, std::vector<Finding>& out) {
  if (cx.profile_path().empty() || !cx.metric_index("region_time")) return;
  regions::ProfileRegions pr;
  try { pr = regions::ReadProfileRegions(cx.profile_path()); } catch (...) { return; }
  if (pr.launches.empty()) return;
  overlap::OverlapOptions options;
  options.min_gain_share = p["min_gain_share"];
  std::set<std::string> done;
  for (size_t v = 1; v < cx.size(); ++v) {
    if (cx.kind(v) != Kind::kKernel) continue;
    const FrameInfo& k = cx.frame(v);
    if (done.count(k.name)) continue;
    // The kernel's first captured launch that decodes.
    for (size_t i = 0; i < pr.launches.size(); ++i) {
      const auto& l = pr.launches[i];
      if (l.kernel != k.name && l.mangled != k.name) continue;
      regions::Trace t;
      try { t = regions::DecodeLaunch(pr, i); } catch (...) { continue; }
      if (t.intervals.empty()) continue;
      done.insert(k.name);
      regions::RegionNames names = l.names;
      for (const auto& [id, n] : pr.names) names.emplace(id, n);
      const overlap::OverlapAnalysis a = overlap::AnalyzeOverlap(t, names, options);
      const std::vector<Finding> typed = overlap::OverlapFindingsAsFindings(a, names, k.name);
      for (size_t f = 0; f < a.findings.size(); ++f) {
        // The region's frame under this kernel node (address = region id).
        size_t node = v;
        for (size_t n = v + 1; n < cx.subtree_end(v); ++n)
          if (cx.kind(n) == Kind::kRegion && cx.frame(n).address == a.findings[f].region) { node = n; break; }
        Finding fd = cx.Make("critical-path", typed[f].severity, node, typed[f].message);
        fd.evidence = typed[f].evidence;
        fd.cause = typed[f].cause;
        out.push_back(std::move(fd));
      }
      break;
    }
  }
}

}  // namespace strata::core::detail
