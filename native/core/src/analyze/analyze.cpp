// Analyze(): the built-in rules and the user rules over one top-down view.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "analysis_context.h"
#include "data_loader_frames.h"
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

namespace {
// The time under a DataLoader's next-batch call is the loader's: where data-loader tells it, a CPU
// hotspot on that path (the dataset's __getitem__, the wait in the queue's poll) and the GPU-idle
// finding on that path or at the loop line say the same thing with the wrong advice. Done before
// merging, so that a merged finding does not carry them along.
void LeaveLoaderTimeToItsRule(std::vector<Finding>& findings) {
  std::set<std::pair<std::string, uint32_t>> loops;
  for (const auto& f : findings)
    if (f.rule == "data-loader") loops.insert({f.location.file, f.location.line});
  if (loops.empty()) return;
  auto under_loader = [](const Finding& f) {
    for (const auto& fr : f.path)
      if (detail::ClassifyLoaderFrame(fr.name, fr.file) == detail::LoaderFrame::kNext) return true;
    return false;
  };
  findings.erase(std::remove_if(findings.begin(), findings.end(), [&](const Finding& f) {
                   if (f.rule == "hotspot" && f.cause.rfind("gpu_time:", 0) != 0) return under_loader(f);
                   return f.rule == "cpu-latency" && f.cause == "run" &&
                          (under_loader(f) || loops.count({f.location.file, f.location.line}) > 0);
                 }),
                 findings.end());
}

// One finding per cause: a rule's findings with the same cause in the same function of the user's
// code (one line reached over several call paths: a warm-up loop and the timed loop calling one
// function; several lines of one loop, each launching tiny kernels; a warm-up call and the timed
// call of generate()) become the heaviest one, with the others' call paths and lines.
void MergeSameCause(std::vector<Finding>& findings) {
  std::map<std::vector<std::string>, size_t> kept;  // key -> index into out
  std::vector<Finding> out;
  std::vector<size_t> merged;  // per out entry: findings merged into it
  auto weight = [](const Finding& f) { return f.evidence.empty() ? 0.0 : f.evidence.front().value; };
  for (auto& f : findings) {
    if (f.cause.empty() || f.location.file.empty()) {
      out.push_back(std::move(f));
      merged.push_back(0);
      continue;
    }
    std::vector<std::string> key = {f.rule, f.cause, f.location.file, f.location.name};
    auto it = kept.find(key);
    if (it == kept.end()) {
      kept.emplace(std::move(key), out.size());
      out.push_back(std::move(f));
      merged.push_back(0);
      continue;
    }
    Finding& k = out[it->second];
    if (weight(f) > weight(k)) std::swap(k, f);  // the heavier one speaks; f is now the lighter
    k.other_paths.push_back(std::move(f.path));
    for (auto& p : f.other_paths) k.other_paths.push_back(std::move(p));
    ++merged[it->second];
  }
  for (size_t i = 0; i < out.size(); ++i) {
    Finding& f = out[i];
    if (!merged[i]) continue;
    std::set<uint32_t> lines;
    for (const auto& p : f.other_paths)
      for (const auto& fr : p)
        if (fr.file == f.location.file && fr.name == f.location.name && fr.line != f.location.line) lines.insert(fr.line);
    std::string also = " The same holds on " + std::to_string(f.other_paths.size()) + " more call path" +
                       (f.other_paths.size() > 1 ? "s" : "");
    if (!lines.empty()) {
      also += " (at line";
      also += lines.size() > 1 ? "s " : " ";
      size_t i = 0;
      for (uint32_t l : lines) also += (i++ ? ", " : "") + std::to_string(l);
      also += " of " + f.location.name + ")";
    }
    f.message += also + "; the figures are for line " + std::to_string(f.location.line) + ".";
    bool counted = false;
    for (auto& e : f.evidence)
      if (e.name == "call_paths") { e.value = double(f.other_paths.size() + 1); counted = true; }
    if (!counted) f.evidence.push_back({"call_paths", double(f.other_paths.size() + 1), "count"});
  }
  // A line that cpu-latency finds waiting on its own CPU work is not also a CPU hotspot: the
  // same time, one cause.
  // Likewise an indexing kernel at a line whose backward forward-backward explains.
  std::set<std::pair<std::string, uint32_t>> waiting, backward;
  for (const auto& f : out) {
    if (f.rule == "cpu-latency" && f.cause == "line") waiting.insert({f.location.file, f.location.line});
    if (f.rule == "forward-backward") backward.insert({f.location.file, f.location.line});
  }
  findings.clear();
  for (auto& f : out) {
    bool cpu_hotspot = f.rule == "hotspot" && f.cause.rfind("gpu_time:", 0) != 0;
    if (cpu_hotspot && waiting.count({f.location.file, f.location.line})) continue;
    if (f.rule == "hotspot" && f.cause == "gpu_time:indexing kernel" && backward.count({f.location.file, f.location.line}))
      continue;
    findings.push_back(std::move(f));
  }
}
}  // namespace

AnalysisResult Analyze(const Profile& profile, const AnalyzeOptions& options) {
  ViewOptions vo;
  vo.primary_metric = 0;
  vo.expand = false;  // the rules read the compact form
  vo.all_metrics = false;  // and each metric they read when they read it (AnalysisContext)
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
  detail::AnalysisContext cx(profile, std::move(top_down), options.all_phases, options.profile_path);
  cx.set_ranks(options.ranks);
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
  LeaveLoaderTimeToItsRule(result.findings);
  MergeSameCause(result.findings);
  auto rank = [](const std::string& s) { return s == "error" ? 0 : s == "warning" ? 1 : 2; };
  auto weight = [](const Finding& f) { return f.evidence.empty() ? 0.0 : f.evidence.front().value; };
  std::stable_sort(result.findings.begin(), result.findings.end(), [&](const Finding& a, const Finding& b) {
    if (rank(a.severity) != rank(b.severity)) return rank(a.severity) < rank(b.severity);
    return weight(a) > weight(b);
  });
  return result;
}

}  // namespace strata::core
