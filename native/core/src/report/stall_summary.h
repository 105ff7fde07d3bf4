// PC-sampling summary for reports (issue 4): per kernel, the stall reasons and the source lines
// that stall, from the pc nodes' `pc_samples` and `stall_<reason>` metrics. Empty when the
// profile has no stall metrics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/api.h"

namespace strata::core::detail {

struct StallReason {
  std::string reason;   // without the "stall_" prefix, e.g. "long_scoreboard"
  double samples = 0;
  double share = 0;     // of the kernel's (or line's) stall samples
};

struct StallLine {
  std::string file;     // innermost source line of the pc frames ("" / 0 when unknown)
  uint32_t line = 0;
  double samples = 0;
  std::vector<StallReason> top;  // the 3 largest reasons at this line
};

struct KernelStalls {
  std::string kernel;   // the kernel frame's name (call paths of one kernel merged)
  double samples = 0;
  std::vector<StallReason> reasons;  // descending
  std::vector<StallLine> lines;      // descending by samples
};

// Kernels descending by samples.
std::vector<KernelStalls> SummarizeStalls(const Profile& profile);

}  // namespace strata::core::detail
