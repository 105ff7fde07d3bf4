// Runs one parsed user rule over the top-down view: nodes whose metrics satisfy every `when`
// condition and whose call path matches `path` become findings (the heaviest max_findings).
#pragma once

#include <string>
#include <vector>

#include "../analysis_context.h"
#include "rule_file.h"

namespace strata::core::detail {

// False (with "FILE:LINE: message" in *error) when the rule names a metric the profile lacks.
bool RunUserRule(const AnalysisContext& cx, const UserRule& rule, std::vector<Finding>& out, std::string* error);

}  // namespace strata::core::detail
