// Two kernels with known dominant stalls, for PC-sampling tests (issue 4):
//  mem_chain: a dependent pointer chase through a large random permutation, so every warp
//             waits on the previous global load (long scoreboard) at the marked line;
//  math_chain: a dependent chain of fused multiply-adds through an inlined helper, so warps
//             wait on fixed-latency math results (wait / math dependency) at the marked lines.
// Lines marked STALL-<name> are what test/stalls/check_stalls.py looks for.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

__device__ __forceinline__ float step(float x, float a) {
  return x * a + 0.5f;  // STALL-math
}

__global__ void mem_chain(const unsigned* __restrict__ next, unsigned* out, unsigned n, int iters) {
  unsigned p = (threadIdx.x + blockIdx.x * blockDim.x) * 7919u % n;
  for (int k = 0; k < iters; ++k) p = next[p];  // STALL-mem
  out[threadIdx.x + blockIdx.x * blockDim.x] = p;
}

__global__ void math_chain(float* out, float a, int iters) {
  float x = threadIdx.x * 1e-3f;
  for (int k = 0; k < iters; ++k) {
    x = step(x, a);  // STALL-math-call
    x = step(x, a);
  }
  out[threadIdx.x + blockIdx.x * blockDim.x] = x;
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 20;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const unsigned n = 64u << 20;  // 256 MiB of indices: far beyond L2
  std::vector<unsigned> perm(n);
  for (unsigned i = 0; i < n; ++i) perm[i] = i;
  unsigned long long s = 88172645463325252ull;
  for (unsigned i = n - 1; i > 0; --i) {  // Sattolo: one cycle through every index
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    unsigned j = unsigned(s % i);
    unsigned t = perm[i]; perm[i] = perm[j]; perm[j] = t;
  }
  unsigned *next = nullptr, *out = nullptr;
  float* fout = nullptr;
  cudaMalloc(&next, size_t(n) * 4);
  cudaMalloc(&out, size_t(sms) * 4 * 128 * 4);
  cudaMalloc(&fout, size_t(sms) * 4 * 128 * 4);
  cudaMemcpy(next, perm.data(), size_t(n) * 4, cudaMemcpyHostToDevice);
  for (int r = 0; r < reps; ++r) {
    mem_chain<<<sms * 4, 128>>>(next, out, n, 4000);
    math_chain<<<sms, 128>>>(fout, 1.0001f, 200000);
    cudaDeviceSynchronize();
  }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) { fprintf(stderr, "stall_kernels: %s\n", cudaGetErrorString(e)); return 1; }
  printf("stall_kernels: %d reps on %d SMs\n", reps, sms);
  return 0;
}
