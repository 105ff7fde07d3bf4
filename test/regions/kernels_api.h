// Host entry points of the example kernels, once per build of kernels.cuh.
#pragma once
#include <cuda_runtime.h>
#include <stddef.h>

#define STRATA_REGIONS_API(ns)                                                                  \
  namespace ns {                                                                                \
  void SetBuffer(void* ptr, size_t capacity);                                                   \
  const char* Names();                                                                          \
  void Gemm(const float* A, const float* B, float* C, int M, int N, int K, int variant,         \
            cudaStream_t st);                                                                   \
  void WarpSpec(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t st); \
  void Simple(const float* x, float* y, float* sums, int n, int blocks, cudaStream_t st);       \
  void Spin(unsigned long long* out, float* sink, int blocks, int reps, int work,               \
            cudaStream_t st);                                                                   \
  void Unbalanced(int* out, cudaStream_t st);                                                   \
  void Wrap(unsigned long long step, int iters, int* out, cudaStream_t st);                     \
  void Calibrate(unsigned n, cudaStream_t st);                                                  \
  }
STRATA_REGIONS_API(on)
STRATA_REGIONS_API(off)
