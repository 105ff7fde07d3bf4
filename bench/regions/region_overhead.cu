// Region-marker overhead and replay accuracy on the device (issue 7, part 6).
//
//   region_overhead OUTDIR [--rounds R]
//
// 1. Overhead: the pipelined GEMM (2 and 3 stages) and the warp-specialized GEMM (2 and 3
//    stages), k-steps 8 and 32 deep (4x the work between markers), 2048^3 fp32, plain (markers compiled out) against markers compiled in with no
//    buffer, and recording per-stage (level 1) or full (level 2) markers into circular or flush
//    lanes. cudaEvent time per launch; the variants alternate in rounds of 10 launches so that
//    clock drift shifts them all alike; median of all launches. Registers, static shared memory
//    and blocks per SM of each build come from cudaFuncGetAttributes / the occupancy API.
// 2. Accuracy: 1024x1024x1024 (64 blocks) with keep-all lanes; per lane, the k-loop's clock64 span of the
//    plain build (truth) and of the instrumented one, plus the raw buffer (acc_*.bin) for
//    `strata regions --calibration calibration.bin` to replay (bench/regions/accuracy.py).
// 3. The calibration buffer of this device (calibration.bin).
// Every result is checked against a naive GEMM. Output: OUTDIR/overhead.json, accuracy.json,
// *.bin; a table on stdout.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "cuda_harness.h"
#include "gemm_api.h"

namespace {

__global__ void ReferenceGemm(const float* A, const float* B, float* C, int M, int N, int K) {
  const int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= M || c >= N) return;
  float s = 0.f;
  for (int k = 0; k < K; ++k) s += A[(size_t)r * K + k] * B[(size_t)k * N + c];
  C[(size_t)r * N + c] = s;
}

struct DeviceBuffer {
  void* dev = nullptr;
  size_t capacity = 0;
  explicit DeviceBuffer(size_t cap) : capacity(cap) { CK(cudaMalloc(&dev, cap)); }
  ~DeviceBuffer() { cudaFree(dev); }
  // Header + used arena (docs/regions.md: `used` at byte 16).
  std::vector<unsigned char> Read() const {
    unsigned long long used = 0;
    CK(cudaMemcpy(&used, static_cast<char*>(dev) + 16, 8, cudaMemcpyDeviceToHost));
    std::vector<unsigned char> b(std::min<size_t>(capacity, 64 + used));
    CK(cudaMemcpy(b.data(), dev, b.size(), cudaMemcpyDeviceToHost));
    return b;
  }
};

void WriteFile(const std::string& path, const std::vector<unsigned char>& b) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(b.data(), 1, b.size(), f) != b.size()) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
  std::fclose(f);
}

