// The overlap analysis's findings as the analyzers' findings (rule "critical-path"), on the
// region's marker line when the names table gives one: the same SARIF and inline diagnostics
// as every other rule.
#include "strata/core/overlap.h"

namespace strata::core::overlap {

std::vector<Finding> OverlapFindingsAsFindings(const OverlapAnalysis& a, const RegionNames& names, const std::string& kernel) {
  std::vector<Finding> out;
  for (const OverlapFinding& f : a.findings) {
    Finding x;
    x.rule = "critical-path";
    x.severity = f.gain_share >= 0.10 ? "warning" : "note";
    x.message = f.message;
    const regions::RegionName n = regions::NameOf(names, f.region);
    x.location = FindingFrame{"region", n.name, n.file, n.line};
    if (!kernel.empty()) x.path.push_back(FindingFrame{"kernel", kernel, "", 0});
    x.path.push_back(x.location);
    x.evidence = {{"region_time_per_iteration", f.region_ns, "ns"},
                  {"predicted_gain", f.gain_ns, "ns"},
                  {"predicted_gain_share", f.gain_share, "share"},
                  {"predicted_time", f.predicted_kernel_ns, "ns"},
                  {"measured_time", a.model.measured_kernel_ns, "ns"}};
    x.cause = f.kind == FindingKind::kArriveEarlier ? "arrive-earlier" : f.kind == FindingKind::kMoreStages ? "more-stages" : "shorten-region";
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace strata::core::overlap
