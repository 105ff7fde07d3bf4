// Target for the truncated-stack tests: recurses `depth` calls deep (default 1000, beyond the
// runtime's 256-frame limit) and works at the bottom (~0.5 s of CPU), so nearly every sample
// has a stack the runtime must cut.
#include <cstdlib>

volatile double g_sink;

extern "C" __attribute__((noinline)) void work_at_bottom() {
  double s = 0;
  for (long i = 0; i < 300000000L; ++i) s += double(i) * 0.5;  // ~0.5 s of CPU at -O1
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
