// The overlap analysis as JSON (for the timeline and tools) and as the text of
// `strata regions --critical-path`.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "strata/core/overlap.h"

namespace strata::core::overlap {

namespace {

std::string RegionLabel(const RegionNames& names, int32_t r) {
  if (r == -1) return "(no region)";
  if (r == -2) return "(sync: release to resume)";
  return regions::NameOf(names, uint16_t(r)).name;
}

nlohmann::ordered_json Prediction(const StagePrediction& p) {
  return {{"stages", p.stages}, {"iteration_ns", p.iteration_ns}, {"kernel_ns", p.kernel_ns}, {"bottleneck", BottleneckName(p.bottleneck)}};
}

}  // namespace

std::string OverlapToJson(const OverlapAnalysis& a, const Trace& t, const RegionNames& names) {
  using J = nlohmann::ordered_json;
  J out;
  J edges = J::array();
  for (const DependencyEdge& e : a.edges) {
    J x = {{"block", e.block}, {"from_lane", e.from_lane}, {"to_lane", e.to_lane},
           {"from_interval", e.from_interval}, {"to_interval", e.to_interval},
           {"from_region", e.from_interval >= 0 ? int(t.intervals[size_t(e.from_interval)].region) : -1},
           {"to_region", int(t.intervals[size_t(e.to_interval)].region)},
           {"from_iteration", e.from_iteration}, {"to_iteration", e.to_iteration},
           {"release_ns", e.release_ns}, {"wait_start_ns", e.wait_start_ns}, {"wait_end_ns", e.wait_end_ns},
           {"latency_ns", e.latency_ns}, {"binding", e.binding},
           {"source", e.source == EdgeSource::kBarrier ? "barrier" : "inferred"}};
    if (e.barrier >= 0) { x["barrier"] = e.barrier; x["use"] = e.use; }
    edges.push_back(std::move(x));
  }
  out["edges"] = std::move(edges);
  J paths = J::array();
  for (const BlockPath& p : a.paths) {
    J segs = J::array();
    for (const PathSegment& s : p.segments) segs.push_back({{"lane", s.lane}, {"start_ns", s.start_ns}, {"end_ns", s.end_ns}, {"sync", s.sync}});
    paths.push_back({{"block", p.block}, {"span_ns", p.span_ns}, {"lane_switches", p.lane_switches}, {"edges", p.edges}, {"segments", std::move(segs)}});
  }
  out["paths"] = std::move(paths);
  J pr = J::array();
  for (const PathRegion& r : a.path_regions)
    pr.push_back({{"region", r.region}, {"name", RegionLabel(names, r.region)}, {"activity", ActivityName(r.activity)}, {"ns", r.ns}, {"share", r.share}});
  out["path_regions"] = std::move(pr);
  J lanes = J::array();
  for (const LaneActivity& l : a.lanes)
    lanes.push_back({{"lane", l.lane}, {"role", l.role}, {"span_ns", l.span_ns}, {"compute_ns", l.compute_ns},
                     {"load_ns", l.load_ns}, {"wait_ns", l.wait_ns}, {"idle_ns", l.idle_ns}});
  out["lanes"] = std::move(lanes);
  J bubbles = J::array();
  for (const Bubble& b : a.bubbles)
    bubbles.push_back({{"lane", b.lane}, {"start_ns", b.start_ns}, {"end_ns", b.end_ns}, {"activity", ActivityName(b.activity)}});
  out["bubbles"] = std::move(bubbles);
  J roles = J::array();
  for (const Role& r : a.roles) {
    J stages = J::array();
    for (const RoleStage& s : r.stages)
      stages.push_back({{"region", s.region}, {"name", regions::NameOf(names, s.region).name}, {"activity", ActivityName(s.activity)},
                        {"mean_ns", s.mean_ns}, {"per_iteration", s.per_iteration}, {"offset_ns", s.offset_ns}, {"async", s.async}});
    roles.push_back({{"role", r.id}, {"lanes", r.lanes}, {"iterations", r.iterations}, {"span_ns", r.span_ns},
                     {"compute_ns", r.compute_ns}, {"load_ns", r.load_ns}, {"wait_ns", r.wait_ns}, {"idle_ns", r.idle_ns},
                     {"release_region", r.release_stage >= 0 ? int(r.stages[size_t(r.release_stage)].region) : -1},
                     {"stages", std::move(stages)}});
  }
  out["roles"] = std::move(roles);
  const PipelineModel& m = a.model;
  J model = {{"kind", ModelKindName(m.kind)}, {"stages", m.stages}, {"iterations", m.iterations},
             {"measured_iteration_ns", m.measured_iteration_ns}, {"measured_kernel_ns", m.measured_kernel_ns},
             {"rest_ns", m.rest_ns}};
  if (m.kind == ModelKind::kWarpSpecialization) {
    model["producer_role"] = m.producer_role;
    model["consumer_role"] = m.consumer_role;
    model["producer_busy_ns"] = m.producer_busy_ns;
    model["consumer_busy_ns"] = m.consumer_busy_ns;
    model["producer_chain_ns"] = m.producer_chain_ns;
    model["consumer_chain_ns"] = m.consumer_chain_ns;
    model["sync_ns"] = m.sync_ns;
    model["ring_ns"] = m.ring_ns;
  } else if (m.kind == ModelKind::kSoftwarePipelining) {
    model["role"] = m.producer_role;
    model["compute_ns"] = m.compute_ns;
    model["issue_ns"] = m.issue_ns;
    model["load_latency_ns"] = m.load_latency_ns;
  }
  if (m.kind != ModelKind::kNone) {
    model["current"] = Prediction(m.current);
    J by = J::array();
    for (const StagePrediction& p : m.by_stages) by.push_back(Prediction(p));
    model["by_stages"] = std::move(by);
  }
  out["model"] = std::move(model);
  J findings = J::array();
  for (const OverlapFinding& f : a.findings)
    findings.push_back({{"kind", f.kind == FindingKind::kArriveEarlier ? "arrive-earlier" : f.kind == FindingKind::kMoreStages ? "more-stages" : "shorten-region"},
                        {"region", f.region}, {"name", regions::NameOf(names, f.region).name}, {"role", f.role},
                        {"region_ns", f.region_ns}, {"predicted_kernel_ns", f.predicted_kernel_ns}, {"gain_ns", f.gain_ns},
                        {"gain_share", f.gain_share}, {"message", f.message}});
  out["findings"] = std::move(findings);
  out["barrier_edges"] = a.barrier_edges;
  out["inferred_edges"] = a.inferred_edges;
  return out.dump(1);
}

std::string OverlapToText(const OverlapAnalysis& a, const Trace& t, const RegionNames& names) {
  (void)t;
  std::string out;
  char line[512];
  size_t binding = 0;
  for (const DependencyEdge& e : a.edges) binding += e.binding;
  std::snprintf(line, sizeof line, "dependency edges: %zu (%zu from barrier markers, %zu inferred from region names), %zu binding\n",
                a.edges.size(), a.barrier_edges, a.inferred_edges, binding);
  out += line;
  double spans = 0;
  size_t switches = 0;
  for (const BlockPath& p : a.paths) { spans += p.span_ns; switches += p.lane_switches; }
  std::snprintf(line, sizeof line, "critical path: %zu blocks, mean span %.1f us, %.1f lane switches per block\n", a.paths.size(),
                a.paths.empty() ? 0.0 : spans / double(a.paths.size()) / 1e3, a.paths.empty() ? 0.0 : double(switches) / double(a.paths.size()));
  out += line;
  for (const PathRegion& r : a.path_regions) {
    std::snprintf(line, sizeof line, "  %-36.36s %-8s %6.1f%%\n", RegionLabel(names, r.region).c_str(), ActivityName(r.activity), 100 * r.share);
    out += line;
  }
  out += "roles (lanes with the same regions), per lane: compute / load / wait / idle, bubbles\n";
  for (const Role& r : a.roles) {
    double span = 0, c = 0, l = 0, w = 0, i = 0;
    size_t n = 0, bubbles = 0;
    for (const LaneActivity& la : a.lanes)
      if (la.role == r.id) { span += la.span_ns; c += la.compute_ns; l += la.load_ns; w += la.wait_ns; i += la.idle_ns; ++n; }
    for (const Bubble& b : a.bubbles) for (const LaneActivity& la : a.lanes) if (la.lane == b.lane && la.role == r.id) { ++bubbles; break; }
    std::string regions;
    for (const RoleStage& s : r.stages) regions += (regions.empty() ? "" : ", ") + regions::NameOf(names, s.region).name;
    std::snprintf(line, sizeof line, "  role %u (%u lanes, %.0f iterations; %s): compute %.1f%%, load %.1f%%, wait %.1f%%, idle %.1f%%, %.1f bubbles per lane\n",
                  r.id, r.lanes, r.iterations, regions.c_str(), span > 0 ? 100 * c / span : 0.0, span > 0 ? 100 * l / span : 0.0,
                  span > 0 ? 100 * w / span : 0.0, span > 0 ? 100 * i / span : 0.0, n ? double(bubbles) / double(n) : 0.0);
    out += line;
  }
  const PipelineModel& m = a.model;
  if (m.kind == ModelKind::kNone) {
    out += "model: none (no roles releasing each other, no lane that both loads and computes)\n";
  } else {
    std::snprintf(line, sizeof line, "model: %s, %u stage%s, %.0f iterations: measured %.1f ns per iteration, %.2f us per block\n",
                  ModelKindName(m.kind), m.stages, m.stages == 1 ? "" : "s", m.iterations, m.measured_iteration_ns, m.measured_kernel_ns / 1e3);
    out += line;
    if (m.kind == ModelKind::kWarpSpecialization) {
      std::snprintf(line, sizeof line, "  producer role %u busy %.1f ns, consumer role %u busy %.1f ns, ring %.1f ns (producer %.1f + consumer %.1f + sync %.1f) per iteration\n",
                    m.producer_role, m.producer_busy_ns, m.consumer_role, m.consumer_busy_ns, m.ring_ns, m.producer_chain_ns, m.consumer_chain_ns, m.sync_ns);
    } else {
      std::snprintf(line, sizeof line, "  compute %.1f ns, issue %.1f ns, load latency %.1f ns per iteration\n", m.compute_ns, m.issue_ns, m.load_latency_ns);
    }
    out += line;
    std::snprintf(line, sizeof line, "  predicted now: %.1f ns per iteration, %.2f us per block (%+.1f%% against the measurement), %s-bound\n",
                  m.current.iteration_ns, m.current.kernel_ns / 1e3,
                  m.measured_kernel_ns > 0 ? 100 * (m.current.kernel_ns / m.measured_kernel_ns - 1) : 0.0, BottleneckName(m.current.bottleneck));
    out += line;
    for (const StagePrediction& p : m.by_stages) {
      std::snprintf(line, sizeof line, "  with %u stage%s: %.1f ns per iteration, %.2f us per block, %s-bound\n", p.stages, p.stages == 1 ? "" : "s",
                    p.iteration_ns, p.kernel_ns / 1e3, BottleneckName(p.bottleneck));
      out += line;
    }
  }
  if (a.findings.empty()) out += "findings: none\n";
  for (const OverlapFinding& f : a.findings) out += "finding: " + f.message + "\n";
  return out;
}

}  // namespace strata::core::overlap
