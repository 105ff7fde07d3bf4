// strata analyze: runs the analyzers (built-in rules and rule files) over a profile and prints
// the findings as text, JSON (docs/analyzers.md) or SARIF.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "commands.h"
#include "symbol_paths.h"
#include "strata/core/analyze.h"
#include "strata/core/api.h"

namespace strata::cli {

int RunAnalyze(const AnalyzeCliOptions& options) {
  std::string out;
  core::AnalysisResult result;
  try {
    core::OpenOptions open;
    open.symbol_paths = SymbolPaths(options.symbol_paths);
    core::AnalyzeOptions ao;
    ao.rule_files = options.rule_files;
    ao.disabled = options.disabled;
    ao.all_phases = options.all_phases;
    ao.profile_path = options.file;
    for (const auto& kv : options.settings) {
      size_t eq = kv.find('=');
      char* end = nullptr;
      double value = eq == std::string::npos ? 0 : std::strtod(kv.c_str() + eq + 1, &end);
      if (eq == std::string::npos || end == kv.c_str() + eq + 1 || *end) {
        std::fprintf(stderr, "strata: --set %s: expected RULE.PARAMETER=NUMBER (e.g. hotspot.share=0.05)\n", kv.c_str());
        return kExitUsage;
      }
      ao.thresholds[kv.substr(0, eq)] = value;
    }
    auto profile = core::Profile::Open(options.file, open);
    result = core::Analyze(*profile, ao);
    if (options.format == "json") out = core::FindingsJson(result, options.file);
    else if (options.format == "sarif") out = core::FindingsSarif(result, options.file);
    else out = core::FindingsText(result);
  } catch (const core::Error& e) {
    std::fprintf(stderr, "strata: %s: %s\n", options.file.c_str(), e.what());
    return kExitError;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  if (std::fflush(stdout) != 0) return kExitError;
  // Rule-file errors: the other rules ran and printed; say what was wrong and fail.
  if (options.format != "text")
    for (const auto& e : result.errors) std::fprintf(stderr, "strata: %s\n", e.c_str());
  return result.errors.empty() ? 0 : kExitError;
}

}  // namespace strata::cli
