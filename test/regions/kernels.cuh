// Example kernels with in-kernel regions (issue 7). Included twice: kernels_on.cu (markers
// recorded) and kernels_off.cu (STRATA_REGIONS_DISABLED: markers compile to nothing), each in
// its own namespace (REGIONS_NS) so that the harness can time one against the other.
#include <cuda_runtime.h>
#include <stdint.h>

#include "strata/regions.cuh"
#include "kernels_api.h"

// Region ids: compile-time constants, names for display in the module and the sidecar.
enum : unsigned {
  kKernel = 1, kKLoop = 2, kLoad = 3, kCompute = 4, kEpilogue = 5,
  kProdLoop = 10, kEmptyWait = 11, kLoadTile = 12, kConsLoop = 13, kFullWait = 14, kMma = 15,
  kOuter = 20, kInner = 21,
  kWork = 30, kReduce = 31,
  kNeverEnded = 40, kNeverStarted = 41, kBalanced = 42,
  kWrapLoop = 50, kLongGap = 51,
};
// A program may give its own table (plain_app: with the markers' lines).
#ifndef REGIONS_NAMES
#define REGIONS_NAMES                                                                        \
  "1=kernel;2=k-loop;3=load (cp.async);4=compute;5=epilogue;"                               \
  "10=producer loop;11=wait empty;12=load tile;13=consumer loop;14=wait full;15=mma;"       \
  "20=outer;21=inner;30=work;31=reduce;40=never ended;41=never started;42=balanced;"        \
  "50=wrap loop;51=long gap"
#endif
STRATA_REGION_NAMES(REGIONS_NAMES);

namespace REGIONS_NS {

using GemmCirc = strata::regions::Config<512, strata::regions::kCircular, 2>;
using GemmSmall = strata::regions::Config<32, strata::regions::kCircular, 2>;
using GemmFlush = strata::regions::Config<32, strata::regions::kFlush, 2>;
using Small = strata::regions::Config<64, strata::regions::kCircular, 4>;
using Calib = strata::regions::Config<1024, strata::regions::kCircular, 1>;

constexpr int BM = 64, BN = 64, BK = 16, TM = 4, TN = 4;

__device__ __forceinline__ void CpAsync16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void CpAsyncCommit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void CpAsyncWaitAll() { asm volatile("cp.async.wait_all;" ::: "memory"); }
__device__ __forceinline__ void NamedSync(unsigned id, unsigned n) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory");
}
__device__ __forceinline__ void NamedArrive(unsigned id, unsigned n) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(n) : "memory");
}
__device__ __forceinline__ unsigned long long Clk64() {
  unsigned long long c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}
__device__ __forceinline__ void Keep(float& x) { asm volatile("" : "+f"(x)::"memory"); }

// Tiled SGEMM, 64x64 tiles, 256 threads (two warp groups, one lane each), a two-stage cp.async
// pipeline. Regions: kernel ⊃ k-loop (iterations) ⊃ compute; load is async (issued in one
// iteration, waited for in the next: start, wait = second start, end).
template <class Cfg>
__global__ void __launch_bounds__(256) GemmKernel(const float* __restrict__ A, const float* __restrict__ B,
                                                  float* __restrict__ C, int M, int N, int K) {
  __shared__ __align__(16) float As[2][BM][BK];
  __shared__ __align__(16) float Bs[2][BK][BN];
  STRATA_REGIONS_SHARED(Cfg, prof_smem);
  STRATA_REGIONS_BEGIN(Cfg, prof, prof_smem, strata::regions::WarpGroupLane());
  STRATA_REGION_START(prof, kKernel);
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int KT = K / BK;
  auto issue = [&](int stage, int kt) {
    CpAsync16(&As[stage][tid / 4][(tid % 4) * 4], A + (size_t)(m0 + tid / 4) * K + kt * BK + (tid % 4) * 4);
    CpAsync16(&Bs[stage][tid / 16][(tid % 16) * 4], B + (size_t)(kt * BK + tid / 16) * N + n0 + (tid % 16) * 4);
    CpAsyncCommit();
  };
  float acc[TM][TN] = {};
  STRATA_REGION_START(prof, kKLoop);
  STRATA_REGION_START(prof, kLoad);
  issue(0, 0);
  for (int kt = 0; kt < KT; ++kt) {
    STRATA_ITER_START(prof, kKLoop, kt);
    STRATA_REGION_WAIT(prof, kLoad);
    CpAsyncWaitAll();
    __syncthreads();
    STRATA_REGION_END(prof, kLoad);
    if (kt + 1 < KT) {
      STRATA_REGION_START(prof, kLoad);
      issue((kt + 1) & 1, kt + 1);
    }
    STRATA_REGION_START(prof, kCompute);
    const int s = kt & 1;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[s][ty * TM + i][k];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[s][k][tx * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    STRATA_REGION_END(prof, kCompute);
    STRATA_ITER_END(prof, kKLoop, kt);
  }
  STRATA_REGION_END(prof, kKLoop);
  STRATA_REGION_START(prof, kEpilogue);
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) C[(size_t)(m0 + ty * TM + i) * N + n0 + tx * TN + j] = acc[i][j];
  STRATA_REGION_END(prof, kEpilogue);
  STRATA_REGION_END(prof, kKernel);
  STRATA_REGIONS_FINALIZE(prof);
}

