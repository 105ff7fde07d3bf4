// Analyze(): the built-in rules and the user rules over one top-down view.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>

#include "analysis_context.h"
#include "rules/builtin_rules.h"
#include "strata/core/analyze.h"
#include "user_rules/rule_eval.h"
#include "user_rules/rule_file.h"

namespace strata::core {

std::map<std::string, double> DefaultThresholds() {
  std::map<std::string, double> out;
  for (const auto& r : detail::BuiltinRules())
    for (const auto& [name, value] : r.params) out[std::string(r.id) + "." + name] = value;
  return out;
}

AnalysisResult Analyze(const Profile& profile, const AnalyzeOptions& options) {
  ViewOptions vo;
  vo.primary_metric = 0;
  vo.expand = false;  // the rules read the compact form
  return Analyze(profile, profile.BuildView(ViewKind::kTopDown, vo), options);
}

AnalysisResult Analyze(const Profile& profile, View top_down, const AnalyzeOptions& options) {
  std::map<std::string, double> params = DefaultThresholds();
  for (const auto& [key, value] : options.thresholds) {
    if (!params.count(key)) {
      std::string known;
      for (const auto& [k, v] : params) known += (known.empty() ? "" : ", ") + k;
      throw Error("unknown rule parameter '" + key + "' (known: " + known + ")");
    }
    params[key] = value;
  }
  std::set<std::string> disabled(options.disabled.begin(), options.disabled.end());
  AnalysisResult result;
  using Clock = std::chrono::steady_clock;
  auto lap = [&, t = Clock::now()](const std::string& what) mutable {
    auto now = Clock::now();
    result.timings_ms.push_back({what, std::chrono::duration<double, std::milli>(now - t).count()});
    t = now;
  };
  detail::AnalysisContext cx(profile, std::move(top_down));
  lap("context");
  for (const auto& rule : detail::BuiltinRules()) {
    if (disabled.count(rule.id)) continue;
    rule.run(cx, detail::RuleParams(rule.id, params), result.findings);
    lap(rule.id);
  }
  for (const auto& file : options.rule_files) {
    std::ifstream in(file);
    if (!in) {
      result.errors.push_back(file + ": cannot read the rule file");
      continue;
    }
    std::stringstream text;
    text << in.rdbuf();
    for (const auto& rule : detail::ParseRuleFile(file, text.str(), &result.errors)) {
      if (disabled.count(rule.id)) continue;
      std::string error;
      if (!detail::RunUserRule(cx, rule, result.findings, &error)) result.errors.push_back(error);
    }
  }
  lap("user rules");
  auto rank = [](const std::string& s) { return s == "error" ? 0 : s == "warning" ? 1 : 2; };
  auto weight = [](const Finding& f) { return f.evidence.empty() ? 0.0 : f.evidence.front().value; };
  std::stable_sort(result.findings.begin(), result.findings.end(), [&](const Finding& a, const Finding& b) {
    if (rank(a.severity) != rank(b.severity)) return rank(a.severity) < rank(b.severity);
    return weight(a) > weight(b);
  });
  return result;
}

}  // namespace strata::core
