// `strata analyze --format json` and the addon's analyze(): the contract in docs/analyzers.md.
#include <nlohmann/json.hpp>

#include "strata/core/analyze.h"

namespace strata::core {

namespace {
nlohmann::ordered_json FrameJson(const FindingFrame& f) {
  return {{"kind", f.kind}, {"name", f.name}, {"file", f.file}, {"line", f.line}};
}
}  // namespace

std::string FindingsJson(const AnalysisResult& result, const std::string& profile_path) {
  using json = nlohmann::ordered_json;
  json doc;
  doc["format_version"] = 1;
  // What a finding without a source line (location.file "") is attached to.
  doc["profile"] = profile_path;
  json findings = json::array();
  for (const auto& f : result.findings) {
    json j;
    j["rule"] = f.rule;
    j["severity"] = f.severity;
    j["message"] = f.message;
    j["node"] = f.node;
    j["location"] = FrameJson(f.location);
    json path = json::array();
    for (const auto& p : f.path) path.push_back(FrameJson(p));
    j["path"] = std::move(path);
    json ev = json::array();
    for (const auto& e : f.evidence) ev.push_back({{"name", e.name}, {"value", e.value}, {"unit", e.unit}});
    j["evidence"] = std::move(ev);
    j["cause"] = f.cause;
    json others = json::array();
    for (const auto& other : f.other_paths) {
      json op = json::array();
      for (const auto& p : other) op.push_back(FrameJson(p));
      others.push_back(std::move(op));
    }
    j["other_paths"] = std::move(others);
    findings.push_back(std::move(j));
  }
  doc["findings"] = std::move(findings);
  doc["errors"] = result.errors;
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace strata::core
