// CPU / wall sampling: SIGPROF handler, the ITIMER_PROF timer (cpu mode) and the thread that
// signals every thread each period (wall mode).
#pragma once

#include <cstdint>

namespace strata::rt::sampler {

struct Counters {
  uint64_t samples;          // records committed to rings
  uint64_t dropped;          // ring full or no slot
  uint64_t unwind_failures;  // libunwind errors, faults while reading, loader-busy PC-only
};

// Installs the SIGPROF handler and starts the timer or the wall sampler thread.
bool Start(uint64_t period_ns, bool wall);
// Stops sample generation (timer off, wall thread told to stop). Async-signal-safe.
void Stop();
Counters GetCounters();

}  // namespace strata::rt::sampler
