// GPU workload with kernels of known duration, for checking Strata's GPU collection.
// Spin kernels busy-wait on %globaltimer for a requested time; they are launched from two
// distinct host functions (launch_short / launch_long), plus memcpy, memset, synchronization
// and a CUDA graph of three kernels. Ground truth: CUDA events around every launch (each behind a
// 100 us gate kernel so the events time GPU execution only); printed as
// one JSON object on stdout (per kernel: launches and event time in ns).
//   nvcc -arch=sm_90 -g -lineinfo -O1 -Xcompiler -fno-omit-frame-pointer -cudart shared \
//        -o gpu_workload gpu_workload.cu
//   gpu_workload [ITERATIONS]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#define CHECK(x)                                                                        \
  do {                                                                                  \
    cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                            \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                          \
    }                                                                                   \
  } while (0)

__device__ __forceinline__ unsigned long long GlobalTimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_short(unsigned long long ns, int* sink) {
  unsigned long long t0 = GlobalTimer();
  while (GlobalTimer() - t0 < ns) {}
  if (threadIdx.x == 0 && blockIdx.x == 0) sink[0] += 1;
}

__global__ void spin_long(unsigned long long ns, int* sink) {
  unsigned long long t0 = GlobalTimer();
  while (GlobalTimer() - t0 < ns) {}
  if (threadIdx.x == 0 && blockIdx.x == 0) sink[1] += 1;
}

__global__ void graph_step(unsigned long long ns, int* sink, int k) {
  __shared__ int scratch[256];
  unsigned long long t0 = GlobalTimer();
  scratch[threadIdx.x % 256] = k;
  while (GlobalTimer() - t0 < ns) {}
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) sink[2] += scratch[0];
}

// Keeps the stream busy while the host enqueues the timed launch: without it the GPU reaches the
// start event and then waits for the (profiled, slower) host launch, and the events would time
// host launch latency as well as the kernel.
__global__ void gate(unsigned long long ns) {
  unsigned long long t0 = GlobalTimer();
  while (GlobalTimer() - t0 < ns) {}
}

struct Truth {
  long launches = 0;
  double event_ns = 0;
};
std::map<std::string, Truth> g_truth;
cudaEvent_t g_e0, g_e1;

template <typename F>
void Timed(const char* name, cudaStream_t s, F&& launch) {
  gate<<<1, 32, 0, s>>>(100000ull);  // 100 us
  CHECK(cudaEventRecord(g_e0, s));
  launch();
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(g_e1, s));
  CHECK(cudaEventSynchronize(g_e1));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, g_e0, g_e1));
  Truth& t = g_truth[name];
  t.launches += 1;
  t.event_ns += double(ms) * 1e6;
}

__attribute__((noinline)) void launch_short(cudaStream_t s, int* sink) {
  Timed("spin_short", s, [&] { spin_short<<<4, 128, 0, s>>>(500000ull, sink); });  // 500 us
}

__attribute__((noinline)) void launch_long(cudaStream_t s, int* sink) {
  Timed("spin_long", s, [&] { spin_long<<<2, 256, 1024, s>>>(2000000ull, sink); });  // 2 ms
}

__attribute__((noinline)) void copy_round_trip(cudaStream_t s, float* dev, float* host, size_t n) {
  CHECK(cudaMemcpyAsync(dev, host, n * sizeof(float), cudaMemcpyHostToDevice, s));
  CHECK(cudaMemsetAsync(dev, 0, n * sizeof(float), s));
  CHECK(cudaMemcpyAsync(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
}

__attribute__((noinline)) cudaGraphExec_t build_graph(cudaStream_t s, int* sink) {
  cudaGraph_t g;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int k = 0; k < 3; ++k) graph_step<<<1, 256, 0, s>>>(300000ull, sink, k);  // 3 x 300 us
  CHECK(cudaStreamEndCapture(s, &g));
  CHECK(cudaGraphInstantiate(&exec, g, 0));
  CHECK(cudaGraphDestroy(g));
  return exec;
}

__attribute__((noinline)) void replay_graph(cudaGraphExec_t exec, cudaStream_t s) {
  Timed("graph_step", s, [&] { CHECK(cudaGraphLaunch(exec, s)); });
}

int main(int argc, char** argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 50;
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaEventCreate(&g_e0));
  CHECK(cudaEventCreate(&g_e1));
  int* sink;
  CHECK(cudaMalloc(&sink, 16 * sizeof(int)));
  CHECK(cudaMemset(sink, 0, 16 * sizeof(int)));
  const size_t n = 4 << 20;  // 16 MiB
  float* dev;
  float* host;
  CHECK(cudaMalloc(&dev, n * sizeof(float)));
  CHECK(cudaMallocHost(&host, n * sizeof(float)));
  for (size_t i = 0; i < n; ++i) host[i] = float(i);
  // Warm-up (module load), not part of the truth.
  spin_short<<<1, 32, 0, s>>>(1000ull, sink);
  spin_long<<<1, 32, 0, s>>>(1000ull, sink);
  CHECK(cudaStreamSynchronize(s));
  g_truth.clear();
  cudaGraphExec_t exec = build_graph(s, sink);
  for (int i = 0; i < iters; ++i) {
    launch_short(s, sink);
    launch_long(s, sink);
    if (i % 10 == 0) copy_round_trip(s, dev, host, n);
    if (i % 5 == 0) replay_graph(exec, s);
  }
  CHECK(cudaDeviceSynchronize());
  int h[3];
  CHECK(cudaMemcpy(h, sink, sizeof(h), cudaMemcpyDeviceToHost));
  printf("{\"iterations\": %d, \"warmup_launches\": {\"spin_short\": 1, \"spin_long\": 1}, \"kernels\": {", iters);
  bool first = true;
  for (auto& [name, t] : g_truth) {
    printf("%s\"%s\": {\"launches\": %ld, \"event_ns\": %.0f}", first ? "" : ", ", name.c_str(), t.launches, t.event_ns);
    first = false;
  }
  printf("}, \"graph_kernels_per_launch\": 3, \"sink\": [%d, %d, %d]}\n", h[0], h[1], h[2]);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaFreeHost(host));
  CHECK(cudaFree(dev));
  CHECK(cudaFree(sink));
  return 0;
}
