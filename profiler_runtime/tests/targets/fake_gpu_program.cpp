// A "GPU program" on the stand-in CUDA of tests/fake_cupti: kernels launched at a steady pace,
// optionally in capture ranges, for the tests of the CUPTI session's switching logic.
//   fake_gpu_program full N           N launches of `steady_kernel`, back to back
//   fake_gpu_program steady MS        launches every 50 us for MS ms
//   fake_gpu_program ranges R MS      R times: `outside_kernel` for 30 ms, then cudaProfilerStart,
//                                     `inside_kernel_<r>` (r = 0..R-1, R <= 100) for MS ms,
//                                     cudaProfilerStop; then 30 ms more
//   fake_gpu_program nested N K       N runtime launches of `nested_kernel`, each making K driver
//                                     launches whose records carry the driver calls' ids
//   fake_gpu_program two_sites N      N launches of `shared_kernel`, alternately from two call
//                                     sites at the same stack depth (as cuDNN launches one kernel)
// Each kernel "runs" 1,000 ns. Prints "launched N inside M records K finalizes F".
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cstdint>

extern "C" int strata_fake_cuinit();
extern "C" void strata_fake_launch(const char* name, uint64_t gpu_ns);
extern "C" void strata_fake_runtime_launch(const char* name, uint64_t gpu_ns, int inner_calls);
extern "C" uint64_t strata_fake_records();
extern "C" uint64_t strata_fake_finalizes();
extern "C" int cudaProfilerStart();
extern "C" int cudaProfilerStop();

namespace {

constexpr uint64_t kKernelNs = 1000;
uint64_t g_launched = 0, g_inside = 0;

uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// Kept out of line: the launch's call path has a frame of its own per kind of kernel.
__attribute__((noinline)) void LaunchFor(const char* kernel, uint64_t ms) {
  const uint64_t end = NowNs() + ms * 1000000ull;
  while (NowNs() < end) {
    strata_fake_launch(kernel, kKernelNs);
    ++g_launched;
    const uint64_t next = NowNs() + 50000;
    while (NowNs() < next) {
    }
  }
}

// Two launch sites with frames of one size, called from one place: the same stack pointer at
// the launch, the same kernel, different return addresses.
const char* const kShared = "shared_kernel";
uint64_t g_site_a = 0, g_site_b = 0;
__attribute__((noinline)) void SiteA() {
  strata_fake_launch(kShared, kKernelNs);
  ++g_site_a;
  asm volatile("" ::: "memory");
}
__attribute__((noinline)) void SiteB() {
  strata_fake_launch(kShared, kKernelNs);
  ++g_site_b;
  asm volatile("" ::: "memory");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: fake_gpu_program full N | steady MS | ranges R MS\n");
    return 2;
  }
  if (strata_fake_cuinit() != 0) {
    fprintf(stderr, "fake_gpu_program: InitializeInjection of CUDA_INJECTION64_PATH did not run\n");
    return 3;
  }
  const char* mode = argv[1];
  if (strcmp(mode, "full") == 0) {
    const long n = atol(argv[2]);
    for (long i = 0; i < n; ++i) strata_fake_launch("steady_kernel", kKernelNs);
    g_launched = uint64_t(n);
  } else if (strcmp(mode, "nested") == 0 && argc >= 4) {
    const long n = atol(argv[2]);
    const int k = atoi(argv[3]);
    for (long i = 0; i < n; ++i) strata_fake_runtime_launch("nested_kernel", kKernelNs, k);
    g_launched = uint64_t(n) * uint64_t(k);
  } else if (strcmp(mode, "two_sites") == 0) {
    const long n = atol(argv[2]);
    for (long i = 0; i < n; ++i) i % 2 ? SiteB() : SiteA();
    g_launched = uint64_t(n);
  } else if (strcmp(mode, "steady") == 0) {
    LaunchFor("steady_kernel", uint64_t(atol(argv[2])));
  } else if (strcmp(mode, "ranges") == 0 && argc >= 4) {
    const long ranges = atol(argv[2]);
    const uint64_t ms = uint64_t(atol(argv[3]));
    if (ranges < 1 || ranges > 100) return 2;
    static char names[100][24];  // kernel names live as long as the program (CUPTI keeps them)
    for (long r = 0; r < ranges; ++r) {
      snprintf(names[r], sizeof(names[r]), "inside_kernel_%ld", r);
      LaunchFor("outside_kernel", 30);
      cudaProfilerStart();
      const uint64_t before = g_launched;
      LaunchFor(names[r], ms);
      g_inside += g_launched - before;
      cudaProfilerStop();
    }
    LaunchFor("outside_kernel", 30);
  } else {
    fprintf(stderr, "fake_gpu_program: unknown mode %s\n", mode);
    return 2;
  }
  printf("launched %llu inside %llu records %llu finalizes %llu\n", static_cast<unsigned long long>(g_launched),
         static_cast<unsigned long long>(g_inside), static_cast<unsigned long long>(strata_fake_records()),
         static_cast<unsigned long long>(strata_fake_finalizes()));
  return 0;
}
