// What the region harnesses (test/regions/harness.cu, bench/regions/region_overhead.cu) share:
// a CUDA error check that ends the program with one line, the median, and the device's clock64
// rate measured against %globaltimer.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                               \
  do {                                                                                      \
    cudaError_t e_ = (x);                                                                   \
    if (e_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// One thread spins `ns` of globaltimer and reads clock64 at both ends.
static __global__ void ClockRateKernel(unsigned long long ns, unsigned long long* out) {
  unsigned long long g0, c0, g1, c1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0)::"memory");
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c0)::"memory");
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1)::"memory");
  } while (g1 - g0 < ns);
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c1)::"memory");
  out[0] = g0, out[1] = c0, out[2] = g1, out[3] = c1;
}

// clock64 cycles per globaltimer ns: 20 ms spins, median of 5.
inline double MeasureCyclesPerNs() {
  unsigned long long* d;
  CK(cudaMalloc(&d, 32));
  std::vector<double> r;
  for (int i = 0; i < 5; ++i) {
    ClockRateKernel<<<1, 1>>>(20000000ull, d);
    unsigned long long h[4];
    CK(cudaMemcpy(h, d, 32, cudaMemcpyDeviceToHost));
    r.push_back(double(h[3] - h[1]) / double(h[2] - h[0]));
  }
  CK(cudaFree(d));
  return Median(r);
}
