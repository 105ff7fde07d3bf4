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

// Around execve of the profiled process: the ITIMER_PROF timer and a pending SIGPROF survive
// exec while our handler does not, so the new image would die of SIGPROF before its own runtime
// starts. PauseForExec stops generation, waits for the wall thread to stop signalling and drops
// any pending SIGPROF; ResumeAfterFailedExec restarts sampling when execve returned.
// Returns whether sampling was running.
bool PauseForExec();
void ResumeAfterFailedExec();

}  // namespace strata::rt::sampler