// Warp-specialized SGEMM: warp group 0 produces tiles (plain loads into a two-stage ring),
// warp group 1 consumes them (64x64 tile, 4x8 per thread); named barriers full/empty per stage.
template <class Cfg>
__global__ void __launch_bounds__(256) WarpSpecKernel(const float* __restrict__ A, const float* __restrict__ B,
                                                      float* __restrict__ C, int M, int N, int K) {
  __shared__ __align__(16) float As[2][BM][BK];
  __shared__ __align__(16) float Bs[2][BK][BN];
  STRATA_REGIONS_SHARED(Cfg, prof_smem);
  STRATA_REGIONS_BEGIN(Cfg, prof, prof_smem, strata::regions::WarpGroupLane());
  const int tid = threadIdx.x, wg = tid / 128, t = tid % 128;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int KT = K / BK;
  if (wg == 0) {
    STRATA_REGION_START(prof, kProdLoop);
    for (int kt = 0; kt < KT; ++kt) {
      const int s = kt & 1;
      STRATA_ITER_START(prof, kProdLoop, kt);
      if (kt >= 2) {
        STRATA_REGION_START(prof, kEmptyWait);
        NamedSync(3 + s, 256);
        STRATA_REGION_END(prof, kEmptyWait);
      }
      STRATA_REGION_START(prof, kLoadTile);
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int idx = t + r * 128;
        *reinterpret_cast<float4*>(&As[s][idx / 4][(idx % 4) * 4]) =
            *reinterpret_cast<const float4*>(A + (size_t)(m0 + idx / 4) * K + kt * BK + (idx % 4) * 4);
        *reinterpret_cast<float4*>(&Bs[s][idx / 16][(idx % 16) * 4]) =
            *reinterpret_cast<const float4*>(B + (size_t)(kt * BK + idx / 16) * N + n0 + (idx % 16) * 4);
      }
      STRATA_REGION_END(prof, kLoadTile);
      NamedArrive(1 + s, 256);
      STRATA_ITER_END(prof, kProdLoop, kt);
    }
    STRATA_REGION_END(prof, kProdLoop);
  } else {
    const int tx = t % 8, ty = t / 8;  // 8 column groups of 8, 16 row groups of 4
    float acc[4][8] = {};
    STRATA_REGION_START(prof, kConsLoop);
    for (int kt = 0; kt < KT; ++kt) {
      const int s = kt & 1;
      STRATA_ITER_START(prof, kConsLoop, kt);
      STRATA_REGION_START(prof, kFullWait);
      NamedSync(1 + s, 256);
      STRATA_REGION_END(prof, kFullWait);
      STRATA_REGION_START(prof, kMma);
#pragma unroll
      for (int k = 0; k < BK; ++k) {
        float a[4], b[8];
#pragma unroll
        for (int i = 0; i < 4; ++i) a[i] = As[s][ty * 4 + i][k];
#pragma unroll
        for (int j = 0; j < 8; ++j) b[j] = Bs[s][k][tx * 8 + j];
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int j = 0; j < 8; ++j) acc[i][j] += a[i] * b[j];
      }
      STRATA_REGION_END(prof, kMma);
      if (kt + 2 < KT) NamedArrive(3 + s, 256);
      STRATA_ITER_END(prof, kConsLoop, kt);
    }
    STRATA_REGION_END(prof, kConsLoop);
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) C[(size_t)(m0 + ty * 4 + i) * N + n0 + tx * 8 + j] = acc[i][j];
  }
  STRATA_REGIONS_FINALIZE(prof);
}

// Flat regions on user-chosen lanes: 192 threads in four sets of 48 (not warp-aligned), each
// led by its first thread.
template <class Cfg>
__global__ void SimpleKernel(const float* __restrict__ x, float* __restrict__ y, float* __restrict__ sums, int n) {
  __shared__ float part[4];
  STRATA_REGIONS_SHARED(Cfg, prof_smem);
  const int tid = threadIdx.x, group = tid / 48;
  STRATA_REGIONS_BEGIN(Cfg, prof, prof_smem, strata::regions::CustomLane(group, tid % 48 == 0));
  if (tid < 4) part[tid] = 0.f;
  __syncthreads();
  STRATA_REGION_START(prof, kWork);
  float local = 0.f;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) {
    const float v = x[i] * 2.f + 1.f;
    y[i] = v;
    local += v;
  }
  STRATA_REGION_END(prof, kWork);
  STRATA_REGION_START(prof, kReduce);
  atomicAdd(&part[group], local);
  __syncthreads();
  STRATA_REGION_END(prof, kReduce);
  if (tid % 48 == 0) sums[blockIdx.x * 4 + group] = part[group];
  STRATA_REGIONS_FINALIZE(prof);
}

