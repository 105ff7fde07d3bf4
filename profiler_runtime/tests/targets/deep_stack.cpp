// Target for the truncated-stack tests: recurses `depth` calls deep (default 1000, beyond the
// runtime's 256-frame limit) and works at the bottom for ~0.5 s of CPU, so nearly every sample
// has a stack the runtime must cut.
#include <time.h>

#include <cstdlib>

volatile double g_sink;

extern "C" __attribute__((noinline)) void work_at_bottom() {
  timespec start, now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
  double s = 0;
  do {
    for (int i = 0; i < 100000; ++i) s += double(i) * 0.5;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 < 500);
  g_sink = s;
}

extern "C" __attribute__((noinline)) int recurse(int depth) {
  if (depth == 0) {
    work_at_bottom();
    return 0;
  }
  return recurse(depth - 1) + 1;  // not a tail call: every level keeps its frame
}

int main(int argc, char** argv) {
  int depth = argc > 1 ? atoi(argv[1]) : 1000;
  return recurse(depth) == depth ? 0 : 1;
}
