// Process-wide runtime state shared by the parts: configuration and the active flag.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace strata::rt::state {

enum class Mode { kCpu, kWall };

struct Config {
  std::string output;          // STRATA_OUTPUT
  uint64_t period_ns = 10000000;
  Mode mode = Mode::kCpu;
  std::string period_text;     // as given, for diagnostics
};

// True in the profiled process once the runtime started (false in children, forks, and when
// STRATA_OUTPUT is unset).
bool Active();
// The pid the runtime profiles (a vfork child shares our memory but not this pid).
pid_t ProfiledPid();
const Config& GetConfig();

}  // namespace strata::rt::state