// Accuracy: an outer region of `reps` inner regions of `work` dependent FMAs; clock64 around the
// outer part in both builds gives the truth (plain build) and the raw instrumented span.
template <class Cfg>
__global__ void SpinKernel(unsigned long long* out, float* sink, int reps, int work) {
  STRATA_REGIONS_SHARED(Cfg, prof_smem);
  STRATA_REGIONS_BEGIN(Cfg, prof, prof_smem, strata::regions::BlockLane());
  float x = threadIdx.x * 1e-3f;
  Keep(x);
  const unsigned long long t0 = Clk64();
  STRATA_REGION_START(prof, kOuter);
  for (int r = 0; r < reps; ++r) {
    STRATA_REGION_START(prof, kInner);
    for (int j = 0; j < work; ++j) x = x * 0.999f + 0.5f;
    Keep(x);
    STRATA_REGION_END(prof, kInner);
  }
  STRATA_REGION_END(prof, kOuter);
  const unsigned long long t1 = Clk64();
  if (threadIdx.x == 0) out[blockIdx.x] = t1 - t0;
  sink[blockIdx.x * blockDim.x + threadIdx.x] = x;
  STRATA_REGIONS_FINALIZE(prof);
}

// Bad input on purpose: a start without its end, an end without its start.
template <class Cfg>
__global__ void UnbalancedKernel(int* out) {
  STRATA_REGIONS_SHARED(Cfg, prof_smem);
  STRATA_REGIONS_BEGIN(Cfg, prof, prof_smem, strata::regions::BlockLane());
  STRATA_REGION_START(prof, kNeverEnded);
  STRATA_REGION_START(prof, kBalanced);
  out[threadIdx.x] = threadIdx.x * 3;
  STRATA_REGION_END(prof, kBalanced);
  STRATA_REGION_END(prof, kNeverStarted);
  STRATA_REGIONS_FINALIZE(prof);
}

// 32-bit clock wrap: block 0 marks an iteration every `step` cycles (gaps < 2^32: unwrapped
// exactly); block 1 has one region longer than 2^32 cycles (ambiguous: the decoder must say so).
template <class Cfg>
__global__ void WrapKernel(unsigned long long step, int iters, int* out) {
  STRATA_REGIONS_SHARED(Cfg, prof_smem);
  STRATA_REGIONS_BEGIN(Cfg, prof, prof_smem, strata::regions::BlockLane());
  if (blockIdx.x == 0) {
    STRATA_REGION_START(prof, kWrapLoop);
    for (int i = 0; i < iters; ++i) {
      STRATA_ITER_START(prof, kWrapLoop, i);
      const unsigned long long s = Clk64();
      while (Clk64() - s < step) {
      }
      STRATA_ITER_END(prof, kWrapLoop, i);
    }
    STRATA_REGION_END(prof, kWrapLoop);
  } else {
    STRATA_REGION_START(prof, kLongGap);
    const unsigned long long s = Clk64();
    while (Clk64() - s < step * iters) {
    }
    STRATA_REGION_END(prof, kLongGap);
  }
  out[blockIdx.x] = 1;
  STRATA_REGIONS_FINALIZE(prof);
}

// ---- host side
void SetBuffer(void* ptr, size_t capacity) { strata::regions::SetModuleBuffer(ptr, capacity); }
const char* Names() { return strata_region_names_host; }
void Gemm(const float* A, const float* B, float* C, int M, int N, int K, int variant, cudaStream_t st) {
  const dim3 grid(N / BN, M / BM);
  if (variant == 0) GemmKernel<GemmCirc><<<grid, 256, 0, st>>>(A, B, C, M, N, K);
  if (variant == 1) GemmKernel<GemmSmall><<<grid, 256, 0, st>>>(A, B, C, M, N, K);
  if (variant == 2) GemmKernel<GemmFlush><<<grid, 256, 0, st>>>(A, B, C, M, N, K);
}
void WarpSpec(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t st) {
  WarpSpecKernel<GemmCirc><<<dim3(N / BN, M / BM), 256, 0, st>>>(A, B, C, M, N, K);
}
void Simple(const float* x, float* y, float* sums, int n, int blocks, cudaStream_t st) {
  SimpleKernel<Small><<<blocks, 192, 0, st>>>(x, y, sums, n);
}
void Spin(unsigned long long* out, float* sink, int blocks, int reps, int work, cudaStream_t st) {
  SpinKernel<Small><<<blocks, 32, 0, st>>>(out, sink, reps, work);
}
void Unbalanced(int* out, cudaStream_t st) { UnbalancedKernel<Small><<<1, 32, 0, st>>>(out); }
void Wrap(unsigned long long step, int iters, int* out, cudaStream_t st) {
  WrapKernel<Small><<<2, 32, 0, st>>>(step, iters, out);
}
void Calibrate(unsigned n, cudaStream_t st) {
#if !defined(STRATA_REGIONS_DISABLED)
  strata::regions::CalibrationKernel<Calib><<<1, 32, 0, st>>>(n);
#else
  (void)n;
  (void)st;
#endif
}

}  // namespace REGIONS_NS
