// hotspot: nodes whose own (exclusive) time is a large share of the total, per call path
// (top-down), and functions whose own time over all their call paths is (bottom-up) when no
// single path shows it. One finding per (frame, metric); kernels count with gpu_time.
#include <unordered_map>
#include <unordered_set>

#include "../../value_format.h"
#include "builtin_rules.h"

namespace strata::core::detail {

void Hotspot(const AnalysisContext& cx, const RuleParams& p, std::vector<Finding>& out) {
  const double threshold = p["share"];
  std::vector<std::string> names = {"cpu_time", "wall_time", kGpuTime};
  for (const auto& metric : names) {
    auto k = cx.metric_index(metric);
    if (!k || cx.total(*k) <= 0) continue;
    const double total = cx.total(*k);
    std::vector<char> reported(cx.function_count(), 0);  // functions flagged top-down
    // Top-down: one call path's own time.
    for (size_t n = 1; n < cx.size(); ++n) {
      double excl = cx.metric(n, *k).exclusive;
      if (excl < threshold * total) continue;
      const FrameInfo& f = cx.frame(n);
      double share = excl / total;
      std::string msg;
      int32_t py = cx.UserAncestor(n) > 0 ? cx.UserAncestor(n) : cx.PythonAncestor(n);
      std::string from = py > 0 && size_t(py) != n
                             ? Where(cx.frame(size_t(py)).name, cx.frame(size_t(py)).file, cx.frame(size_t(py)).line)
                             : std::string();
      if (cx.kind(n) == Kind::kKernel) {
        msg = "Kernel `" + f.name + "` takes " + Percent(share) + " of GPU time (" + Duration(excl) + " over " +
              std::to_string(cx.metric(n, *k).count) + " launches" + (from.empty() ? "" : ", launched from " + from) +
              "). It is the place to optimize first: check its occupancy and memory traffic, or launch it less often.";
      } else {
        msg = "`" + Where(f.name, f.file, f.line) + "` spends " + Percent(share) + " of " + metric + " (" + Duration(excl) +
              ") in its own code on this call path" + (from.empty() ? "" : ", reached from " + from) +
              ". Make it cheaper or call it less often from there.";
      }
      Finding fd = cx.Make("hotspot", share >= 2 * threshold ? "warning" : "note", n, std::move(msg));
      fd.evidence = {{metric + "_share", share, "share"}, {metric, excl, "ns"},
                     {"count", double(cx.metric(n, *k).count), "count"}};
      out.push_back(std::move(fd));
      reported[cx.function(n)] = 1;
    }
    // Bottom-up: the same function over all its call paths.
    struct Acc { double excl = 0; size_t paths = 0; size_t heaviest = 0; double heaviest_excl = -1; };
    std::vector<Acc> by_function(cx.function_count());
    for (size_t n = 1; n < cx.size(); ++n) {
      double excl = cx.metric(n, *k).exclusive;
      if (excl <= 0) continue;
      Acc& a = by_function[cx.function(n)];
      a.excl += excl;
      ++a.paths;
      if (excl > a.heaviest_excl) { a.heaviest_excl = excl; a.heaviest = n; }
    }
    for (size_t key = 0; key < by_function.size(); ++key) {
      const Acc& a = by_function[key];
      if (a.excl < threshold * total || a.paths < 2 || reported[key]) continue;
      const FrameInfo& f = cx.frame(a.heaviest);
      double share = a.excl / total;
      FindingFrame loc = cx.Location(a.heaviest);
      std::string msg = "`" + f.name + "` spends " + Percent(share) + " of " + metric + " (" + Duration(a.excl) +
                        ") in its own code over " + std::to_string(a.paths) +
                        " call paths; no single caller dominates, so make the function itself cheaper (the heaviest path goes through " +
                        Where(loc.name, loc.file, loc.line) + ").";
      Finding fd = cx.Make("hotspot", share >= 2 * threshold ? "warning" : "note", a.heaviest, std::move(msg));
      fd.evidence = {{metric + "_share", share, "share"}, {metric, a.excl, "ns"}, {"call_paths", double(a.paths), "count"}};
      out.push_back(std::move(fd));
    }
  }
}

}  // namespace strata::core::detail
