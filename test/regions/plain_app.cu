// A program that launches an instrumented kernel (the tiled GEMM of kernels.cuh, markers
// recorded) the ordinary way: it never touches the region buffer. Under the runtime with
// `strata record --regions` the runtime hands each selected launch its buffer (issue 7 part 2);
// without it the kernel records nothing and computes the same result.
//   plain_app [launches]   prints one line with the result check
#define REGIONS_NS app
// The GEMM's regions with their markers' lines in kernels.cuh: the runtime makes them the region
// frames' source lines (check_capture.py checks them against the markers).
#define REGIONS_NAMES                                                                    \
  "1=kernel@kernels.cuh:68;2=k-loop@kernels.cuh:78;3=load (cp.async)@kernels.cuh:79;"   \
  "4=compute@kernels.cuh:91;5=epilogue@kernels.cuh:109"
#include "kernels.cuh"

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  int launches = argc > 1 ? atoi(argv[1]) : 4;
  const int M = 256, N = 256, K = 512;
  std::vector<float> a(size_t(M) * K, 1.0f), b(size_t(K) * N, 0.5f);
  float *A, *B, *C;
  cudaMalloc(&A, a.size() * 4);
  cudaMalloc(&B, b.size() * 4);
  cudaMalloc(&C, size_t(M) * N * 4);
  cudaMemcpy(A, a.data(), a.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(B, b.data(), b.size() * 4, cudaMemcpyHostToDevice);
  for (int i = 0; i < launches; ++i) {
    app::GemmKernel<app::GemmCirc><<<dim3(N / app::BN, M / app::BM), 256>>>(A, B, C, M, N, K);
    cudaDeviceSynchronize();
  }
  float c0 = 0;
  cudaMemcpy(&c0, C, 4, cudaMemcpyDeviceToHost);
  cudaError_t e = cudaGetLastError();
  bool ok = e == cudaSuccess && c0 == 0.5f * K;
  printf("plain_app: %d launches, C[0] = %g (%s)%s%s\n", launches, c0, ok ? "ok" : "WRONG",
         e != cudaSuccess ? ": " : "", e != cudaSuccess ? cudaGetErrorString(e) : "");
  return ok ? 0 : 1;
}
