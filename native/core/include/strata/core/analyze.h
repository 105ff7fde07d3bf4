// Analyzers: rules that search a profile's calling context tree and report findings that say
// what to change (docs/analyzers.md). Built-in rules and user rules (a rule file) produce the
// same Finding and run through the same engine. Used by `strata analyze` and the addon.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "strata/core/api.h"

namespace strata::core {

class RankRun;

// One frame of a finding's call path, root side first.
struct FindingFrame {
  std::string kind;   // "python", "native", "operator", "gpu_api", "kernel", "pc", "region"
  std::string name;
  std::string file;   // "" when unknown
  uint32_t line = 0;  // 0 when unknown
};

// A number that supports the finding ("cpu_time share 0.42", "launches 1200").
struct Evidence {
  std::string name;
  double value = 0;
  std::string unit;  // "ns", "share" (0..1), "count", "bytes", "ratio", "us"
};

struct Finding {
  std::string rule;      // "hotspot", "kernel-fusion", "forward-backward", "stall", "cpu-latency",
                         // or a user rule's id
  std::string severity;  // "error", "warning" or "note" (SARIF levels)
  std::string message;   // what is wrong and what to change, one paragraph
  int32_t node = -1;     // top-down view node (BuildView(kTopDown, metric 0)); -1: whole profile
  // The source line the finding is about: the node's frame when it has one, else the nearest
  // caller with a file and line. Empty file: no source location known.
  FindingFrame location;
  std::vector<FindingFrame> path;  // the node's call path, root excluded
  std::vector<Evidence> evidence;
  // What the rule found, as a short identifier ("launch-bound", a kernel's name, "python"): the
  // findings of one rule with the same cause at the same place (the location's function and the
  // call made from it) are merged into one, the heaviest, whose other_paths are the others' paths.
  std::string cause;
  std::vector<std::vector<FindingFrame>> other_paths;  // root excluded, as `path`
};

struct AnalyzeOptions {
  // "rule.parameter" -> value, overriding the defaults (docs/analyzers.md lists them), e.g.
  // {"hotspot.share", 0.05}. Unknown keys are an error (Analyze throws Error).
  std::map<std::string, double> thresholds;
  // Rule files (the user-rule language, docs/analyzers.md). A file that cannot be read or has
  // errors contributes its errors to AnalysisResult::errors; the other rules still run.
  std::vector<std::string> rule_files;
  // Rule ids not to run.
  std::vector<std::string> disabled;
  // Judge every phase of the run (imports, model construction, compilation, warm-up); by default
  // the rules judge the steady state only (docs/analyzers.md "Phases").
  bool all_phases = false;
  // The profile's file, when known: region-imbalance decodes the captured region buffers again
  // to tell imbalance inside blocks from imbalance between blocks.
  std::string profile_path;
  // A distributed job's ranks (RankRun) when `profile` is its merged profile: the rank rules
  // (straggler, exposed-communication, rank-imbalance) compare the ranks; without it they are
  // silent.
  const RankRun* ranks = nullptr;
};

struct AnalysisResult {
  std::vector<Finding> findings;    // most severe first, then by evidence weight
  std::vector<std::string> errors;  // "FILE:LINE: message" for rule files
  // Wall milliseconds per stage: "context" (derived arrays), each rule id, "user rules".
  std::vector<std::pair<std::string, double>> timings_ms;
};

// Runs every enabled built-in rule and the user rules. Throws Error on unknown threshold keys.
AnalysisResult Analyze(const Profile& profile, const AnalyzeOptions& options = {});
// The same over a top-down view the caller already built (BuildView(kTopDown) with metric 0,
// compact form is enough): a viewer that shows the profile does not build it twice.
AnalysisResult Analyze(const Profile& profile, View top_down, const AnalyzeOptions& options);

// The built-in rules' ids and their parameters with defaults ("hotspot.share" -> 0.1).
std::map<std::string, double> DefaultThresholds();

// What a CUPTI PC-sampling stall reason is to the stall rule and to line heat.
enum class StallClass {
  kLatency,     // the warp waited on something: the line is where to look
  kThroughput,  // the warp issued, or could have but the pipe was busy: nothing to fix at a line
  kNotAReason,  // CUPTI bookkeeping exported next to the reasons (sample_count, samples_data_dropped)
};
// The class of a metric counting one stall reason ("stall_<reason>"); nullopt for any other metric.
std::optional<StallClass> StallMetricClass(const std::string& metric_name);
const char* StallClassName(StallClass c);  // "latency", "throughput", "not_a_reason"

// Output formats of `strata analyze`: text for a terminal, JSON (docs/analyzers.md), SARIF 2.1.0
// (for code-scanning tools and editors). A finding without a source line is attached to the
// profile (`profile_path`, "" when unknown), never to a made-up line.
std::string FindingsText(const AnalysisResult& result);
std::string FindingsJson(const AnalysisResult& result, const std::string& profile_path);
std::string FindingsSarif(const AnalysisResult& result, const std::string& profile_path);

}  // namespace strata::core
