#include "signals/signal_chain.h"

#include <dlfcn.h>

#include <cerrno>
#include <cstring>

namespace strata::rt::signals {
namespace {

struct Managed {
  volatile int active = 0;            // 1 once Manage() took the signal over
  int chain = 0;
  struct sigaction ours = {};         // the runtime's handler, reinstalled after a SIG_IGN
  struct sigaction program = {};      // the program's view (its last sigaction/signal call)
};
Managed g_managed[NSIG];

// Flags of the program's action that change what the kernel does around the handler; ours
// takes them over so a chained handler sees the same EINTR/restart, nesting and stack as
// without the runtime (e.g. CPython's SIGINT handler has no SA_RESTART: a blocking read must
// return EINTR for KeyboardInterrupt to be raised).
constexpr int kMirroredFlags = SA_RESTART | SA_NODEFER | SA_ONSTACK;

// The action really installed for a chained signal: our handler, with the program's flags and
// mask when it set a handler.
struct sigaction Installed(const Managed& m) {
  struct sigaction real = m.ours;
  const struct sigaction& p = m.program;
  bool has_handler = (p.sa_flags & SA_SIGINFO) || (p.sa_handler != SIG_DFL && p.sa_handler != SIG_IGN);
  if (m.chain && has_handler) {
    real.sa_flags |= p.sa_flags & kMirroredFlags;
    real.sa_mask = p.sa_mask;
  }
  return real;
}

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);
SigactionFn RealFn() {
  static SigactionFn real = reinterpret_cast<SigactionFn>(dlsym(RTLD_NEXT, "sigaction"));
  return real;
}

// SA_RESETHAND: the program's disposition becomes SIG_DFL as the kernel would make it.
void ResetToDefault(int sig) {
  Managed& m = g_managed[sig];
  memset(&m.program, 0, sizeof(m.program));
  m.program.sa_handler = SIG_DFL;
  struct sigaction real = Installed(m);
  RealFn()(sig, &real, nullptr);
}

}  // namespace

int RealSigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  return RealFn()(sig, act, old);
}

bool Manage(int sig, void (*handler)(int, siginfo_t*, void*), int flags, bool chain) {
  struct sigaction current = {};
  if (RealSigaction(sig, nullptr, &current) != 0) return false;
  // Ignored (e.g. SIGINT of a background job): leave it so; it is inherited across exec too.
  if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN) return false;
  struct sigaction sa = {};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | flags;
  sigemptyset(&sa.sa_mask);
  g_managed[sig].program = current;
  g_managed[sig].chain = chain;
  g_managed[sig].ours = sa;
  if (RealSigaction(sig, &sa, nullptr) != 0) return false;
  g_managed[sig].active = 1;
  return true;
}

void Release(int sig) {
  if (!IsManaged(sig)) return;
  Managed& m = g_managed[sig];
  m.active = 0;
  struct sigaction ign = {};
  ign.sa_handler = SIG_IGN;  // discards pending instances (POSIX)
  sigemptyset(&ign.sa_mask);
  RealSigaction(sig, &ign, nullptr);
  RealSigaction(sig, &m.program, nullptr);
}

bool ProgramAction(int sig, struct sigaction* out) {
  if (!IsManaged(sig)) return false;
  *out = g_managed[sig].program;
  return true;
}

bool ChainToProgram(int sig, siginfo_t* info, void* uc) {
  struct sigaction& p = g_managed[sig].program;
  if (!g_managed[sig].chain) return true;
  if (p.sa_flags & SA_SIGINFO) {
    void (*fn)(int, siginfo_t*, void*) = p.sa_sigaction;
    if (p.sa_flags & SA_RESETHAND) ResetToDefault(sig);
    if (fn) fn(sig, info, uc);
    return true;
  }
  if (p.sa_handler == SIG_DFL) return false;
  if (p.sa_handler == SIG_IGN) return true;
  void (*fn)(int) = p.sa_handler;
  if (p.sa_flags & SA_RESETHAND) ResetToDefault(sig);
  fn(sig);
  return true;
}

bool IsManaged(int sig) { return sig > 0 && sig < NSIG && g_managed[sig].active; }

int ProgramSigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  auto& m = g_managed[sig];
  if (old) *old = m.program;
  if (act) {
    m.program = *act;
    // A program that ignores the signal gets a real SIG_IGN (kernel semantics, exec
    // inheritance); any other disposition keeps our handler installed and is chained.
    if (m.chain) {
      bool ignore = !(act->sa_flags & SA_SIGINFO) && act->sa_handler == SIG_IGN;
      struct sigaction real = Installed(m);
      return RealSigaction(sig, ignore ? act : &real, nullptr);
    }
  }
  return 0;
}

}  // namespace strata::rt::signals
