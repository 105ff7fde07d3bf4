// JSON report, format_version 1: the contract in docs/report-json.md.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "stall_summary.h"
#include "strata/core/report.h"

namespace strata::core {

std::string JsonReport(const Profile& profile, const View& view, const ReportOptions& options) {
  using json = nlohmann::ordered_json;
  json doc;
  doc["format_version"] = 1;
  json meta = json::object();
  for (const auto& [k, v] : profile.meta()) meta[k] = v;
  doc["profile"] = {{"version", profile.version()}, {"meta", std::move(meta)}};
  doc["view"] = ViewKindName(view.kind);
  json metrics = json::array();
  for (const auto& m : profile.metrics()) metrics.push_back({{"name", m.name}, {"unit", m.unit}});
  doc["metrics"] = std::move(metrics);

  json nodes = json::array();
  const auto& infos = profile.metrics();
  for (int32_t id : SelectNodes(view, options.metric, options.limit)) {
    const FrameInfo& f = view.frame(size_t(id));
    json node;
    node["id"] = id;
    node["parent"] = view.parent[size_t(id)];
    node["kind"] = f.kind;
    node["name"] = f.name;
    node["file"] = f.file;
    node["line"] = f.line;
    node["module"] = f.module;
    if (f.truncated) node["truncated"] = true;
    if (!f.fused_lines.empty()) {
      json lines = json::array();
      for (const SourceLine& l : f.fused_lines)
        lines.push_back({{"file", l.file}, {"function", l.function}, {"line", l.line}});
      node["fused_lines"] = std::move(lines);
    }
    if (f.kind == "native" || f.kind == "pc") {
      char buf[32];
      std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(f.address));
      node["address"] = buf;
    }
    json ms = json::object();
    for (size_t k = 0; k < view.metric_count && k < infos.size(); ++k) {
      const NodeMetric& m = view.metric(size_t(id), k);
      ms[infos[k].name] = {{"inclusive", m.inclusive}, {"exclusive", m.exclusive}, {"count", m.count},
                           {"min", m.min}, {"max", m.max}, {"mean", m.mean}, {"std", m.std}};
    }
    node["metrics"] = std::move(ms);
    nodes.push_back(std::move(node));
  }
  doc["nodes"] = std::move(nodes);

  // PC sampling: present only when the profile has stall metrics (docs/report-json.md).
  const auto kernels = detail::SummarizeStalls(profile);
  if (!kernels.empty()) {
    auto reasons = [](const std::vector<detail::StallReason>& rs) {
      json a = json::array();
      for (const auto& r : rs) a.push_back({{"reason", r.reason}, {"samples", r.samples}, {"share", r.share}});
      return a;
    };
    json stalls = json::array();
    for (const auto& k : kernels) {
      json lines = json::array();
      for (const auto& l : k.lines)
        lines.push_back({{"file", l.file}, {"line", l.line}, {"samples", l.samples}, {"top_reasons", reasons(l.top)}});
      stalls.push_back({{"kernel", k.kernel}, {"samples", k.samples}, {"reasons", reasons(k.reasons)},
                        {"lines", std::move(lines)}});
    }
    doc["gpu_stalls"] = std::move(stalls);
  }
  return doc.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace strata::core
