// Process-wide runtime state shared by the parts: configuration and the active flag.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "ranks/rank_identity.h"

namespace strata::rt::state {

enum class Mode { kCpu, kWall };

struct Config {
  std::string output;          // STRATA_OUTPUT
  uint64_t period_ns = 10000000;
  Mode mode = Mode::kCpu;
  std::string period_text;     // as given, for diagnostics
  uint64_t checkpoint_ns = 60ull * 1000000000ull;  // STRATA_CHECKPOINT_S; 0: no checkpoints
  bool follow_children = true;                     // STRATA_CHILDREN (0: the first process only)
  // A child process (of a profiled one): its parent's pid and profile path ("" / 0 for the
  // first process). Written to meta `parent_pid` / `parent_profile`.
  long parent_pid = 0;
  std::string parent_profile;
  std::string first_output;    // the first process's profile (children are named after it)
  bool first_process = true;   // the process `strata record` started (or its exec'd image)
  ranks::RankIdentity identity;  // rank, host and run id (meta)
};

// True in the profiled process once the runtime started (false in children, forks, and when
// STRATA_OUTPUT is unset).
bool Active();
// The pid the runtime profiles (a vfork child shares our memory but not this pid).
pid_t ProfiledPid();
const Config& GetConfig();

}  // namespace strata::rt::state
