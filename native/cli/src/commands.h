// The subcommands of `strata`; each returns the process exit status.
#pragma once

#include <string>
#include <vector>

namespace strata::cli {

struct RecordOptions {
  std::string output;              // "" = ./strata-YYYYmmdd-HHMMSS.strata
  int period_ms = 10;
  bool wall = false;
  std::vector<std::string> command;
};
int RunRecord(const RecordOptions& options);

struct ReportOptions {
  std::string file;
  std::string view = "top-down";
  std::string format = "text";
  long limit = -1;                 // -1: default (50 for text, all for json); 0: all
  std::string metric;              // "" = the first metric
  std::vector<std::string> symbol_paths;  // --symbol-path, then $STRATA_SYMBOL_PATH (a:b:c)
};
int RunReport(const ReportOptions& options);

struct AnalyzeCliOptions {
  std::string file;
  std::string format = "text";             // text | json | sarif
  std::vector<std::string> rule_files;     // --rules
  std::vector<std::string> settings;       // --set RULE.PARAM=VALUE
  std::vector<std::string> disabled;       // --disable RULE
  std::vector<std::string> symbol_paths;
};
int RunAnalyze(const AnalyzeCliOptions& options);

// Exit statuses.
inline constexpr int kExitUsage = 2;
inline constexpr int kExitError = 1;

}  // namespace strata::cli
