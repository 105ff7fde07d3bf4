// Kernels of the region-marker overhead benchmark (issue 7, part 6). Included twice:
// gemm_on.cu (markers recorded) and gemm_off.cu (STRATA_REGIONS_DISABLED: markers compile to
// nothing), each in its own namespace (REGIONS_NS), so that one binary times one against the other.
//
// - PipelinedGemm<Stages, Level, BK>: a 128x128xBK-tile SGEMM (256 threads, 8x8 outputs per
//   thread) with a Stages-deep cp.async pipeline (2 and 3 here): the shape of a real CUDA-core
//   GEMM, not a toy. BK = 8 or 32: the same markers around 4x the work.
// - WarpSpecGemm<Stages, Level, BK>: the same tile, warp-specialized: warp group 0 produces tiles into a
//   Stages-deep ring (cp.async), warp groups 1 and 2 consume them (64x128 each); full/empty
//   named barriers per stage.
// Marker levels (what a user would put in such a kernel):
//   1 "per stage": wait and compute per k-step (4 records per lane and k-step);
//   2 "full": plus the k-step's iteration markers and the async load as two-starts-one-end
//     (7 per lane and k-step in the pipelined GEMM, 6 in the warp-specialized one).
// Leaders (thread 0 of each warp group) read clock64 just outside the k-loop markers in both
// builds: the plain build's value is the ground truth for the replayed k-loop region.
#include <cuda_runtime.h>
#include <stdint.h>

#include "strata/regions.cuh"
#include "gemm_api.h"

enum : unsigned {
  kKLoop = 1, kWait = 2, kCompute = 3, kLoad = 4, kEpilogue = 5,
  kProdLoop = 10, kEmptyWait = 11, kLoadTile = 12, kConsLoop = 13, kFullWait = 14, kMma = 15,
};
STRATA_REGION_NAMES(
    "1=k-loop;2=wait;3=compute;4=load (cp.async);5=epilogue;"
    "10=producer loop;11=wait empty;12=load tile;13=consumer loop;14=wait full;15=mma");

