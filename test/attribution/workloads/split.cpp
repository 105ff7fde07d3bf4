// Attribution workload: hot_path() does three times the work of cold_path() (~75% / 25%).
// Built with -g -O1 -fno-inline so each function keeps its own frame and line table.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

static volatile uint64_t sink;

__attribute__((noinline)) uint64_t spin(uint64_t n) {
  uint64_t x = 88172645463325252ull;
  for (uint64_t i = 0; i < n; ++i) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;  // SPIN_LINE
    asm volatile("" : "+r"(x));  // keeps every call: spin() must not be folded
  }
  return x;
}

__attribute__((noinline)) uint64_t hot_path(uint64_t n) {
  return spin(3 * n);  // HOT_CALL_LINE
}

__attribute__((noinline)) uint64_t cold_path(uint64_t n) {
  return spin(n);  // COLD_CALL_LINE
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 40;
  for (int r = 0; r < rounds; ++r) {
    sink = hot_path(3000000);
    sink = cold_path(3000000);
  }
  std::printf("%llu\n", static_cast<unsigned long long>(sink));
  return 0;
}