std::string Join(const std::vector<unsigned long long>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

const char* KindName(int kind) { return kind == 0 ? "pipelined" : "warpspec"; }
const char* ModeName(int mode) { return mode == 0 ? "circular256" : mode == 1 ? "flush64" : "keepall1024"; }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: region_overhead OUTDIR [--rounds R]\n");
    return 2;
  }
  const std::string out = argv[1];
  int rounds = 10;
  for (int i = 2; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::atoi(argv[i + 1]);
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0, driver = 0;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  CK(cudaDriverGetVersion(&driver));
  char date[64];
  {
    std::time_t t = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  }
  cudaStream_t st = 0;

  const double cycles_per_ns = MeasureCyclesPerNs();  // clock64 cycles per globaltimer ns

  const int M = 2048, N = 2048, K = 2048;
  std::vector<float> hA((size_t)M * K), hB((size_t)K * N);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (auto& x : hA) x = u(rng);
  for (auto& x : hB) x = u(rng);
  float *A, *B, *C, *R;
  CK(cudaMalloc(&A, hA.size() * 4));
  CK(cudaMalloc(&B, hB.size() * 4));
  CK(cudaMalloc(&C, (size_t)M * N * 4));
  CK(cudaMalloc(&R, (size_t)M * N * 4));
  CK(cudaMemcpy(A, hA.data(), hA.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(B, hB.data(), hB.size() * 4, cudaMemcpyHostToDevice));
  unsigned long long* loop;
  const int max_lanes = (M / 128) * (N / 128) * 3;
  CK(cudaMalloc(&loop, max_lanes * 8));
  DeviceBuffer buf(256u << 20);
  std::vector<float> hC((size_t)M * N), hR((size_t)M * N);
  size_t checked = hC.size();
  auto reference = [&](int m, int n, int k) {
    ReferenceGemm<<<dim3(n / 16, m / 16), dim3(16, 16)>>>(A, B, R, m, n, k);
    checked = (size_t)m * n;
    CK(cudaMemcpy(hR.data(), R, checked * 4, cudaMemcpyDeviceToHost));
  };
  auto check = [&]() {  // max |C - R| relative to max |R|
    CK(cudaMemcpy(hC.data(), C, checked * 4, cudaMemcpyDeviceToHost));
    double err = 0, mag = 0;
    for (size_t i = 0; i < checked; ++i) {
      err = std::max(err, (double)std::fabs(hC[i] - hR[i]));
      mag = std::max(mag, (double)std::fabs(hR[i]));
    }
    return err / mag;
  };

  // Calibration buffer of this device.
  {
    CK(cudaMemset(buf.dev, 0, 1 << 20));
    on::SetBuffer(buf.dev, 1 << 20);
    on::Calibrate(200, st);
    CK(cudaDeviceSynchronize());
    WriteFile(out + "/calibration.bin", buf.Read());
  }

  // ---- 1. Overhead.
  // build: 0 markers compiled out, 1 markers (default order), 2 markers (STRATA_REGIONS_RELAXED),
  // 3 markers (STRATA_REGIONS_WARP_SKIP)
  struct Variant {
    std::string name;
    GemmArgs g;
    int build;
    bool buffer;
    std::vector<double> us;
    double check = -1;
    int regs = 0, smem = 0, blocks = 0;
  };
  std::vector<Variant> vs;
  for (int bk : {8, 32})
    for (int kind = 0; kind < 2; ++kind)
      for (int stages = 2; stages <= 3; ++stages) {
        const std::string base = std::string(KindName(kind)) + "_s" + std::to_string(stages) + (bk == 8 ? "" : "_k32");
        GemmArgs g{A, B, C, M, N, K, kind, stages, 1, 0, bk, loop};
        vs.push_back({base + "/plain", g, 0, false});
        GemmArgs g2 = g;
        g2.level = 2;
        vs.push_back({base + "/markers_no_buffer", g2, 1, false});
        for (int level = 1; level <= 2; ++level)
          for (int mode = 0; mode <= (bk == 8 ? 1 : 0); ++mode) {
            GemmArgs gi = g;
            gi.level = level, gi.mode = mode;
            vs.push_back({base + "/level" + std::to_string(level) + "_" + ModeName(mode), gi, 1, true});
          }
        for (int level = 1; bk == 8 && level <= 2; ++level) {
          GemmArgs gi = g;
          gi.level = level;
          vs.push_back({base + "/level" + std::to_string(level) + "_circular256_relaxed", gi, 2, true});
        }
        for (int level = 1; level <= 2; ++level) {
          GemmArgs gi = g;
          gi.level = level;
          vs.push_back({base + "/level" + std::to_string(level) + "_circular256_warpskip", gi, 3, true});
        }
      }
  reference(M, N, K);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const size_t zero_bytes = 64u << 20;  // what the densest variant writes (level 2 flush, 768 lanes)
  auto describe = [](const Variant& v, int* r, int* s, int* b) {
    return v.build == 0   ? off::Describe(v.g, r, s, b)
           : v.build == 1 ? on::Describe(v.g, r, s, b)
           : v.build == 2 ? rel::Describe(v.g, r, s, b)
                          : skip::Describe(v.g, r, s, b);
  };
  auto launch = [&](const Variant& v) {
    return v.build == 0 ? off::Gemm(v.g, st) : v.build == 1 ? on::Gemm(v.g, st) : v.build == 2 ? rel::Gemm(v.g, st) : skip::Gemm(v.g, st);
  };
  for (auto& v : vs)
    if (!describe(v, &v.regs, &v.smem, &v.blocks)) {
      std::fprintf(stderr, "%s: cannot set up the kernel\n", v.name.c_str());
      return 1;
    }
  for (int r = 0; r < rounds + 1; ++r) {  // round 0 warms up
    for (auto& v : vs) {
      if (v.build == 1) on::SetBuffer(v.buffer ? buf.dev : nullptr, v.buffer ? buf.capacity : 0);
      if (v.build == 2) rel::SetBuffer(v.buffer ? buf.dev : nullptr, v.buffer ? buf.capacity : 0);
      if (v.build == 3) skip::SetBuffer(v.buffer ? buf.dev : nullptr, v.buffer ? buf.capacity : 0);
      for (int i = 0; i < 10; ++i) {
        if (v.buffer) CK(cudaMemsetAsync(buf.dev, 0, zero_bytes, st));
        CK(cudaEventRecord(e0, st));
        const bool ok = launch(v);
        if (!ok) {
          std::fprintf(stderr, "no kernel for %s\n", v.name.c_str());
          return 1;
        }
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r > 0) v.us.push_back(ms * 1000.0);
      }
      if (r == 0) {
        CK(cudaGetLastError());
        v.check = check();
        if (v.buffer) {
          const auto b = buf.Read();
          unsigned lanes = 0, lanes_dropped = 0;
          std::memcpy(&lanes, b.data() + 24, 4);
          std::memcpy(&lanes_dropped, b.data() + 28, 4);
          if (lanes_dropped != 0 || lanes == 0) {
            std::fprintf(stderr, "%s: %u lanes written, %u dropped (buffer too small?)\n", v.name.c_str(), lanes,
                         lanes_dropped);
            return 1;
          }
        }
      }
    }
  }
  std::printf("device %s, driver %d, %s, clock %.4f cycles/ns, %d rounds x 10 launches\n", prop.name, driver, date,
              cycles_per_ns, rounds);
  std::printf("%-42s %9s %8s %5s %6s %4s %9s\n", "variant", "median_us", "ratio", "regs", "smem", "blk", "max_err");
  FILE* f = std::fopen((out + "/overhead.json").c_str(), "w");
  std::fprintf(f, "{\"device\": \"%s\", \"driver\": %d, \"date\": \"%s\", \"clock_khz\": %d, \"cycles_per_ns\": %.5f,\n",
               prop.name, driver, date, clock_khz, cycles_per_ns);
  std::fprintf(f, " \"problem\": [%d, %d, %d], \"launches_per_variant\": %d, \"variants\": [", M, N, K, rounds * 10);
  double plain = 0;
  for (size_t i = 0; i < vs.size(); ++i) {
    auto& v = vs[i];
    const double med = Median(v.us);
    if (v.build == 0) plain = med;
    std::printf("%-42s %9.2f %8.4f %5d %6d %4d %9.2e\n", v.name.c_str(), med, med / plain, v.regs, v.smem, v.blocks,
                v.check);
    std::fprintf(f, "%s\n  {\"name\": \"%s\", \"median_us\": %.3f, \"ratio\": %.5f, \"min_us\": %.3f, \"regs\": %d, "
                 "\"static_smem\": %d, \"blocks_per_sm\": %d, \"max_rel_err\": %.3e}",
                 i ? "," : "", v.name.c_str(), med, med / plain, *std::min_element(v.us.begin(), v.us.end()), v.regs,
                 v.smem, v.blocks, v.check);
  }
  std::fprintf(f, "\n]}\n");
  std::fclose(f);

  // ---- 2. Accuracy: keep-all lanes, K = 1024.
  const int KA = 1024, MA = 1024, NA = 1024;  // 64 blocks: one wave at one block per SM
  reference(MA, NA, KA);
  FILE* fa = std::fopen((out + "/accuracy.json").c_str(), "w");
  std::fprintf(fa, "{\"device\": \"%s\", \"date\": \"%s\", \"cycles_per_ns\": %.5f, \"problem\": [%d, %d, %d], "
               "\"names\": \"%s\", \"cases\": [", prop.name, date, cycles_per_ns, MA, NA, KA, on::Names());
  int ci = 0;
  for (int build : {1, 3})  // default markers; warp-skip markers (level 1 only)
  for (int bk : {8, 32})
  for (int kind = 0; kind < 2; ++kind)
    for (int stages = 2; stages <= 3; ++stages)
      for (int level = 1; level <= (build == 1 ? 2 : 1); ++level) {
        GemmArgs g{A, B, C, MA, NA, KA, kind, stages, level, 2, bk, loop};
        int regs_, smem_, blocks_;
        const bool ok = build == 1 ? on::Describe(g, &regs_, &smem_, &blocks_) : skip::Describe(g, &regs_, &smem_, &blocks_);
        if (!ok || !off::Describe(g, &regs_, &smem_, &blocks_)) {
          std::fprintf(stderr, "no kernel for the accuracy case\n");
          return 1;
        }
        const int lanes = (MA / 128) * (NA / 128) * (kind == 0 ? 2 : 3);
        std::vector<unsigned long long> truth, instr(lanes), h(lanes);
        for (int rep = 0; rep < 5; ++rep) {
          off::Gemm(g, st);
          CK(cudaMemcpy(h.data(), loop, lanes * 8, cudaMemcpyDeviceToHost));
          truth.insert(truth.end(), h.begin(), h.end());
        }
        const double plain_err = check();
        CK(cudaMemset(buf.dev, 0, zero_bytes));
        if (build == 1) {
          on::SetBuffer(buf.dev, buf.capacity);
          on::Gemm(g, st);
        } else {
          skip::SetBuffer(buf.dev, buf.capacity);
          skip::Gemm(g, st);
        }
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(instr.data(), loop, lanes * 8, cudaMemcpyDeviceToHost));
        const double on_err = check();
        const std::string name = std::string("acc_") + KindName(kind) + "_s" + std::to_string(stages) + "_l" +
                                 std::to_string(level) + (bk == 8 ? "" : "_k32") + (build == 1 ? "" : "_warpskip");
        WriteFile(out + "/" + name + ".bin", buf.Read());
        std::fprintf(fa, "%s\n  {\"name\": \"%s\", \"kind\": \"%s\", \"stages\": %d, \"level\": %d, \"bk\": %d, \"lanes_per_block\": %d, "
                     "\"max_rel_err\": [%.3e, %.3e],\n   \"plain_loop_cycles\": [%s],\n   \"instrumented_loop_cycles\": [%s]}",
                     ci++ ? "," : "", name.c_str(), KindName(kind), stages, level, bk, kind == 0 ? 2 : 3, plain_err, on_err,
                     Join(truth).c_str(), Join(instr).c_str());
        std::printf("accuracy case %s written (max_rel_err plain %.2e, instrumented %.2e)\n", name.c_str(), plain_err,
                    on_err);
      }
  std::fprintf(fa, "\n]}\n");
  std::fclose(fa);

  // SASS probes are launched once so that a broken build shows here, not only in cuobjdump.
  int* probe;
  CK(cudaMalloc(&probe, 32 * 4));
  on::Probe(16, probe, st);
  off::Probe(16, probe, st);
  on::Probe(0, probe, st);
  CK(cudaDeviceSynchronize());
  CK(cudaGetLastError());
  return 0;
}