namespace REGIONS_NS {

constexpr int BM = 128, BN = 128, TM = 8, TN = 8;  // k-step depth BK: 8 or 32 (template)
// Tiles live in dynamic shared memory (3 stages of a 32-deep k-step need 96 KiB); the region
// slots stay static.
template <int Stages, int BK>
constexpr int TileBytes() { return Stages * (BM * BK + BK * BN) * 4; }
// Circular lanes keep the newest 256 records (2 KiB a lane); flush lanes spill every 64;
// "keep-all" lanes (1024 records) hold every record of a 1024-deep K (for the accuracy runs).
using Circ2 = strata::regions::Config<256, strata::regions::kCircular, 2>;
using Flush2 = strata::regions::Config<64, strata::regions::kFlush, 2>;
using All2 = strata::regions::Config<1024, strata::regions::kCircular, 2>;
using Circ3 = strata::regions::Config<256, strata::regions::kCircular, 3>;
using Flush3 = strata::regions::Config<64, strata::regions::kFlush, 3>;
using All3 = strata::regions::Config<1024, strata::regions::kCircular, 3>;

__device__ __forceinline__ void CpAsync16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void CpAsyncCommit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void CpAsyncWait() { asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory"); }
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

// One k-step of a 128x128x8 tile for a thread owning rows r0..r0+7 and columns c0..c0+7.
template <int BK>
__device__ __forceinline__ void MmaStep(const float (*As)[BK], const float (*Bs)[BN], int r0, int c0,
                                        float (&acc)[TM][TN]) {
#pragma unroll
  for (int k = 0; k < BK; ++k) {
    float a[TM], b[TN];
#pragma unroll
    for (int i = 0; i < TM; ++i) a[i] = As[r0 + i][k];
    const float4 b0 = *reinterpret_cast<const float4*>(&Bs[k][c0]);
    const float4 b1 = *reinterpret_cast<const float4*>(&Bs[k][c0 + 4]);
    b[0] = b0.x, b[1] = b0.y, b[2] = b0.z, b[3] = b0.w, b[4] = b1.x, b[5] = b1.y, b[6] = b1.z, b[7] = b1.w;
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
  }
}

// A thread's 8x8 outputs, rows r0.., columns c0.. of C (row length N).
__device__ __forceinline__ void StoreTile(float* C, int N, int r0, int c0, const float (&acc)[TM][TN]) {
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    float* c = C + (size_t)(r0 + i) * N + c0;
    *reinterpret_cast<float4*>(c) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    *reinterpret_cast<float4*>(c + 4) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
  }
}

template <int Stages, int Level, int BK, class Cfg>
__global__ void __launch_bounds__(256) PipelinedGemm(const float* __restrict__ A, const float* __restrict__ B,
                                                     float* __restrict__ C, int M, int N, int K,
                                                     unsigned long long* __restrict__ loop_cycles) {
  extern __shared__ __align__(16) float tiles[];
  auto As = reinterpret_cast<float (*)[BM][BK]>(tiles);
  auto Bs = reinterpret_cast<float (*)[BK][BN]>(tiles + Stages * BM * BK);
  STRATA_REGIONS_SHARED(Cfg, prof_smem);
  STRATA_REGIONS_BEGIN(Cfg, prof, prof_smem, strata::regions::WarpGroupLane());
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int KT = K / BK;
  auto issue = [&](int stage, int kt) {
#pragma unroll
    for (int r = 0; r < BK / 8; ++r) {  // 16-byte pieces: BK/8 of A and of B per thread
      const int i = tid + r * 256;
      CpAsync16(&As[stage][i / (BK / 4)][(i % (BK / 4)) * 4],
                A + (size_t)(m0 + i / (BK / 4)) * K + kt * BK + (i % (BK / 4)) * 4);
      CpAsync16(&Bs[stage][i / 32][(i % 32) * 4], B + (size_t)(kt * BK + i / 32) * N + n0 + (i % 32) * 4);
    }
  };
  float acc[TM][TN] = {};
#pragma unroll
  for (int s = 0; s < Stages - 1; ++s) {
    if (s < KT) issue(s, s);
    CpAsyncCommit();
  }
  const unsigned long long t0 = Clk64();
  STRATA_REGION_START(prof, kKLoop);
  if (Level >= 2) STRATA_REGION_START(prof, kLoad);
  for (int kt = 0; kt < KT; ++kt) {
    if (Level >= 2) STRATA_ITER_START(prof, kKLoop, kt);
    if (Level >= 2) {
      STRATA_REGION_WAIT(prof, kLoad);
    } else {
      STRATA_REGION_START(prof, kWait);
    }
    CpAsyncWait<Stages - 2>();
    __syncthreads();
    if (Level >= 2) {
      STRATA_REGION_END(prof, kLoad);
    } else {
      STRATA_REGION_END(prof, kWait);
    }
    // Refill the stage computed in the previous k-step (every thread is past the barrier).
    if (Level >= 2 && kt + 1 < KT) STRATA_REGION_START(prof, kLoad);
    if (kt + Stages - 1 < KT) issue((kt + Stages - 1) % Stages, kt + Stages - 1);
    CpAsyncCommit();
    STRATA_REGION_START(prof, kCompute);
    MmaStep<BK>(As[kt % Stages], Bs[kt % Stages], ty * TM, tx * TN, acc);
    STRATA_REGION_END(prof, kCompute);
    if (Level >= 2) STRATA_ITER_END(prof, kKLoop, kt);
  }
  STRATA_REGION_END(prof, kKLoop);
  const unsigned long long t1 = Clk64();
  if (tid % 128 == 0) loop_cycles[(blockIdx.y * gridDim.x + blockIdx.x) * 2 + tid / 128] = t1 - t0;
  STRATA_REGION_START(prof, kEpilogue);
  StoreTile(C, N, m0 + ty * TM, n0 + tx * TN, acc);
  STRATA_REGION_END(prof, kEpilogue);
  STRATA_REGIONS_FINALIZE(prof);
}

// 384 threads: warp group 0 produces, 1 and 2 consume. Barrier ids: 1..Stages "full" (producer
// arrives, consumers wait), Stages+1..2*Stages "empty" (consumers arrive, producer waits).
template <int Stages, int Level, int BK, class Cfg>
__global__ void __launch_bounds__(384) WarpSpecGemm(const float* __restrict__ A, const float* __restrict__ B,
                                                    float* __restrict__ C, int M, int N, int K,
                                                    unsigned long long* __restrict__ loop_cycles) {
  extern __shared__ __align__(16) float tiles[];
  auto As = reinterpret_cast<float (*)[BM][BK]>(tiles);
  auto Bs = reinterpret_cast<float (*)[BK][BN]>(tiles + Stages * BM * BK);
  STRATA_REGIONS_SHARED(Cfg, prof_smem);
  STRATA_REGIONS_BEGIN(Cfg, prof, prof_smem, strata::regions::WarpGroupLane());
  const int tid = threadIdx.x, wg = tid / 128, t = tid % 128;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int KT = K / BK;
  unsigned long long t0 = 0, t1 = 0;
  if (wg == 0) {
    t0 = Clk64();
    STRATA_REGION_START(prof, kProdLoop);
    for (int kt = 0; kt < KT; ++kt) {
      const int s = kt % Stages;
      if (Level >= 2) STRATA_ITER_START(prof, kProdLoop, kt);
      if (kt >= Stages) {
        STRATA_REGION_START(prof, kEmptyWait);
        NamedSync(1 + Stages + s, 384);
        STRATA_REGION_END(prof, kEmptyWait);
      }
      STRATA_REGION_START(prof, kLoadTile);
#pragma unroll
      for (int r = 0; r < BK / 4; ++r) {  // the producer warp group loads the whole tile
        const int i = t + r * 128;
        CpAsync16(&As[s][i / (BK / 4)][(i % (BK / 4)) * 4],
                  A + (size_t)(m0 + i / (BK / 4)) * K + kt * BK + (i % (BK / 4)) * 4);
        CpAsync16(&Bs[s][i / 32][(i % 32) * 4], B + (size_t)(kt * BK + i / 32) * N + n0 + (i % 32) * 4);
      }
      CpAsyncCommit();
      CpAsyncWait<0>();
      STRATA_REGION_END(prof, kLoadTile);
      NamedArrive(1 + s, 384);
      if (Level >= 2) STRATA_ITER_END(prof, kProdLoop, kt);
    }
    STRATA_REGION_END(prof, kProdLoop);
    t1 = Clk64();
  } else {
    const int half = wg - 1, tx = t % 16, ty = t / 16;  // rows half*64 + ty*8.., columns tx*8..
    float acc[TM][TN] = {};
    t0 = Clk64();
    STRATA_REGION_START(prof, kConsLoop);
    for (int kt = 0; kt < KT; ++kt) {
      const int s = kt % Stages;
      if (Level >= 2) STRATA_ITER_START(prof, kConsLoop, kt);
      STRATA_REGION_START(prof, kFullWait);
      NamedSync(1 + s, 384);
      STRATA_REGION_END(prof, kFullWait);
      STRATA_REGION_START(prof, kMma);
      MmaStep<BK>(As[s], Bs[s], half * 64 + ty * TM, tx * TN, acc);
      STRATA_REGION_END(prof, kMma);
      if (kt + Stages < KT) NamedArrive(1 + Stages + s, 384);
      if (Level >= 2) STRATA_ITER_END(prof, kConsLoop, kt);
    }
    STRATA_REGION_END(prof, kConsLoop);
    t1 = Clk64();
    StoreTile(C, N, m0 + half * 64 + ty * TM, n0 + tx * TN, acc);
  }
  if (t == 0) loop_cycles[(blockIdx.y * gridDim.x + blockIdx.x) * 3 + wg] = t1 - t0;
  STRATA_REGIONS_FINALIZE(prof);
}

// SASS probe: N records back to back in straight-line code. The on/off builds' instruction
// counts differ by what N records cost (bench/regions/sass_record_cost.py reads cuobjdump -sass).
template <int N>
__global__ void RecordProbe(int* out) {
  using Cfg = strata::regions::Config<64, strata::regions::kCircular, 1>;
  STRATA_REGIONS_SHARED(Cfg, prof_smem);
  STRATA_REGIONS_BEGIN(Cfg, prof, prof_smem, strata::regions::BlockLane());
#pragma unroll
  for (int i = 0; i < N; ++i) STRATA_REGION_START(prof, kWait);
  out[threadIdx.x] = threadIdx.x;
  STRATA_REGIONS_FINALIZE(prof);
}

// ---- host side
void SetBuffer(void* ptr, size_t capacity) { strata::regions::SetModuleBuffer(ptr, capacity); }
const char* Names() { return strata_region_names_host; }

using KernelFn = void (*)(const float*, const float*, float*, int, int, int, unsigned long long*);
using L2Circ = Circ2;
using L2Flush = Flush2;
using L2All = All2;
using L3Circ = Circ3;
using L3Flush = Flush3;
using L3All = All3;
// kind: 0 pipelined GEMM, 1 warp-specialized; mode: 0 circular, 1 flush, 2 keep-all.
#define STRATA_BENCH_PICK(Kernel, St, Lvl, Bk, Cfgs)                              \
  if (g.stages == St && g.level == Lvl && g.bk == Bk) {                           \
    *bytes = TileBytes<St, Bk>();                                                 \
    if (g.mode == 0) return &Kernel<St, Lvl, Bk, Cfgs##Circ>;                     \
    if (g.mode == 1) return &Kernel<St, Lvl, Bk, Cfgs##Flush>;                    \
    if (g.mode == 2) return &Kernel<St, Lvl, Bk, Cfgs##All>;                      \
  }
#define STRATA_BENCH_PICK_ALL(Kernel, Cfgs)                                       \
  STRATA_BENCH_PICK(Kernel, 2, 1, 8, Cfgs) STRATA_BENCH_PICK(Kernel, 2, 2, 8, Cfgs)   \
  STRATA_BENCH_PICK(Kernel, 3, 1, 8, Cfgs) STRATA_BENCH_PICK(Kernel, 3, 2, 8, Cfgs)   \
  STRATA_BENCH_PICK(Kernel, 2, 1, 32, Cfgs) STRATA_BENCH_PICK(Kernel, 2, 2, 32, Cfgs) \
  STRATA_BENCH_PICK(Kernel, 3, 1, 32, Cfgs) STRATA_BENCH_PICK(Kernel, 3, 2, 32, Cfgs)
static KernelFn Pick(const GemmArgs& g, int* bytes) {
  if (g.kind == 0) {
    STRATA_BENCH_PICK_ALL(PipelinedGemm, L2)
  } else {
    STRATA_BENCH_PICK_ALL(WarpSpecGemm, L3)
  }
  return nullptr;
}
#undef STRATA_BENCH_PICK_ALL
#undef STRATA_BENCH_PICK

bool Gemm(const GemmArgs& g, cudaStream_t st) {
  int bytes = 0;
  KernelFn k = Pick(g, &bytes);
  if (k == nullptr) return false;
  k<<<dim3(g.N / BN, g.M / BM), g.kind == 0 ? 256 : 384, bytes, st>>>(g.A, g.B, g.C, g.M, g.N, g.K, g.loop_cycles);
  return true;
}

// Also lets the kernel take its dynamic shared memory (call before timing it).
bool Describe(const GemmArgs& g, int* regs, int* smem_bytes, int* blocks_per_sm) {
  int bytes = 0;
  KernelFn k = Pick(g, &bytes);
  cudaFuncAttributes a;
  if (k == nullptr || cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) != cudaSuccess ||
      cudaFuncGetAttributes(&a, k) != cudaSuccess)
    return false;
  *regs = a.numRegs;
  *smem_bytes = int(a.sharedSizeBytes) + bytes;  // static (region slots) + dynamic (tiles)
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, k, g.kind == 0 ? 256 : 384, bytes) == cudaSuccess;
}

void Probe(int records, int* out, cudaStream_t st) {
  if (records == 0) RecordProbe<0><<<1, 32, 0, st>>>(out);
  if (records == 16) RecordProbe<16><<<1, 32, 0, st>>>(out);
}

void Calibrate(unsigned n, cudaStream_t st) {
#if !defined(STRATA_REGIONS_DISABLED)
  strata::regions::CalibrationKernel<strata::regions::Config<1024, strata::regions::kCircular, 1>><<<1, 32, 0, st>>>(n);
#else
  (void)n;
  (void)st;
#endif
}

}  // namespace REGIONS_NS
