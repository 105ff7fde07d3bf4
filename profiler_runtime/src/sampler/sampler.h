// CPU / wall sampling: the sampling signal's handler and what generates the signal: a CPU-clock
// timer per thread (cpu mode; setitimer(ITIMER_PROF) + SIGPROF when that is impossible) or the
// thread that signals every thread each period (wall mode). The signal is a real-time signal
// the program does not use (signal_choice.h), so its SIGPROF/SIGALRM and timers stay its own.
#pragma once

#include <cstdint>
#include <string>

namespace strata::rt {
struct ThreadSlot;
}

namespace strata::rt::sampler {

struct Counters {
  uint64_t samples;          // records committed to rings
  uint64_t dropped;          // ring full or no slot
  uint64_t unwind_failures;  // libunwind errors, faults while reading, loader-busy PC-only
};

// Chooses the signal, installs its handler and starts the timers or the wall sampler thread.
bool Start(uint64_t period_ns, bool wall);
// Stops sample generation (timers off, wall thread told to stop). Async-signal-safe.
void Stop();
Counters GetCounters();
// How samples are generated, for meta `sampler` (and what happened to the signal since).
std::string StatusLine();

// A thread created through pthread_create starts (its slot claimed): arm its timer.
void OnThreadStart(ThreadSlot* slot);
// A thread ends (before its slot is marked dead): delete its timer. Async-signal-safe.
void OnThreadExit(ThreadSlot* slot);
// In a forked child: stop, forgetting the parent's timers (the child has none).
void OnForkChild();
// In a forked child that profiles itself: samples again (same signal and source) from here.
bool RestartInForkChild();

// The program sets a disposition for a signal: whether it is the one sampling uses (then
// GiveSignalBack must run before the program's disposition is applied).
bool IsSamplingSignal(int sig);
// Moves sampling to another free real-time signal (or stops it, said in meta `sampler`) and
// returns `sig` to the program with its recorded disposition.
void GiveSignalBack(int sig);

// Around execve of the profiled process: an ITIMER_PROF timer and a pending sampling signal
// survive exec while our handler does not, so the new image would die of it before its own
// runtime starts (POSIX timers are deleted by exec; a signal they queued is not). PauseForExec stops generation, waits for the wall thread to stop signalling and drops
// any pending SIGPROF; ResumeAfterFailedExec restarts sampling when execve returned.
// Returns whether sampling was running.
bool PauseForExec();
void ResumeAfterFailedExec();

}  // namespace strata::rt::sampler
