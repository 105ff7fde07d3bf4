// The profiles of one recorded run: the first process's and one per process it started
// (profiler_runtime writes a child's beside its parent's as <stem>.<pid>.strata, with meta
// `parent_pid` and `parent_profile`). Shown together (the tree) or one by one.
#pragma once

#include <cstdint>
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
  std::string exit;            // meta `exit` (strata record: "exited with code N", "killed by signal N (SIG...)")
  // A distributed job's process (meta written by the runtime from the launcher's environment;
  // absent keys keep these defaults): its rank, rank on its node, ranks in the job, node.
  int rank = -1, local_rank = -1, world_size = 0, node_rank = -1;
  std::string host;            // meta `host` (gethostname), "" when unknown
  std::string run_id;          // meta `run_id`: one id per `strata record` run, "" when unknown
  // The process's clock span: meta `start_unix_ns` (CLOCK_REALTIME at start) and `duration_ns`
  // (0 when unknown): where its time sits among the other processes' of the run.
  int64_t start_unix_ns = 0, duration_ns = 0;
  // meta `start_monotonic_ns`: CLOCK_MONOTONIC read together with start_unix_ns (0 when
  // unknown): the pair that moves this process's monotonic times (collective calls) onto its
  // host's realtime clock.
  int64_t start_monotonic_ns = 0;
  int depth = 0;               // 0: the first process (or a profile whose parent is missing)
  std::vector<MetricTotal> totals;  // additive metrics with values, in the profile's order
};

// `path` is a profile (its run: the profile and every profile below it, found in its folder)
// or a folder (every profile in it). Members in tree order: a parent before its children,
// children by pid. Files that are not readable profiles are skipped; a folder without any
// profile, or a path that is neither, is a core::Error. Profiles of different runs (two
// run_ids) are a core::Error naming them: one folder holds one run.
std::vector<RunMember> RunFamily(const std::string& path);

// How a member ended, in words, when that was not a normal exit ("" for one): "killed by signal 9
// (SIGKILL)", "signal SIGTERM", "no end written (its last checkpoint)", ...
std::string AbnormalEnd(const RunMember& member);

}  // namespace strata::core
