// Two profiles of one program compared call path by call path: where a metric's value grew or
// shrank between run A and run B. What `strata diff` prints and the viewer's diff mode shows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/api.h"

namespace strata::core {

// How a call path of B found its counterpart in A. The trees are matched from the root down,
// child by child (the Python view, so that interpreter frames, which differ between machines and
// versions, do not split paths): a child of the matched parent with the same kind, name, file
// and line is exact; failing that, one with the same kind, file and name (kernels: the name
// without template arguments, the signature's parameter types left out) at the nearest line is a
// fuzzy match: a line that moved, a kernel instantiated for other types.
enum class DiffMatch : uint8_t { kExact = 0, kFuzzy = 1, kOnlyB = 2, kOnlyA = 3 };
const char* DiffMatchName(DiffMatch match);  // "exact" | "fuzzy" | "only in B" | "only in A"

// One call path's self value in each run.
struct DiffRow {
  std::vector<FrameInfo> path;  // outermost first, the root left out (B's frames when B has it)
  double a = 0, b = 0;
  DiffMatch match = DiffMatch::kExact;
  int64_t node_b = -1;          // its node in DiffView::view (B's view); -1 when only A has it
  double change() const { return b - a; }
};

// A kernel (by its name without template arguments) that only one run launched.
struct KernelChange {
  std::string name;  // the full name of its heaviest instance
  double value = 0;  // its time in the run that has it
};

struct ProfileDiff {
  MetricInfo metric;
  double total_a = 0, total_b = 0;
  size_t common_paths = 0;      // call paths with a self value in both runs (exact or fuzzy)
  size_t fuzzy_paths = 0;       // of which matched fuzzily
  size_t only_a_paths = 0, only_b_paths = 0;  // call paths with a self value in one run only
  std::vector<DiffRow> rows;    // largest absolute change first (the first max_rows of them)
  std::vector<KernelChange> appeared, vanished;  // heaviest first
};

// Compares `metric` ("" = the first additive metric both profiles have). Throws Error (one line)
// when the metric is missing from either profile or is not additive, or when the call paths with
// a self value in both runs hold under 1% of either run's total (not two runs of one program).
// `max_rows`: at most this many rows, the largest changes (0: every path's): a pair of
// million-node profiles has a million rows, each with its path's frames.
ProfileDiff DiffProfiles(const Profile& a, const Profile& b, const std::string& metric = "", size_t max_rows = 0);

// B's top-down view (the Python view where B has Python frames; the compared metric's values
// only, View::values) with, per node, the inclusive value of its matched node in A (0 where none)
// and how it matched: the viewer's diff mode colours B's flame graph by inclusive(B) -
// a_inclusive, and sends it in parts as it sends any view (SliceView).
struct DiffView {
  ProfileDiff diff;
  size_t metric_b = 0;              // the compared metric's index in B
  View view;                        // of B
  std::vector<double> a_inclusive;  // per node of `view`
  std::vector<DiffMatch> match;     // per node of `view` (the root: exact)
  double largest_change = 0;        // of |inclusive - a_inclusive| over every node but the root
};
DiffView DiffProfilesView(const Profile& a, const Profile& b, const std::string& metric = "", size_t max_rows = 0);

// The name a kernel keeps across template instantiations: template arguments and the parameter
// list left out ("void ns::k<float, 4>(float*, int)" -> "void ns::k").
std::string KernelBaseName(const std::string& name);

// A text table of the `limit` largest gains and losses (0: all): change, A, B, the frame and its
// callers; then the kernels that appeared or vanished.
std::string DiffText(const ProfileDiff& diff, size_t limit);

}  // namespace strata::core
