// Assembles the run's meta entries and writes the CCT as a profile file (format v1).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cct/cct.h"

namespace strata::rt::writer {

struct RunInfo {
  std::string output;
  std::string command;
  int pid = 0;
  std::string mode;           // "cpu" | "wall"
  std::string sampler;        // sampler::StatusLine(): timer kind and signal
  uint64_t period_ns = 0;
  uint64_t start_unix_ns = 0;
  uint64_t start_monotonic_ns = 0;  // CLOCK_MONOTONIC read with start_unix_ns (aligns ranks' clocks)
  uint64_t duration_ns = 0;
  uint64_t samples = 0;
  uint64_t samples_dropped = 0;
  uint64_t unwind_failures = 0;
  std::string python;         // "3.11.2" | "none" | "3.10.4 (unsupported)"
  uint64_t threads_seen = 0;
  std::string ended;          // "exit" | "signal SIGTERM" | ...
  std::string gpu = "not collected";  // gpu::StatusNow().line: "collected: ..." | "not collected: <why>"
  std::vector<std::pair<std::string, std::string>> gpu_sampling;  // gpu::StatusNow().sampled
  std::vector<Cct::MetricFactor> metric_factors;                  // its factors
  std::string pc_sampling = "off";    // gpu::PcSamplingStatusLine()
  std::string regions = "off";        // gpu::RegionsStatusLine()
  std::string collectives;            // collectives::StatusLine()
  uint64_t checkpoint_period_ns = 0;  // 0: no periodic checkpoints
  uint64_t checkpoints = 0;           // checkpoints written (this file included if it is one)
  long parent_pid = 0;                // a child process: the profiled process that started it
  std::string parent_profile;         // its profile's file name (same folder)
  std::vector<std::pair<std::string, std::string>> identity;  // ranks::RankMeta
};

// Any number of times (checkpoints, then the end); `transient` counts in this file only.
bool WriteProfile(Cct& cct, const RunInfo& info, std::string* error,
                  const std::vector<Cct::TransientValue>& transient = {});

// Command line of this process from /proc/self/cmdline, arguments joined by spaces.
std::string ReadCommandLine();

}  // namespace strata::rt::writer
