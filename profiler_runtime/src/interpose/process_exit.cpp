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

template <typename Fn>
[[noreturn]] void EndAndCall(const char* symbol, int status) {
  static Fn real = nullptr;
  if (!real) real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, symbol));
  if (IsProfiledProcess()) strata::rt::EndBeforeProcessExit("_exit");
  if (real) real(status);
  syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

}  // namespace

extern "C" __attribute__((visibility("default"), noreturn)) void _exit(int status) {
  EndAndCall<void (*)(int)>("_exit", status);
}

extern "C" __attribute__((visibility("default"), noreturn)) void _Exit(int status) {
  EndAndCall<void (*)(int)>("_Exit", status);
}
