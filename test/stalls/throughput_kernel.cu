// The stall rule's twin (issue 5): a kernel bound by math throughput, not by a latency chain.
// Eight independent FMA chains per thread and many warps per scheduler keep the FMA pipe busy,
// so its samples are mostly issuing (selected) or waiting for a free pipe (math_pipe_throttle,
// not_selected): nothing to fix at a line, and the stall rule must stay silent.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

__global__ void math_ilp(float* out, float a, int iters) {
  float x[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) x[j] = threadIdx.x * 1e-3f + j;
  for (int k = 0; k < iters; ++k) {
#pragma unroll
    for (int j = 0; j < 8; ++j) x[j] = x[j] * a + 0.5f;  // THROUGHPUT-fma
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) s += x[j];
  out[threadIdx.x + blockIdx.x * blockDim.x] = s;
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 10;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  float* out = nullptr;
  cudaMalloc(&out, size_t(sms) * 16 * 256 * 4);
  for (int r = 0; r < reps; ++r) {
    math_ilp<<<sms * 16, 256>>>(out, 1.0001f, 20000);
    cudaDeviceSynchronize();
  }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) { fprintf(stderr, "throughput_kernel: %s\n", cudaGetErrorString(e)); return 1; }
  printf("throughput_kernel: %d reps on %d SMs\n", reps, sms);
  return 0;
}
