#include "sampler/signal_choice.h"

#include <signal.h>

#include <cstdio>
#include <cstring>

#include "signals/signal_chain.h"

namespace strata::rt::signal_choice {
namespace {

volatile sig_atomic_t g_taken[NSIG];

// glibc reserves the lowest real-time signals for itself (SIGRTMIN already skips them); keep a
// few more below for libraries that count up from SIGRTMIN.
constexpr int kLowReserve = 4;

}  // namespace

int Pick() {
  sigset_t blocked;
  sigemptyset(&blocked);
  pthread_sigmask(SIG_BLOCK, nullptr, &blocked);
  for (int sig = SIGRTMAX; sig >= SIGRTMIN + kLowReserve; --sig) {
    if (g_taken[sig] || signals::IsManaged(sig) || sigismember(&blocked, sig)) continue;
    struct sigaction current = {};
    if (signals::RealSigaction(sig, nullptr, &current) != 0) continue;
    bool dfl = !(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_DFL;
    if (dfl) return sig;
  }
  return 0;
}

void MarkTaken(int sig) {
  if (sig > 0 && sig < NSIG) g_taken[sig] = 1;
}

void Name(int sig, char* out, unsigned size) {
  if (sig >= SIGRTMIN && sig <= SIGRTMAX) {
    if (sig == SIGRTMAX) snprintf(out, size, "SIGRTMAX");
    else snprintf(out, size, "SIGRTMAX-%d", SIGRTMAX - sig);
    return;
  }
  const char* abbrev = sigabbrev_np(sig);
  if (abbrev) snprintf(out, size, "SIG%s", abbrev);
  else snprintf(out, size, "signal %d", sig);
}

}  // namespace strata::rt::signal_choice
