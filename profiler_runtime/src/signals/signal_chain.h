// The runtime keeps its own handlers for the signals it needs (SIGPROF for sampling; SIGINT,
// SIGTERM and the fatal signals to write the profile on the way out) without changing what the
// program sees or does: sigaction()/signal() are interposed so the program reads and sets a
// virtual disposition, and the runtime's handler chains to the program's handler when it set one.
#pragma once

#include <signal.h>

namespace strata::rt::signals {

// The real libc sigaction (our exported sigaction is the interposer, interpose/signal_dispositions.cpp).
int RealSigaction(int sig, const struct sigaction* act, struct sigaction* old);

// Whether the runtime took `sig` over (Manage).
bool IsManaged(int sig);
// sigaction() on a managed signal, as the program sees it: reads and sets its virtual
// disposition; a SIG_IGN is applied for real on chained signals.
int ProgramSigaction(int sig, const struct sigaction* act, struct sigaction* old);

// Takes over `sig` with `handler` (SA_SIGINFO) and `flags`, unless it is ignored (SIG_IGN) at
// this point; the program keeps seeing the previous disposition. `chain` = the program's later
// handlers are called from ours (SIGINT/SIGTERM/faults); otherwise they are recorded and never
// installed (SIGPROF belongs to the sampler).
bool Manage(int sig, void (*handler)(int, siginfo_t*, void*), int flags, bool chain);

// Gives `sig` back to the program: instances still pending (ours) are discarded, the program's
// recorded disposition is installed for real, and later sigaction calls go straight to libc.
void Release(int sig);

// What the program last set for a managed signal (SIG_DFL at start). False if not managed.
bool ProgramAction(int sig, struct sigaction* out);

// Called from our handler. If the program set a handler, runs it the way the kernel would
// (SA_SIGINFO or not, SA_RESETHAND) and returns true; if it set SIG_IGN returns true (nothing to
// do); returns false for SIG_DFL: the runtime then performs the default action itself.
bool ChainToProgram(int sig, siginfo_t* info, void* uc);

}  // namespace strata::rt::signals
