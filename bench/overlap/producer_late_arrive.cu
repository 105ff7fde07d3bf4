// A warp-specialized SGEMM-like kernel whose producer arrives late, and its fixed twin: a
// lateness that costs without markers too (validation of the overlap analysis, docs/regions.md
// "Overlap analysis"). Warp group 0 loads a tile into a one-slot ring (`load tile`, then
// `full`), and computes a statistic of the tile it just stored (`stats`, a dependent chain of
// `work_steps` steps per element, written to shared memory: work the consumer does not need).
// Warp group 1 waits on `full`, multiplies (`mma`) and releases the slot on `empty`.
// LATE: the producer arrives on `full` after `stats`; the twin arrives right after `load tile`
// and does `stats` while the consumer multiplies. Nothing else differs.
//
// `stats` reads the tile back from shared memory and ends with a shared store, so neither
// compiler can move it across the `bar.arrive` (its memory clobber, and ptxas keeps memory
// operations on their side of a barrier): without that, register-only work after a late arrive
// can be scheduled past it and the plain kernel is not late at all (late_arrive.cu's `rescale`).
//
// Built per variant with markers (the buffer the analysis reads) and with
// -DSTRATA_REGIONS_DISABLED (the timing truth). Prints one JSON line per run:
//   {"variant": "late"|"fixed", "markers": 0|1, "work_steps": W, "median_ms": ..., "launches": N}
// and, with markers, writes OUT/<variant>.bin and OUT/<variant>.json (names, clock rate).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <strata/regions.cuh>

#ifndef LATE
#define LATE 1
#endif

enum : unsigned { kProdLoop = 1, kLoadTile = 2, kConsLoop = 3, kMma = 4, kStats = 5, kFull = 20, kEmpty = 21 };
STRATA_REGION_NAMES("1=producer loop;2=load tile;3=consumer loop;4=mma;5=stats;20=full;21=empty");

