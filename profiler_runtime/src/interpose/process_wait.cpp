// wait, waitpid, wait4 and waitid, interposed: when a profiled process reaps a child, its wait
// status goes to strata record's status file (run_status::Reaped), so the child's profile can
// say how it ended. A child killed by SIGKILL cannot write that itself (its profile is its
// last checkpoint); its parent (torchrun, mpirun, a shell) sees the status. glibc's own calls
// between these (waitpid -> wait4) do not go through the PLT, so each is reported once.
#include <dlfcn.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "runtime_state.h"
#include "writer/run_status.h"

namespace {

void Note(pid_t pid, int status) {
  if (pid > 0 && strata::rt::state::Active() && (WIFEXITED(status) || WIFSIGNALED(status)))
    strata::rt::run_status::Reaped(long(pid), status);
}

template <typename Fn>
Fn Real(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

// A call before this file's initializers ran (another constructor of the process) resolves then.
template <typename Fn>
Fn Resolved(Fn at_load, const char* name) {
  return at_load ? at_load : Real<Fn>(name);
}

// Resolved at load: these are async-signal-safe and may first be called from a SIGCHLD
// handler, where dlsym is not.
const auto g_waitpid = Real<pid_t (*)(pid_t, int*, int)>("waitpid");
const auto g_wait = Real<pid_t (*)(int*)>("wait");
const auto g_wait4 = Real<pid_t (*)(pid_t, int*, int, struct rusage*)>("wait4");
const auto g_waitid = Real<int (*)(idtype_t, id_t, siginfo_t*, int)>("waitid");

}  // namespace

extern "C" {

__attribute__((visibility("default"))) pid_t waitpid(pid_t pid, int* status, int options) {
  auto real = Resolved(g_waitpid, "waitpid");
  int st = 0;
  pid_t r = real(pid, &st, options);
  if (r > 0) {
    Note(r, st);
    if (status) *status = st;
  }
  return r;
}

__attribute__((visibility("default"))) pid_t wait(int* status) {
  auto real = Resolved(g_wait, "wait");
  int st = 0;
  pid_t r = real(&st);
  if (r > 0) {
    Note(r, st);
    if (status) *status = st;
  }
  return r;
}

__attribute__((visibility("default"))) pid_t wait4(pid_t pid, int* status, int options, struct rusage* usage) {
  auto real = Resolved(g_wait4, "wait4");
  int st = 0;
  pid_t r = real(pid, &st, options, usage);
  if (r > 0) {
    Note(r, st);
    if (status) *status = st;
  }
  return r;
}

__attribute__((visibility("default"))) int waitid(idtype_t idtype, id_t id, siginfo_t* info, int options) {
  auto real = Resolved(g_waitid, "waitid");
  int r = real(idtype, id, info, options);
  // WNOWAIT leaves the child to be reaped (and reported) by a later call.
  if (r == 0 && info && info->si_pid > 0 && !(options & WNOWAIT)) {
    int st = -1;
    if (info->si_code == CLD_EXITED) st = (info->si_status & 0xff) << 8;
    else if (info->si_code == CLD_KILLED) st = info->si_status & 0x7f;
    else if (info->si_code == CLD_DUMPED) st = (info->si_status & 0x7f) | 0x80;
    if (st >= 0) Note(info->si_pid, st);
  }
  return r;
}

}  // extern "C"
