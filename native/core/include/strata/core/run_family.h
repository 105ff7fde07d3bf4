// The profiles of one recorded run: the first process's and one per process it started
// (profiler_runtime writes a child's beside its parent's as <stem>.<pid>.strata, with meta
// `parent_pid` and `parent_profile`). Shown together (the tree) or one by one.
#pragma once

#include <string>
#include <vector>

namespace strata::core {

// One additive metric's total over a process's profile (what a list of processes shows: CPU
// time, samples, GPU time).
struct MetricTotal {
  std::string name;    // "cpu_time", "gpu_time", ...
  std::string unit;    // "ns", "count", ...
  double total = 0;    // the root's inclusive value
  uint64_t count = 0;  // events (samples, kernel launches)
};

struct RunMember {
  std::string path;            // the profile file
  long pid = 0;                // meta `pid`
  long parent_pid = 0;         // meta `parent_pid`; 0 for a run's first process
  std::string parent_profile;  // meta `parent_profile` (file name in the same folder), or ""
  std::string command;         // meta `command`
  std::string ended;           // meta `ended` ("exit", "checkpoint", "signal SIGTERM", ...)
  int depth = 0;               // 0: the first process (or a profile whose parent is missing)
  std::vector<MetricTotal> totals;  // additive metrics with values, in the profile's order
};

// `path` is a profile (its run: the profile and every profile below it, found in its folder)
// or a folder (every profile in it). Members in tree order: a parent before its children,
// children by pid. Files that are not readable profiles are skipped; a folder without any
// profile, or a path that is neither, is a core::Error.
std::vector<RunMember> RunFamily(const std::string& path);

}  // namespace strata::core
