// A small CUDA C++ program for the snap/replay check (bench/snap/run_h100.sh): five launches of a
// kernel that reads two inputs and writes an output, its arguments partly in a struct passed by
// value (pointers inside a parameter). Prints each launch's time between events, so the
// replay's time can be set against the in-run one.
//   axpy_steps [N elements, default 2^26]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

struct Inputs {
  const float* x;
  const float* w;
  int n;
};

__global__ void axpy_step(Inputs in, float a, float* out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < in.n; i += gridDim.x * blockDim.x) {
    float v = in.x[i] * a + in.w[i];
    out[i] = v * v * 0.5f + out[i];  // reads its output too: in-place state matters
  }
}

#define CHECK(x)                                                                         \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                      \
      return 1;                                                                          \
    }                                                                                    \
  } while (0)

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 26;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = float(i % 1000) / 1000.0f;
  float *x, *w, *out;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&w, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(w, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, n * sizeof(float)));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  for (int step = 1; step <= 5; ++step) {
    Inputs in{x, w, n};
    CHECK(cudaEventRecord(a));
    axpy_step<<<sms * 8, 256>>>(in, 1.0f + step * 0.25f, out);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    std::printf("launch %d: %.2f us\n", step, ms * 1000);
  }
  CHECK(cudaMemcpy(h.data(), out, sizeof(float) * 4, cudaMemcpyDeviceToHost));
  std::printf("out[1] = %.6f\n", h[1]);
  return 0;
}
