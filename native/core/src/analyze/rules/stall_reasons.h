// What each CUPTI PC-sampling stall reason means for the stall rule: whether it is a latency
// stall worth fixing at a source line, and a short piece of advice (docs/analyzers.md lists them).
#pragma once

#include <string>

#include "strata/core/analyze.h"

namespace strata::core::detail {

using core::StallClass;

struct StallReasonInfo {
  StallClass kind;
  const char* advice;      // what to change; "" for non-latency reasons
  // For reasons where the sampled instruction waits for a register another one produces: what
  // that producer usually is ("the load"); "" otherwise.
  const char* producer;
};

// `reason` without the metric's `stall_` prefix. Reasons a newer CUPTI adds and the table lacks
// are latency stalls with generic advice: better a finding to read than a stall hidden.
StallReasonInfo StallReason(const std::string& reason);

}  // namespace strata::core::detail
