// Target for the runtime's real-program tests. Built with -g -O1 -fno-omit-frame-pointer
// -fno-inline and exported symbols so the runtime's dladdr names the two work functions.
//   cpu_split split N      : N rounds of hot_work (75%) + cold_work (25%), then exit(0)
//   cpu_split segv         : work ~0.4 s, then dereference null
//   cpu_split spin         : work until killed (the test sends SIGTERM)
//   cpu_split own-term     : installs its own SIGTERM handler, works until it runs, exit(3)
//   cpu_split spawn        : work, run a child (fork+exec of itself in `split` mode, same
//                            LD_PRELOAD), wait for it, then a forked child that exits normally
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

volatile double g_sink;
volatile sig_atomic_t g_term = 0;

extern "C" __attribute__((noinline)) void hot_work(long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) s += double(i) * 0.5;
  g_sink = s;
}

extern "C" __attribute__((noinline)) void cold_work(long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) s += double(i) * 0.25;
  g_sink = s;
}

// Round lengths vary pseudo-randomly (3:1 kept in every round) so that samples cannot phase-lock
// with the kernel tick that paces ITIMER_PROF, which would bias the measured split.
extern "C" __attribute__((noinline)) void round_of_work() {
  static uint32_t state = 12345;
  state = state * 1664525u + 1013904223u;
  long n = 500000 + long(state >> 12) % 1000000;
  hot_work(3 * n);
  cold_work(n);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "split";
  if (strcmp(mode, "split") == 0) {
    int n = argc > 2 ? atoi(argv[2]) : 150;
    for (int i = 0; i < n; ++i) round_of_work();
    return 0;
  }
  if (strcmp(mode, "segv") == 0) {
    for (int i = 0; i < 50; ++i) round_of_work();
    volatile int* p = nullptr;
    *p = 1;
    return 0;
  }
  if (strcmp(mode, "spin") == 0) {
    printf("ready\n");
    fflush(stdout);
    for (;;) round_of_work();
  }
  if (strcmp(mode, "own-term") == 0) {
    struct sigaction sa = {};
    sa.sa_handler = [](int) { g_term = 1; };
    sigaction(SIGTERM, &sa, nullptr);
    struct sigaction check = {};
    sigaction(SIGTERM, nullptr, &check);  // must read back what we set
    if (check.sa_handler != sa.sa_handler) return 4;
    while (!g_term) round_of_work();
    exit(3);
  }
  if (strcmp(mode, "spawn") == 0) {
    for (int i = 0; i < 30; ++i) round_of_work();
    pid_t c = fork();
    if (c == 0) {
      execl(argv[0], argv[0], "split", "20", static_cast<char*>(nullptr));
      _exit(127);
    }
    int st = 0;
    waitpid(c, &st, 0);
    pid_t f = fork();
    if (f == 0) {
      // Several sampling periods of CPU time (a child that leaves no sample writes no profile).
      for (int i = 0; i < 30; ++i) round_of_work();
      exit(0);  // runs atexit handlers in the forked child: must not write the profile
    }
    waitpid(f, &st, 0);
    for (int i = 0; i < 10; ++i) round_of_work();
    return 0;
  }
  fprintf(stderr, "unknown mode %s\n", mode);
  return 2;
}
