// Target for the end-of-run tests: one way for a program to end (or to use the signals and
// timers a profiler might take) per mode. Prints what it observed on stdout so a run under
// `strata record` can be compared with a run without it.
//   ways_to_end exit N          : work ~0.3 s, exit(N)
//   ways_to_end _exit N         : work ~0.3 s, _exit(N) (no atexit handlers)
//   ways_to_end throw           : work, then an uncaught C++ exception (std::terminate, abort)
//   ways_to_end spin            : print "ready", work until a signal ends it
//   ways_to_end own-int         : a SIGINT handler counting deliveries; exits 0 after 1.5 s
//                                 printing the count (one Ctrl-C = one delivery)
//   ways_to_end own-sigprof     : its own SIGPROF handler + setitimer(ITIMER_PROF, 10 ms),
//                                 ~1 s of CPU; prints how often its handler ran
//   ways_to_end own-sigalrm     : its own SIGALRM handler + setitimer(ITIMER_REAL, 10 ms)
//   ways_to_end own-rt-timer    : a handler on SIGRTMAX and a timer_create(CLOCK_PROCESS_CPUTIME_ID)
//                                 delivering it every 10 ms (the signal a profiler would pick)
//   ways_to_end read-eintr      : a SIGALRM handler without SA_RESTART, alarm(1), a blocking
//                                 read of a pipe nobody writes: prints the read's errno name
#include <errno.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

volatile double g_sink;
volatile sig_atomic_t g_count = 0;

extern "C" __attribute__((noinline)) void busy_ms(long ms) {
  timespec start, now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
  double s = 0;
  do {
    for (int i = 0; i < 100000; ++i) s += double(i) * 0.5;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 < ms);
  g_sink = s;
}

void Count(int) { g_count = g_count + 1; }

void Install(int sig, int flags) {
  struct sigaction sa = {};
  sa.sa_handler = Count;
  sa.sa_flags = flags;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, nullptr);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  int code = argc > 2 ? atoi(argv[2]) : 0;
  setvbuf(stdout, nullptr, _IONBF, 0);
  if (!strcmp(mode, "exit")) { busy_ms(300); exit(code); }
  if (!strcmp(mode, "_exit")) { busy_ms(300); _exit(code); }
  if (!strcmp(mode, "throw")) { busy_ms(300); throw std::runtime_error("uncaught"); }
  if (!strcmp(mode, "spin")) {
    printf("ready\n");
    for (;;) busy_ms(10);
  }
  if (!strcmp(mode, "own-int")) {
    Install(SIGINT, SA_RESTART);
    printf("ready\n");
    busy_ms(1500);
    printf("sigint %d\n", int(g_count));
    return 0;
  }
  if (!strcmp(mode, "own-sigprof") || !strcmp(mode, "own-sigalrm")) {
    bool prof = !strcmp(mode, "own-sigprof");
    Install(prof ? SIGPROF : SIGALRM, SA_RESTART);
    itimerval it = {};
    it.it_interval.tv_usec = 10000;
    it.it_value = it.it_interval;
    setitimer(prof ? ITIMER_PROF : ITIMER_REAL, &it, nullptr);
    busy_ms(1000);
    it = {};
    setitimer(prof ? ITIMER_PROF : ITIMER_REAL, &it, nullptr);
    // 100 expected; the kernel tick and scheduling give some spread, a profiler that took the
    // signal or the timer gives 0.
    printf("handler runs: %s\n", g_count >= 50 ? "50 or more" : "fewer than 50");
    return 0;
  }
  if (!strcmp(mode, "own-rt-timer")) {
    Install(SIGRTMAX, SA_RESTART);
    struct sigevent sev = {};
    sev.sigev_notify = SIGEV_SIGNAL;
    sev.sigev_signo = SIGRTMAX;
    timer_t t;
    if (timer_create(CLOCK_PROCESS_CPUTIME_ID, &sev, &t) != 0) { perror("timer_create"); return 2; }
    itimerspec its = {};
    its.it_interval.tv_nsec = 10000000;
    its.it_value = its.it_interval;
    timer_settime(t, 0, &its, nullptr);
    busy_ms(1000);
    timer_delete(t);
    printf("handler runs: %s\n", g_count >= 50 ? "50 or more" : "fewer than 50");
    return 0;
  }
  if (!strcmp(mode, "read-eintr")) {
    Install(SIGALRM, 0);
    int fds[2];
    if (pipe(fds) != 0) return 2;
    alarm(1);
    char c;
    ssize_t n = read(fds[0], &c, 1);
    printf("read %zd %s\n", n, n < 0 && errno == EINTR ? "EINTR" : strerror(errno));
    return 0;
  }
  fprintf(stderr, "unknown mode %s\n", mode);
  return 2;
}
