// _exit and _Exit, interposed: they end the process without running atexit handlers or library
// destructors (Python's os._exit, a C program's _exit after fork-less daemon logic, test
// harnesses), so the profile is written here first. exit() reaches the kernel through glibc's
// internal _exit, not these symbols, after atexit has already written.
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "end_of_run.h"
#include "runtime_state.h"

namespace {

// A vfork child shares our memory and calls _exit: it must neither write nor wait.
bool IsProfiledProcess() {
  return strata::rt::state::Active() && pid_t(syscall(SYS_getpid)) == strata::rt::state::ProfiledPid();
}

using ExitFn = void (*)(int);
// Resolved at load: _exit is async-signal-safe and may first be called from a handler, where
// dlsym is not.
const ExitFn g_real_exit = reinterpret_cast<ExitFn>(dlsym(RTLD_NEXT, "_exit"));
const ExitFn g_real_Exit = reinterpret_cast<ExitFn>(dlsym(RTLD_NEXT, "_Exit"));

[[noreturn]] void EndAndCall(ExitFn real, int status) {
  if (IsProfiledProcess()) strata::rt::EndBeforeProcessExit("_exit");
  if (real) real(status);
  syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

}  // namespace

extern "C" __attribute__((visibility("default"), noreturn)) void _exit(int status) {
  EndAndCall(g_real_exit, status);
}

extern "C" __attribute__((visibility("default"), noreturn)) void _Exit(int status) {
  EndAndCall(g_real_Exit, status);
}
