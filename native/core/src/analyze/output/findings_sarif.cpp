// `strata analyze --format sarif`: SARIF 2.1.0, one run, a result per finding with its source
// location and the call path as a code flow (what code-scanning tools and editors read).
#include <nlohmann/json.hpp>
#include <set>

#include "strata/core/analyze.h"

namespace strata::core {

namespace {
// A source line; a file without a line is the whole file (no region), never a made-up line 1.
nlohmann::ordered_json Location(const FindingFrame& f, const std::string& text) {
  nlohmann::ordered_json loc;
  nlohmann::ordered_json physical = {{"artifactLocation", {{"uri", "file://" + f.file}}}};
  if (f.line) physical["region"] = {{"startLine", f.line}};
  loc["physicalLocation"] = std::move(physical);
  if (!text.empty()) loc["message"] = {{"text", text}};
  return loc;
}

// A finding with no source line is about the profile itself (a kernel without line information,
// the whole run): it points at the profile (artifact 0) with no region, and names the frame it is
// about as a logical location.
nlohmann::ordered_json ProfileLocation(const Finding& f, const std::string& profile_path) {
  nlohmann::ordered_json loc;
  loc["physicalLocation"] = {{"artifactLocation", {{"uri", "file://" + profile_path}, {"index", 0}}}};
  if (!f.path.empty())
    loc["logicalLocations"] = nlohmann::ordered_json::array({{{"name", f.path.back().name}, {"kind", "function"}}});
  loc["message"] = {{"text", f.path.empty() ? "the whole profile (no source line)" : "no source line"}};
  return loc;
}
}  // namespace

std::string FindingsSarif(const AnalysisResult& result, const std::string& profile_path) {
  using json = nlohmann::ordered_json;
  std::set<std::string> rule_ids;
  json results = json::array();
  for (const auto& f : result.findings) {
    rule_ids.insert(f.rule);
    json r;
    r["ruleId"] = f.rule;
    r["level"] = f.severity;
    r["message"] = {{"text", f.message}};
    json locs = json::array();
    locs.push_back(f.location.file.empty() ? ProfileLocation(f, profile_path) : Location(f.location, ""));
    r["locations"] = std::move(locs);
    json steps = json::array();
    for (const auto& p : f.path)
      if (!p.file.empty() && p.line) steps.push_back({{"location", Location(p, p.kind + " " + p.name)}});
    if (!steps.empty()) r["codeFlows"] = json::array({{{"threadFlows", json::array({{{"locations", steps}}})}}});
    json props = json::object();
    for (const auto& e : f.evidence) props[e.name] = e.value;
    r["properties"] = std::move(props);
    results.push_back(std::move(r));
  }
  json rules = json::array();
  for (const auto& id : rule_ids) rules.push_back({{"id", id}});
  json run;
  run["tool"] = {{"driver", {{"name", "strata"}, {"informationUri", "https://github.com/strata-profiler/strata"}, {"rules", rules}}}};
  run["artifacts"] = json::array({{{"location", {{"uri", "file://" + profile_path}}}, {"description", {{"text", "the analyzed profile"}}}}});
  run["results"] = std::move(results);
  json doc;
  doc["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
  doc["version"] = "2.1.0";
  doc["runs"] = json::array({run});
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace strata::core
