// AnalyzeOverlap: the steps in order — the trace's reading (roles, innermost regions, one clock
// per block), dependency edges, critical paths, lane activity and bubbles, roles' stages, the
// model and its findings.
#include "critical_path.h"
#include "dependency_edges.h"
#include "lane_activity.h"
#include "pipeline_models.h"
#include "trace_view.h"

namespace strata::core::overlap {

const char* ModelKindName(ModelKind k) {
  switch (k) {
    case ModelKind::kNone: return "none";
    case ModelKind::kSoftwarePipelining: return "software-pipelining";
    case ModelKind::kWarpSpecialization: return "warp-specialization";
  }
  return "none";
}

const char* BottleneckName(Bottleneck b) {
  switch (b) {
    case Bottleneck::kNone: return "none";
    case Bottleneck::kLoad: return "load";
    case Bottleneck::kCompute: return "compute";
    case Bottleneck::kProducer: return "producer";
    case Bottleneck::kConsumer: return "consumer";
    case Bottleneck::kRing: return "ring";
  }
  return "none";
}

OverlapAnalysis AnalyzeOverlap(const Trace& trace, const RegionNames& names, const OverlapOptions& options) {
  OverlapAnalysis a;
  const detail::TraceView view = detail::BuildTraceView(trace, names);
  a.edges = detail::FindDependencyEdges(view);
  for (const DependencyEdge& e : a.edges) (e.source == EdgeSource::kBarrier ? a.barrier_edges : a.inferred_edges)++;
  a.paths = detail::CriticalPaths(view, a.edges);
  a.path_regions = detail::PathRegions(view, a.paths);
  detail::LaneActivities(view, options.min_bubble_ns, &a.lanes, &a.bubbles);
  a.roles = detail::BuildRoles(view, a.edges, a.lanes);
  a.model = detail::BuildModel(view, a.edges, a.roles, a.paths);
  a.findings = detail::ModelFindings(a.model, a.roles, a.path_regions, names, options.min_gain_share);
  return a;
}

}  // namespace strata::core::overlap
