// A bulk-copy (TMA engine, UBLKCP) pipeline in two variants, the mbarrier half of the SASS
// dependency analysis's validation (docs/async-copies.md; the cp.async half is
// async_copy_pipeline.cu). Each block streams its part of an array through a ring of 4 shared
// memory stages of 8 KiB: thread 0 arms a stage's mbarrier with the bytes to expect and issues
// cp.async.bulk into it; every thread waits on the mbarrier (try_wait.parity), then reduces the
// stage.
//   bulk_copy_late: issues tile kt at the top of iteration kt and waits for it at once;
//   bulk_copy_twin: issues tiles three iterations ahead (a prologue fills three stages).
// Same shared memory (32 KiB static), same arithmetic, same outputs (checked bit-exact). The
// waits are written in each kernel so that each has its own source line.
//   bulk_copy_pipeline [BLOCKS TILES] [launches]   (defaults 264 128, 100)
// Prints one JSON line per variant: {"variant", "median_ms", "min_ms", "launches", "blocks", "tiles"}.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr int kTileFloats = 2048, kTileBytes = kTileFloats * 4, kStages = 4, kThreads = 256;

__device__ __forceinline__ unsigned Smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void InitBarriers(unsigned long long* bars) {
  if (threadIdx.x == 0)
    for (int s = 0; s < kStages; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(Smem(&bars[s])) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  __syncthreads();
}

// Thread 0: arm the stage's barrier with the tile's bytes and start the bulk copy into it.
__device__ __forceinline__ void IssueTile(float* stage, unsigned long long* bar, const float* src) {
  if (threadIdx.x != 0) return;
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(Smem(bar)), "r"(kTileBytes) : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(Smem(stage)),
               "l"(src), "r"(kTileBytes), "r"(Smem(bar))
               : "memory");
}

__device__ __forceinline__ float Reduce(const float* stage, float acc) {
#pragma unroll
  for (int i = 0; i < kTileFloats / kThreads; ++i) {
    const float x = stage[i * kThreads + threadIdx.x];
    acc = fmaf(x, x, acc);
  }
  return acc;
}

}  // namespace

extern "C" __global__ void __launch_bounds__(kThreads) bulk_copy_late(const float* __restrict__ in, float* __restrict__ out, int tiles) {
  __shared__ __align__(128) float ring[kStages][kTileFloats];
  __shared__ __align__(8) unsigned long long bars[kStages];
  InitBarriers(bars);
  const float* src = in + (size_t)blockIdx.x * tiles * kTileFloats;
  float acc = 0;
  for (int kt = 0; kt < tiles; ++kt) {
    const int s = kt % kStages;
    __syncthreads();  // every thread is done with the stage's previous tile
    IssueTile(ring[s], &bars[s], src + (size_t)kt * kTileFloats);
    unsigned done = 0;
    do {  // LATE: waits for the tile just issued
      asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                   : "=r"(done) : "r"(Smem(&bars[s])), "r"((kt / kStages) & 1) : "memory");
    } while (!done);
    acc = Reduce(ring[s], acc);
  }
  out[blockIdx.x * kThreads + threadIdx.x] = acc;
}

extern "C" __global__ void __launch_bounds__(kThreads) bulk_copy_twin(const float* __restrict__ in, float* __restrict__ out, int tiles) {
  __shared__ __align__(128) float ring[kStages][kTileFloats];
  __shared__ __align__(8) unsigned long long bars[kStages];
  InitBarriers(bars);
  const float* src = in + (size_t)blockIdx.x * tiles * kTileFloats;
  float acc = 0;
  for (int s = 0; s < kStages - 1 && s < tiles; ++s) IssueTile(ring[s], &bars[s], src + (size_t)s * kTileFloats);
  for (int kt = 0; kt < tiles; ++kt) {
    const int s = kt % kStages;
    __syncthreads();  // every thread is done with tile kt - 1: its stage can be refilled
    const int next = kt + kStages - 1;
    if (next < tiles) IssueTile(ring[next % kStages], &bars[next % kStages], src + (size_t)next * kTileFloats);
    unsigned done = 0;
    do {  // TWIN: the tile issued three iterations ago
      asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                   : "=r"(done) : "r"(Smem(&bars[s])), "r"((kt / kStages) & 1) : "memory");
    } while (!done);
    acc = Reduce(ring[s], acc);
  }
  out[blockIdx.x * kThreads + threadIdx.x] = acc;
}

#define CHECK(x)                                                                         \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                      \
      return 1;                                                                          \
    }                                                                                    \
  } while (0)

using Kernel = void (*)(const float*, float*, int);

int main(int argc, char** argv) {
  const int blocks = argc > 2 ? std::atoi(argv[1]) : 264, tiles = argc > 2 ? std::atoi(argv[2]) : 128;
  const int launches = argc > 3 ? std::atoi(argv[3]) : argc == 2 ? std::atoi(argv[1]) : 100;
  if (blocks <= 0 || tiles <= 0 || launches < 0) {
    std::fprintf(stderr, "usage: bulk_copy_pipeline [BLOCKS TILES] [launches]\n");
    return 2;
  }
  const size_t n = (size_t)blocks * tiles * kTileFloats;
  std::vector<float> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = float(int(i % 29) - 14) / 16.0f;
  float *in, *o1, *o2;
  CHECK(cudaMalloc(&in, n * 4));
  CHECK(cudaMalloc(&o1, (size_t)blocks * kThreads * 4));
  CHECK(cudaMalloc(&o2, (size_t)blocks * kThreads * 4));
  CHECK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  struct Variant {
    const char* name;
    Kernel k;
    float* out;
  } variants[] = {{"late", bulk_copy_late, o1}, {"twin", bulk_copy_twin, o2}};
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  for (const Variant& v : variants) {
    if (launches == 0) {  // one launch each (for `strata record --snap`)
      v.k<<<blocks, kThreads>>>(in, v.out, tiles);
      CHECK(cudaDeviceSynchronize());
      continue;
    }
    for (int i = 0; i < 3; ++i) v.k<<<blocks, kThreads>>>(in, v.out, tiles);
    CHECK(cudaDeviceSynchronize());
    std::vector<float> ms(launches);
    for (int i = 0; i < launches; ++i) {
      CHECK(cudaEventRecord(e0));
      v.k<<<blocks, kThreads>>>(in, v.out, tiles);
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      CHECK(cudaEventElapsedTime(&ms[i], e0, e1));
    }
    CHECK(cudaGetLastError());
    std::sort(ms.begin(), ms.end());
    std::printf("{\"variant\": \"%s\", \"median_ms\": %.4f, \"min_ms\": %.4f, \"launches\": %d, \"blocks\": %d, \"tiles\": %d}\n", v.name,
                ms[launches / 2], ms[0], launches, blocks, tiles);
  }
  std::vector<float> a((size_t)blocks * kThreads), b(a.size());
  CHECK(cudaMemcpy(a.data(), o1, a.size() * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(b.data(), o2, b.size() * 4, cudaMemcpyDeviceToHost));
  const bool same = std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
  double ref = 0;  // thread 0 of block 0 from the host
  for (int kt = 0; kt < tiles; ++kt)
    for (int i = 0; i < kTileFloats / kThreads; ++i) {
      const float x = h[(size_t)kt * kTileFloats + (size_t)i * kThreads];
      ref += double(x) * x;
    }
  std::printf("outputs: late and twin %s; out[0] %.4f (host %.4f)\n", same ? "bit-exact" : "DIFFER", a[0], ref);
  return same ? 0 : 3;
}
