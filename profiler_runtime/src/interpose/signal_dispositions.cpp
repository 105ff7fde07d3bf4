// sigaction() and signal(), interposed: on the signals the runtime manages
// (signals/signal_chain.h) the program reads and sets a virtual disposition while the
// runtime's handlers stay installed; every other signal goes straight to libc. A program that
// sets a disposition for the signal sampling uses gets it back (sampling moves elsewhere).
#include <signal.h>

#include "sampler/sampler.h"
#include "signals/signal_chain.h"

extern "C" __attribute__((visibility("default"))) int sigaction(int sig, const struct sigaction* act,
                                                                struct sigaction* old) {
  if (act && strata::rt::sampler::IsSamplingSignal(sig)) {
    bool dfl = !(act->sa_flags & SA_SIGINFO) && act->sa_handler == SIG_DFL;
    if (!dfl) strata::rt::sampler::GiveSignalBack(sig);
  }
  if (!strata::rt::signals::IsManaged(sig)) return strata::rt::signals::RealSigaction(sig, act, old);
  return strata::rt::signals::ProgramSigaction(sig, act, old);
}

extern "C" __attribute__((visibility("default"))) sighandler_t signal(int sig, sighandler_t handler) {
  struct sigaction sa = {}, old = {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // glibc signal() has BSD semantics
  if (sigaction(sig, &sa, &old) != 0) return SIG_ERR;
  if (old.sa_flags & SA_SIGINFO)
    return reinterpret_cast<sighandler_t>(reinterpret_cast<void*>(old.sa_sigaction));
  return old.sa_handler;
}
