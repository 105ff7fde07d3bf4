// The runtime's own threads (aggregator, wall sampler) block every asynchronous signal: a
// process-directed SIGINT/SIGTERM/... must reach one of the program's threads (whose handler
// or sigwait/signalfd expects it), never a runtime thread that cannot wait for its own write.
#pragma once

#include <pthread.h>
#include <signal.h>

#include <initializer_list>

namespace strata::rt {

inline void BlockAsyncSignalsHere() {
  sigset_t set;
  sigfillset(&set);
  // Synchronous faults are delivered to the faulting thread whatever the mask; blocked, they
  // would kill the process without running the handler.
  for (int s : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGABRT}) sigdelset(&set, s);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

}  // namespace strata::rt
