// The user-rule language (docs/analyzers.md): a rule file of [rule ID] sections with
//   severity = note | warning | error
//   path     = [^] MATCHER > ... > MATCHER     (MATCHER: KIND:NAME_GLOB[@FILE_GLOB], or ... )
//   when     = FUNC(METRIC) OP VALUE [and ...]  (FUNC: inclusive exclusive count mean min max
//                                                std share self_share; VALUE: number, %, ns us ms s)
//   message  = text with {name} {file} {line} {kind} {location} {FUNC(METRIC)}
//   max_findings = N
// Parsing keeps each item's line so errors name FILE:LINE.
#pragma once

#include <string>
#include <vector>

namespace strata::core::detail {

struct FrameMatcher {
  bool any_run = false;    // "...": any number of frames (also none)
  std::string kind = "*";  // frame kind or "*"
  std::string name = "*";  // glob
  std::string file = "*";  // glob
};

struct Predicate {
  std::string func;        // inclusive, exclusive, count, mean, min, max, std, share, self_share
  std::string metric;
  std::string op;          // > >= < <= == !=
  double value = 0;
  bool percent = false;    // VALUE was given with %: compared as a share of the metric's total
  int line = 0;
};

struct UserRule {
  std::string id;
  std::string severity = "warning";
  bool anchored = false;   // path started with ^: matched from the root
  std::vector<FrameMatcher> path;
  std::vector<Predicate> when;
  std::string message;
  size_t max_findings = 20;
  std::string file;
  int line = 0;            // of the [rule ...] header
};

// Parses `text` (the contents of `file`). Rules with errors are left out; each error is
// "FILE:LINE: message".
std::vector<UserRule> ParseRuleFile(const std::string& file, const std::string& text, std::vector<std::string>* errors);

}  // namespace strata::core::detail
