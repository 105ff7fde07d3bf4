// Host entry points of the benchmark kernels, once per build of gemm_kernels.cuh.
#pragma once
#include <cuda_runtime.h>
#include <stddef.h>

struct GemmArgs {
  const float* A;
  const float* B;
  float* C;
  int M, N, K;
  int kind;    // 0: pipelined GEMM (256 threads), 1: warp-specialized (384 threads)
  int stages;  // 2 or 3
  int level;   // 1: wait + compute per k-step, 2: plus iterations and async loads
  int mode;    // 0: circular 256, 1: flush 64, 2: keep-all (1024 records a lane)
  int bk;      // k-step depth: 8 or 32 (4x the work between two markers)
  unsigned long long* loop_cycles;  // per lane: clock64 around the k-loop markers
};

#define STRATA_BENCH_API(ns)                                  \
  namespace ns {                                              \
  void SetBuffer(void* ptr, size_t capacity);                 \
  const char* Names();                                        \
  bool Gemm(const GemmArgs& g, cudaStream_t st);              \
  bool Describe(const GemmArgs& g, int* regs, int* smem_bytes, int* blocks_per_sm); \
  void Probe(int records, int* out, cudaStream_t st);         \
  void Calibrate(unsigned n, cudaStream_t st);                \
  }
STRATA_BENCH_API(on)
STRATA_BENCH_API(off)
STRATA_BENCH_API(rel)
STRATA_BENCH_API(skip)