namespace {

constexpr int BM = 64, BN = 64, BK = 8;
using Cfg = strata::regions::Config<1024>;

__device__ __forceinline__ void NamedSync(unsigned id, unsigned n) { asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory"); }
__device__ __forceinline__ void NamedArrive(unsigned id, unsigned n) { asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(n) : "memory"); }

__global__ void __launch_bounds__(256) WsKernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                                float* __restrict__ stats_out, int M, int N, int K, int work_steps) {
  __shared__ __align__(16) float As[BM][BK];
  __shared__ __align__(16) float Bs[BK][BN];
  __shared__ float Stat[128];
  STRATA_REGIONS_SHARED(Cfg, prof_smem);
  STRATA_REGIONS_BEGIN(Cfg, prof, prof_smem, strata::regions::WarpGroupLane());
  const int tid = threadIdx.x, wg = tid / 128, t = tid % 128;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int KT = K / BK;
  // Hardware barriers: 1 full, 2 empty (0 is __syncthreads').
  if (wg == 0) {
    float stat = 0;
    STRATA_REGION_START(prof, kProdLoop);
    for (int kt = 0; kt < KT; ++kt) {
      STRATA_ITER_START(prof, kProdLoop, kt);
      if (kt >= 1) {
        STRATA_BARRIER_WAIT_START(prof, kEmpty, kt - 1);
        NamedSync(2, 256);
        STRATA_BARRIER_WAIT_END(prof, kEmpty, kt - 1);
      }
      STRATA_REGION_START(prof, kLoadTile);
#pragma unroll
      for (int r = 0; r < 4; ++r) {  // 64x8 of A and 8x64 of B: 4 floats each per thread
        const int idx = t + r * 128;
        As[idx / BK][idx % BK] = A[(size_t)(m0 + idx / BK) * K + kt * BK + idx % BK];
        Bs[idx / BN][idx % BN] = B[(size_t)(kt * BK + idx / BN) * N + n0 + idx % BN];
      }
      STRATA_REGION_END(prof, kLoadTile);
#if !LATE
      STRATA_BARRIER_ARRIVE(prof, kFull, kt);
      NamedArrive(1, 256);
#endif
      STRATA_REGION_START(prof, kStats);
      {
        float x[4];
        asm volatile("" ::: "memory");  // read the tile back in both variants (no forwarding from the loads)
#pragma unroll
        for (int r = 0; r < 4; ++r) x[r] = As[(t + r * 128) / BK][(t + r * 128) % BK];
#pragma unroll 1
        for (int q = 0; q < work_steps; ++q)
#pragma unroll
          for (int r = 0; r < 4; ++r) x[r] = x[r] * x[r] * 0.5f + 0.25f;
        stat += x[0] + x[1] + x[2] + x[3];
        Stat[t] = stat;
      }
      STRATA_REGION_END(prof, kStats);
#if LATE
      STRATA_BARRIER_ARRIVE(prof, kFull, kt);
      NamedArrive(1, 256);
#endif
      STRATA_ITER_END(prof, kProdLoop, kt);
    }
    STRATA_REGION_END(prof, kProdLoop);
    stats_out[(blockIdx.y * gridDim.x + blockIdx.x) * 128 + t] = Stat[t];
  } else {
    const int tx = t % 8, ty = t / 8;
    float acc[4][8] = {};
    STRATA_REGION_START(prof, kConsLoop);
    for (int kt = 0; kt < KT; ++kt) {
      STRATA_ITER_START(prof, kConsLoop, kt);
      STRATA_BARRIER_WAIT_START(prof, kFull, kt);
      NamedSync(1, 256);
      STRATA_BARRIER_WAIT_END(prof, kFull, kt);
      STRATA_REGION_START(prof, kMma);
#pragma unroll
      for (int k = 0; k < BK; ++k) {
        float a[4], b[8];
#pragma unroll
        for (int i = 0; i < 4; ++i) a[i] = As[ty * 4 + i][k];
#pragma unroll
        for (int j = 0; j < 8; ++j) b[j] = Bs[k][tx * 8 + j];
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int j = 0; j < 8; ++j) acc[i][j] += a[i] * b[j];
      }
      STRATA_REGION_END(prof, kMma);
      if (kt + 1 < KT) { STRATA_BARRIER_ARRIVE(prof, kEmpty, kt); NamedArrive(2, 256); }
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

#define CHECK(x)                                                                            \
  do {                                                                                      \
    cudaError_t e_ = (x);                                                                   \
    if (e_ != cudaSuccess) { std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } \
  } while (0)

}  // namespace

int main(int argc, char** argv) {
  const std::string out = argc > 1 ? argv[1] : ".";
  const int size = argc > 2 ? std::atoi(argv[2]) : 512;   // M = N = K; 512: 64 blocks, one wave
  const int work = argc > 3 ? std::atoi(argv[3]) : 64;
  if (size <= 0 || size % 64 != 0 || work < 0) { std::fprintf(stderr, "usage: OUT [SIZE (multiple of 64)] [WORK_STEPS >= 0]\n"); return 1; }
  const int launches = 50;
  const char* variant = LATE ? "late" : "fixed";
  const size_t n = size_t(size) * size;
  std::vector<float> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = float((i * 2654435761u) % 1000) * 1e-3f;
  const dim3 grid(size / BN, size / BM);
  float *A, *B, *C, *S;
  CHECK(cudaMalloc(&A, n * 4));
  CHECK(cudaMalloc(&B, n * 4));
  CHECK(cudaMalloc(&C, n * 4));
  CHECK(cudaMalloc(&S, size_t(grid.x) * grid.y * 128 * 4));
  CHECK(cudaMemcpy(A, h.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(B, h.data(), n * 4, cudaMemcpyHostToDevice));
#if defined(STRATA_REGIONS_DISABLED)
  const int markers = 0;
#else
  const int markers = 1;
  const size_t bytes = size_t(64) << 20;
  void* buf;
  CHECK(cudaMalloc(&buf, bytes));
#endif
  std::vector<float> ms;
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  for (int i = 0; i < launches + 5; ++i) {
#if !defined(STRATA_REGIONS_DISABLED)
    CHECK(cudaMemset(buf, 0, bytes));
    CHECK(strata::regions::SetModuleBuffer(buf, bytes));
#endif
    CHECK(cudaEventRecord(e0));
    WsKernel<<<grid, 256>>>(A, B, C, S, size, size, size, work);
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    CHECK(cudaGetLastError());
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, e0, e1));
    if (i >= 5) ms.push_back(t);
  }
  // The product against the host's for one output element: both variants compute the same.
  float c0 = 0, ref = 0;
  CHECK(cudaMemcpy(&c0, C, 4, cudaMemcpyDeviceToHost));
  for (int k = 0; k < size; ++k) ref += h[size_t(k)] * h[size_t(k) * size];
  const bool ok = std::abs(c0 - ref) <= 1e-3f * std::max(1.0f, std::abs(ref));
  std::sort(ms.begin(), ms.end());
  std::printf("{\"variant\": \"%s\", \"markers\": %d, \"size\": %d, \"work_steps\": %d, \"median_ms\": %.6f, \"min_ms\": %.6f, \"launches\": %d, \"result_ok\": %s}\n",
              variant, markers, size, work, ms[ms.size() / 2], ms.front(), launches, ok ? "true" : "false");
#if !defined(STRATA_REGIONS_DISABLED)
  // The last launch's buffer and its sidecar (names, the device's clock rate).
  std::vector<unsigned char> raw(bytes);
  CHECK(cudaMemcpy(raw.data(), buf, bytes, cudaMemcpyDeviceToHost));
  unsigned long long used = 0;
  std::memcpy(&used, raw.data() + 16, 8);
  const size_t keep = std::min<size_t>(bytes, 64 + used);
  FILE* f = std::fopen((out + "/" + variant + ".bin").c_str(), "wb");
  if (!f || std::fwrite(raw.data(), 1, keep, f) != keep) { std::fprintf(stderr, "cannot write %s.bin\n", variant); return 1; }
  std::fclose(f);
  int khz = 0;
  CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  f = std::fopen((out + "/" + variant + ".json").c_str(), "w");
  std::fprintf(f, "{\"case\": \"%s\", \"names\": \"%s\", \"clock_cycles_per_ns\": %.6f}\n", variant, strata_region_names_host, khz / 1e6);
  std::fclose(f);
#endif
  return ok ? 0 : 3;
}
