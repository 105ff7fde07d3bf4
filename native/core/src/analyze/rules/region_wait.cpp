// region-wait: an asynchronous region inside a kernel (a load marked with two starts and one end,
// docs/regions.md) whose exposed wait — from the second start, where the data is first needed,
// to the end, where it has arrived — is a large share of the enclosing region's time (the loop
// the load feeds). The software pipeline does not hide that load. Reads the runtime's region
// metrics: `region_wait_time` on the async region, `region_time` on the enclosing one.
#include "../../value_format.h"
#include "builtin_rules.h"

namespace strata::core::detail {

void RegionWait(const AnalysisContext& cx, const RuleParams& p, std::vector<Finding>& out) {
  auto wait = cx.metric_index("region_wait_time");
  auto time = cx.metric_index("region_time");
  if (!wait || !time || cx.total(*wait) <= 0) return;
  const double min_share = p["min_share"];
  for (size_t v = 1; v < cx.size(); ++v) {
    if (cx.kind(v) != Kind::kRegion) continue;
    const NodeMetric& w = cx.metric(v, *wait);
    if (w.exclusive <= 0 || w.count == 0) continue;
    // The enclosing region: the nearest region above that is not one loop iteration (a load
    // issued inside an iteration feeds the loop).
    int32_t up = cx.parent(v);
    while (up > 0 && cx.kind(size_t(up)) == Kind::kRegion && cx.frame(size_t(up)).iteration) up = cx.parent(size_t(up));
    if (up <= 0 || cx.kind(size_t(up)) != Kind::kRegion) continue;
    const double enclosing = cx.metric(size_t(up), *time).inclusive;
    if (enclosing <= 0) continue;
    const double share = w.exclusive / enclosing;
    if (share < min_share) continue;
    const FrameInfo& f = cx.frame(v);
    const FrameInfo& e = cx.frame(size_t(up));
    const NodeMetric& t = cx.metric(v, *time);
    const double mean_wait = w.exclusive / double(w.count);
    const double mean_load = t.count ? t.exclusive / double(t.count) : 0;
    std::string msg = "`" + Where(f.name, f.file, f.line) + "` waits for its data " + Percent(share) + " of `" + e.name +
                      "`'s time (" + Duration(w.exclusive) + " over " + Count(double(w.count)) + " waits, " +
                      Duration(mean_wait) + " each; issue to arrival " + Duration(mean_load) +
                      "): the pipeline does not hide this load. Keep more loads in flight (another stage), issue it "
                      "earlier in the loop, or give each stage more work so the data lands before it is needed.";
    Finding fd = cx.Make("region-wait", share >= 2 * min_share ? "warning" : "note", v, std::move(msg));
    fd.evidence = {{"region_wait_time", w.exclusive, "ns"},
                   {"enclosing_region_time", enclosing, "ns"},
                   {"wait_share", share, "share"},
                   {"waits", double(w.count), "count"},
                   {"mean_wait", mean_wait, "ns"},
                   {"mean_issue_to_arrival", mean_load, "ns"}};
    out.push_back(std::move(fd));
  }
}

}  // namespace strata::core::detail
