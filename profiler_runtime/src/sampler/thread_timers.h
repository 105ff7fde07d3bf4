// One POSIX timer per thread — on that thread's CPU clock (cpu mode) or CLOCK_MONOTONIC (wall
// mode) — delivering the sampling signal to that thread only (SIGEV_THREAD_ID). Unlike
// setitimer(ITIMER_PROF) this leaves the program's own ITIMER_PROF/SIGPROF alone, each thread
// is sampled by its own clock, and a timer never queues more than one real-time signal (a
// thread that blocks it accumulates overruns, not queued signals).
// Timer ids live in the thread's slot; raw system calls (no glibc timer bookkeeping) keep
// every call async-signal-safe.
#pragma once

#include <cstdint>

namespace strata::rt {
struct ThreadSlot;
}

namespace strata::rt::thread_timers {

// Creates and arms the timer of the thread of `slot` (slot->tid) delivering `sig` every
// `period_ns` of its CPU time (`wall`: of wall time). Any thread may call it. False (errno
// set) if the kernel refused.
bool Arm(ThreadSlot* slot, int sig, uint64_t period_ns, bool wall);
// Deletes the slot's timer if it has one (exactly once, whoever calls).
void Disarm(ThreadSlot* slot);
// Whether the slot has a timer.
bool Armed(const ThreadSlot* slot);

}  // namespace strata::rt::thread_timers
