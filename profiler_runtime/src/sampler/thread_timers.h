// cpu mode: one POSIX timer per thread on that thread's CPU clock, delivering the sampling
// signal to that thread only (SIGEV_THREAD_ID). Unlike setitimer(ITIMER_PROF) this leaves the
// program's own ITIMER_PROF/SIGPROF alone, and each thread is sampled by its own CPU time.
// Timer ids live in the thread's slot; raw system calls (no glibc timer bookkeeping) keep
// every call async-signal-safe.
#pragma once

#include <cstdint>

namespace strata::rt {
struct ThreadSlot;
}

namespace strata::rt::thread_timers {

// Creates and arms the timer of the thread of `slot` (slot->tid) delivering `sig` every
// `period_ns` of its CPU time. Any thread may call it. False (errno set) if the kernel refused.
bool Arm(ThreadSlot* slot, int sig, uint64_t period_ns);
// Deletes the slot's timer if it has one (exactly once, whoever calls).
void Disarm(ThreadSlot* slot);
// Whether the slot has a timer.
bool Armed(const ThreadSlot* slot);

}  // namespace strata::rt::thread_timers
