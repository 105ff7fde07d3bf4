// strata analyze: runs the analyzers (built-in rules and rule files) over a profile and prints
// the findings as text, JSON (docs/analyzers.md) or SARIF. A run folder is analyzed merged; a
// distributed job's with its ranks compared (straggler, exposed communication, imbalance).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <cstdlib>
#include <string>

#include "commands.h"
#include "symbol_paths.h"
#include "strata/core/analyze.h"
#include "strata/core/api.h"
#include "strata/core/rank_run.h"
#include "strata/core/run_family.h"
#include "strata/core/run_merge.h"

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
    // A run folder: a distributed job's ranks merged with their rank dimension (the rank rules
    // compare them), any other run's processes merged as they are.
    std::error_code ec;
    std::unique_ptr<core::RankRun> ranks;
    std::unique_ptr<core::Profile> profile;
    if (std::filesystem::is_directory(options.file, ec)) {
      auto members = core::RunFamily(options.file);
      const bool ranked = std::any_of(members.begin(), members.end(), [](const core::RunMember& m) { return m.rank >= 0; });
      if (ranked) {
        ranks = core::RankRun::Open(members, open);
        ao.ranks = ranks.get();
      } else {
        profile = core::MergeRun(members, open);
      }
      ao.profile_path.clear();  // no one file holds the captured region buffers
    } else {
      profile = core::Profile::Open(options.file, open);
    }
    result = core::Analyze(ranks ? ranks->profile() : *profile, ao);
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
