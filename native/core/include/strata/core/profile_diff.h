// Two profiles of one program compared call path by call path: where a metric's self value grew
// or shrank between run A and run B.
#pragma once

#include <string>
#include <vector>

#include "strata/core/api.h"

namespace strata::core {

// One call path's self value in each run. A path is matched across runs by its frames' kind,
// name, file and line (the Python view, so that interpreter frames, which differ between
// machines and versions, do not split paths); a path only one run has has 0 in the other.
struct DiffRow {
  std::vector<FrameInfo> path;  // outermost first, the root left out
  double a = 0, b = 0;
  double change() const { return b - a; }
};

struct ProfileDiff {
  MetricInfo metric;
  double total_a = 0, total_b = 0;
  size_t common_paths = 0;      // call paths (with a self value) that both runs have
  std::vector<DiffRow> rows;    // largest absolute change first
};

// Compares `metric` ("" = the first additive metric both profiles have). Throws Error (one line)
// when the metric is missing from either profile or is not additive, or when no call path with
// a self value is common to both profiles (not two runs of one program).
ProfileDiff DiffProfiles(const Profile& a, const Profile& b, const std::string& metric = "");

// A text table of the `limit` largest gains and losses (0: all): change, A, B, the frame and its
// callers.
std::string DiffText(const ProfileDiff& diff, size_t limit);

}  // namespace strata::core
