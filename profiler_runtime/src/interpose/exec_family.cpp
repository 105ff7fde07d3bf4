// The exec family, interposed so the profiled process never execs with the sampling timer
// armed: ITIMER_PROF and a pending SIGPROF survive execve while our handler does not, and the
// new image (a pyenv shim's `exec python`, os.execv) would die of SIGPROF before its own runtime
// (LD_PRELOAD is inherited) starts. glibc's execv/execvp/execl* call execve internally, not
// through the PLT, so each entry point is wrapped.
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstddef>

#include "runtime_state.h"
#include "sampler/sampler.h"

namespace {

template <typename Fn>
Fn Real(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

// Pauses sampling in the profiled process itself; a (v)fork child execs untouched (it has no
// timer, and under vfork it shares our memory, so it must not change our state).
class ExecPause {
 public:
  ExecPause() {
    if (strata::rt::state::Active() && pid_t(syscall(SYS_getpid)) == strata::rt::state::ProfiledPid())
      paused_ = strata::rt::sampler::PauseForExec();
  }
  ~ExecPause() {  // only reached when exec failed
    if (paused_) {
      int saved = errno;
      strata::rt::sampler::ResumeAfterFailedExec();
      errno = saved;
    }
  }

 private:
  bool paused_ = false;
};

// execl-style argument lists, copied onto the stack (no malloc between fork and exec).
constexpr int kMaxListArgs = 4096;

}  // namespace

#define STRATA_EXPORT extern "C" __attribute__((visibility("default")))

STRATA_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  static auto real = Real<int (*)(const char*, char* const[], char* const[])>("execve");
  ExecPause pause;
  return real(path, argv, envp);
}

STRATA_EXPORT int execv(const char* path, char* const argv[]) {
  static auto real = Real<int (*)(const char*, char* const[])>("execv");
  ExecPause pause;
  return real(path, argv);
}

STRATA_EXPORT int execvp(const char* file, char* const argv[]) {
  static auto real = Real<int (*)(const char*, char* const[])>("execvp");
  ExecPause pause;
  return real(file, argv);
}

STRATA_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
  static auto real = Real<int (*)(const char*, char* const[], char* const[])>("execvpe");
  ExecPause pause;
  return real(file, argv, envp);
}

STRATA_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) {
  static auto real = Real<int (*)(int, char* const[], char* const[])>("fexecve");
  ExecPause pause;
  return real(fd, argv, envp);
}

// Collects `first, ...` up to the terminating null into `out`; returns the va_list position
// after it (for execle's envp) through `ap`.
static bool CollectArgs(const char* first, va_list* ap, char** out) {
  int n = 0;
  out[n++] = const_cast<char*>(first);
  while (out[n - 1] != nullptr) {
    if (n == kMaxListArgs) { errno = E2BIG; return false; }
    out[n++] = va_arg(*ap, char*);
  }
  return true;
}

STRATA_EXPORT int execl(const char* path, const char* arg, ...) {
  char* argv[kMaxListArgs];
  va_list ap;
  va_start(ap, arg);
  bool ok = CollectArgs(arg, &ap, argv);
  va_end(ap);
  return ok ? execv(path, argv) : -1;
}

STRATA_EXPORT int execlp(const char* file, const char* arg, ...) {
  char* argv[kMaxListArgs];
  va_list ap;
  va_start(ap, arg);
  bool ok = CollectArgs(arg, &ap, argv);
  va_end(ap);
  return ok ? execvp(file, argv) : -1;
}

STRATA_EXPORT int execle(const char* path, const char* arg, ...) {
  char* argv[kMaxListArgs];
  va_list ap;
  va_start(ap, arg);
  bool ok = CollectArgs(arg, &ap, argv);
  char* const* envp = ok ? va_arg(ap, char* const*) : nullptr;
  va_end(ap);
  return ok ? execve(path, argv, envp) : -1;
}
