// Host harness for the in-kernel region examples (issue 7): allocates the global buffer, sets
// the module's `strata_region_buffer` with cudaMemcpyToSymbol (what the runtime will do with
// cuModuleGetGlobal), launches, copies the buffer back and writes the raw bytes (header + used
// arena) and a JSON sidecar per case into OUTDIR; then times the kernels with and without
// markers (cudaEvent, median of many launches) into OUTDIR/bench.json.
//
//   regions_harness OUTDIR [--bench-only|--no-bench]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "cuda_harness.h"
#include "kernels_api.h"

namespace {

std::string g_out;
std::string g_device;
int g_sms = 0, g_clock_khz = 0, g_driver = 0, g_runtime = 0;
double g_cycles_per_ns = 0, g_cycles_per_record = 0;
std::string g_date;

std::string JsonEscape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

struct Buffer {
  void* dev = nullptr;
  size_t capacity = 0;
  void Alloc(size_t cap) {
    capacity = cap;
    CK(cudaMalloc(&dev, cap));
    CK(cudaMemset(dev, 0, cap));
  }
  void Zero() { CK(cudaMemset(dev, 0, capacity)); }
  // Header + the used part of the arena (clipped to the capacity).
  std::vector<uint8_t> Read() const {
    std::vector<uint8_t> h(std::min<size_t>(64, capacity));
    CK(cudaMemcpy(h.data(), dev, h.size(), cudaMemcpyDeviceToHost));
    size_t n = h.size();
    if (capacity >= 64) {
      uint64_t used;
      std::memcpy(&used, h.data() + 16, 8);
      n = std::min<size_t>(capacity, 64 + used);
    }
    std::vector<uint8_t> b(n);
    CK(cudaMemcpy(b.data(), dev, n, cudaMemcpyDeviceToHost));
    return b;
  }
  ~Buffer() {
    if (dev) cudaFree(dev);
  }
};

void WriteCase(const std::string& name, const std::vector<uint8_t>& bytes, const std::string& kernel,
               const std::string& lanes, int capacity_records, const char* mode, size_t buffer_bytes,
               const std::string& extra) {
  const std::string bin = g_out + "/" + name + ".bin";
  FILE* f = std::fopen(bin.c_str(), "wb");
  if (!bytes.empty()) std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  const std::string js = g_out + "/" + name + ".json";
  f = std::fopen(js.c_str(), "w");
  std::fprintf(f,
               "{\n  \"case\": \"%s\",\n  \"kernel\": \"%s\",\n  \"device\": \"%s\",\n  \"sm_count\": %d,\n"
               "  \"clock_rate_khz\": %d,\n  \"driver_version\": %d,\n  \"runtime_version\": %d,\n"
               "  \"date\": \"%s\",\n  \"lanes\": \"%s\",\n  \"capacity_records\": %d,\n  \"mode\": \"%s\",\n"
               "  \"buffer_bytes\": %zu,\n  \"file_bytes\": %zu,\n  \"names\": \"%s\",\n"
               "  \"cycles_per_record\": %.4f,\n  \"clock_cycles_per_ns\": %.6f%s\n}\n",
               name.c_str(), kernel.c_str(), JsonEscape(g_device).c_str(), g_sms, g_clock_khz, g_driver,
               g_runtime, g_date.c_str(), lanes.c_str(), capacity_records, mode, buffer_bytes, bytes.size(),
               JsonEscape(on::Names()).c_str(), g_cycles_per_record, g_cycles_per_ns, extra.c_str());
  std::fclose(f);
  std::printf("case %-22s %8zu bytes  %s\n", name.c_str(), bytes.size(), extra.c_str());
}

std::vector<float> Random(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

std::vector<float> RefGemm(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K) {
  std::vector<float> C((size_t)M * N, 0.f);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      const float a = A[(size_t)i * K + k];
      const float* b = &B[(size_t)k * N];
      float* c = &C[(size_t)i * N];
      for (int j = 0; j < N; ++j) c[j] += a * b[j];
    }
  return C;
}

double MaxErr(const std::vector<float>& a, const float* dev, size_t n) {
  std::vector<float> b(n);
  CK(cudaMemcpy(b.data(), dev, n * 4, cudaMemcpyDeviceToHost));
  double m = 0;
  for (size_t i = 0; i < n; ++i) m = std::max(m, (double)std::fabs(a[i] - b[i]));
  return m;
}

// Cycles per record from a calibration buffer (strata::regions::CalibrationKernel): the three
// passes are regions 1, 2, 3 on the one lane; c = (D2 - D1) / 2n, back to back = (D3 - c) / 2n.
bool CalibrationCycles(const std::vector<uint8_t>& b, uint32_t n, double* c, double* b2b) {
  if (b.size() < 64 + 96) return false;
  uint32_t cnt;
  std::memcpy(&cnt, b.data() + 64 + 52, 4);
  if (b.size() < 64 + 96 + 8ull * cnt) return false;
  uint32_t s[4] = {0}, e[4] = {0};
  for (uint32_t i = 0; i < cnt; ++i) {
    uint32_t tag, clk;
    std::memcpy(&tag, b.data() + 64 + 96 + 8ull * i, 4);
    std::memcpy(&clk, b.data() + 64 + 96 + 8ull * i + 4, 4);
    const uint32_t kind = tag >> 28, id = (tag >> 16) & 0xFFF;
    if (id >= 1 && id <= 3) (kind == 0 ? s : e)[id] = clk;
  }
  const double d1 = uint32_t(e[1] - s[1]), d2 = uint32_t(e[2] - s[2]), d3 = uint32_t(e[3] - s[3]);
  *c = (d2 - d1) / (2.0 * n);
  *b2b = (d3 - *c) / (2.0 * n);
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: regions_harness OUTDIR [--no-bench|--bench-only]\n");
    return 2;
  }
  g_out = argv[1];
  const bool bench = !(argc > 2 && std::strcmp(argv[2], "--no-bench") == 0);
  const bool cases = !(argc > 2 && std::strcmp(argv[2], "--bench-only") == 0);
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  g_device = prop.name;
  g_sms = prop.multiProcessorCount;
  CK(cudaDeviceGetAttribute(&g_clock_khz, cudaDevAttrClockRate, 0));
  CK(cudaDriverGetVersion(&g_driver));
  CK(cudaRuntimeGetVersion(&g_runtime));
  {
    char d[64];
    std::time_t t = std::time(nullptr);
    std::strftime(d, sizeof d, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    g_date = d;
  }
  cudaStream_t st = 0;

  g_cycles_per_ns = MeasureCyclesPerNs();  // clock64 cycles per globaltimer ns
  // Calibration: cycles per record (median of 7 runs); the first buffer is kept as a fixture.
  const uint32_t kCalN = 200;
  std::vector<double> cal_runs, b2b_runs;
  std::vector<uint8_t> cal_first;
  {
    Buffer b;
    b.Alloc(64 + 96 + 8 * 1024);
    on::SetBuffer(b.dev, b.capacity);
    for (int i = 0; i < 7; ++i) {
      b.Zero();
      on::Calibrate(kCalN, st);
      CK(cudaDeviceSynchronize());
      auto bytes = b.Read();
      if (i == 0) cal_first = bytes;
      double c = 0, b2b = 0;
      CalibrationCycles(bytes, kCalN, &c, &b2b);
      cal_runs.push_back(c);
      b2b_runs.push_back(b2b);
    }
    g_cycles_per_record = Median(cal_runs);
  }
  std::printf("device %s, %d SMs, clock %d kHz, %.4f cycles/ns, %.2f cycles/record\n", g_device.c_str(),
              g_sms, g_clock_khz, g_cycles_per_ns, g_cycles_per_record);
  if (cases) {
    std::string runs = ", \"calibration_n\": 200, \"calibration_runs\": [";
    for (size_t i = 0; i < cal_runs.size(); ++i) runs += (i ? ", " : "") + std::to_string(cal_runs[i]);
    runs += "], \"back_to_back_runs\": [";
    for (size_t i = 0; i < b2b_runs.size(); ++i) runs += (i ? ", " : "") + std::to_string(b2b_runs[i]);
    runs += "]";
    WriteCase("calibration", cal_first, "strata::regions::CalibrationKernel<Config<1024>>, n = 200",
              "block", 1024, "circular", 64 + 96 + 8 * 1024, runs);

    const int M = 512, N = 512, K = 512;
    auto A = Random((size_t)M * K, 1), B = Random((size_t)K * N, 2);
    auto Cref = RefGemm(A, B, M, N, K);
    float *dA, *dB, *dC;
    CK(cudaMalloc(&dA, A.size() * 4));
    CK(cudaMalloc(&dB, B.size() * 4));
    CK(cudaMalloc(&dC, Cref.size() * 4));
    CK(cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
    Buffer big;
    big.Alloc(8u << 20);
    auto gemm_case = [&](const char* name, int variant, size_t cap, const char* mode, int recs) {
      big.Zero();
      CK(cudaMemset(dC, 0, Cref.size() * 4));
      on::SetBuffer(big.dev, cap);
      on::Gemm(dA, dB, dC, M, N, K, variant, st);
      CK(cudaDeviceSynchronize());
      Buffer view;  // read back only `cap` bytes
      view.dev = big.dev;
      view.capacity = cap;
      auto bytes = view.Read();
      view.dev = nullptr;
      const double err = MaxErr(Cref, dC, Cref.size());
      char extra[256];
      std::snprintf(extra, sizeof extra,
                    ", \"grid\": [8, 8, 1], \"block\": [256, 1, 1], \"problem\": [512, 512, 512], "
                    "\"max_abs_error\": %.3g, \"result_ok\": %s",
                    err, err < 1e-3 ? "true" : "false");
      WriteCase(name, bytes, "GemmKernel (tiled SGEMM, 2-stage cp.async)", "warp-group", recs, mode, cap, extra);
    };
    gemm_case("gemm_nested_loop", 0, 8u << 20, "circular", 512);
    gemm_case("gemm_overflow", 1, 8u << 20, "circular", 32);
    gemm_case("gemm_flush", 2, 8u << 20, "flush", 32);
    gemm_case("gemm_too_small", 0, 8192, "circular", 512);
    // Markers compiled in, no buffer: the kernel must compute the same result and write nothing.
    {
      big.Zero();
      CK(cudaMemset(dC, 0, Cref.size() * 4));
      on::SetBuffer(nullptr, 0);
      on::Gemm(dA, dB, dC, M, N, K, 0, st);
      CK(cudaDeviceSynchronize());
      const double err = MaxErr(Cref, dC, Cref.size());
      std::vector<uint8_t> all(8u << 20);
      CK(cudaMemcpy(all.data(), big.dev, all.size(), cudaMemcpyDeviceToHost));
      const bool untouched = std::all_of(all.begin(), all.end(), [](uint8_t x) { return x == 0; });
      std::vector<uint8_t> head(all.begin(), all.begin() + 4096);
      char extra[256];
      std::snprintf(extra, sizeof extra,
                    ", \"max_abs_error\": %.3g, \"result_ok\": %s, \"buffer_untouched\": %s, "
                    "\"note\": \"descriptor ptr=0; the file is the first 4096 bytes of the zeroed buffer\"",
                    err, err < 1e-3 ? "true" : "false", untouched ? "true" : "false");
      WriteCase("gemm_no_buffer", head, "GemmKernel without a buffer", "warp-group", 512, "circular", 0, extra);
    }
    // Warp-specialized producer/consumer.
    {
      big.Zero();
      CK(cudaMemset(dC, 0, Cref.size() * 4));
      on::SetBuffer(big.dev, big.capacity);
      on::WarpSpec(dA, dB, dC, M, N, K, st);
      CK(cudaDeviceSynchronize());
      const double err = MaxErr(Cref, dC, Cref.size());
      char extra[200];
      std::snprintf(extra, sizeof extra, ", \"grid\": [8, 8, 1], \"block\": [256, 1, 1], \"max_abs_error\": %.3g, \"result_ok\": %s",
                    err, err < 1e-3 ? "true" : "false");
      WriteCase("warpspec", big.Read(), "WarpSpecKernel (producer wg0 / consumer wg1)", "warp-group", 512,
                "circular", big.capacity, extra);
    }
    // Custom lanes of 48 threads.
    {
      const int n = 1 << 16, blocks = 8;
      auto x = Random(n, 3);
      float *dx, *dy, *ds;
      CK(cudaMalloc(&dx, n * 4));
      CK(cudaMalloc(&dy, n * 4));
      CK(cudaMalloc(&ds, blocks * 4 * 4));
      CK(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
      big.Zero();
      on::SetBuffer(big.dev, big.capacity);
      on::Simple(dx, dy, ds, n, blocks, st);
      CK(cudaDeviceSynchronize());
      std::vector<float> s(blocks * 4);
      CK(cudaMemcpy(s.data(), ds, s.size() * 4, cudaMemcpyDeviceToHost));
      double tot = 0, ref = 0;
      for (float v : s) tot += v;
      for (float v : x) ref += v * 2.0 + 1.0;
      char extra[200];
      std::snprintf(extra, sizeof extra, ", \"grid\": [%d, 1, 1], \"block\": [192, 1, 1], \"sum\": %.4f, \"sum_ref\": %.4f, \"result_ok\": %s",
                    blocks, tot, ref, std::fabs(tot - ref) < 1e-2 * std::max(1.0, std::fabs(ref)) ? "true" : "false");
      WriteCase("custom_lanes", big.Read(), "SimpleKernel (4 lanes of 48 threads)", "custom", 64, "circular",
                big.capacity, extra);
      cudaFree(dx);
      cudaFree(dy);
      cudaFree(ds);
    }
    // Accuracy: replayed region time against the same code without markers.
    auto accuracy = [&](const char* name, int work) {
      const int blocks = 4, reps = 32;
      unsigned long long* dout;
      float* sink;
      CK(cudaMalloc(&dout, blocks * 8));
      CK(cudaMalloc(&sink, blocks * 32 * 4));
      std::vector<unsigned long long> h(blocks);
      std::vector<double> plain;
      for (int i = 0; i < 5; ++i) {
        off::Spin(dout, sink, blocks, reps, work, st);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(h.data(), dout, blocks * 8, cudaMemcpyDeviceToHost));
        for (auto v : h) plain.push_back(double(v));
      }
      big.Zero();
      on::SetBuffer(big.dev, big.capacity);
      on::Spin(dout, sink, blocks, reps, work, st);
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h.data(), dout, blocks * 8, cudaMemcpyDeviceToHost));
      auto bytes = big.Read();
      std::string extra = ", \"reps\": 32, \"work\": " + std::to_string(work) +
                          ", \"grid\": [4, 1, 1], \"block\": [32, 1, 1], \"plain_outer_cycles\": [";
      for (size_t i = 0; i < plain.size(); ++i) extra += (i ? ", " : "") + std::to_string((long long)plain[i]);
      extra += "], \"instrumented_outer_cycles\": [";
      for (int i = 0; i < blocks; ++i) extra += (i ? ", " : "") + std::to_string(h[i]);
      extra += "]";
      WriteCase(name, bytes, "SpinKernel (outer of 32 inner regions of N dependent FMAs)", "block", 64, "circular",
                big.capacity, extra);
      cudaFree(dout);
      cudaFree(sink);
    };
    accuracy("accuracy_spin", 64);
    accuracy("accuracy_spin16", 16);
    // Bad input: unmatched start and end.
    {
      int* d;
      CK(cudaMalloc(&d, 32 * 4));
      big.Zero();
      on::SetBuffer(big.dev, big.capacity);
      on::Unbalanced(d, st);
      CK(cudaDeviceSynchronize());
      std::vector<int> h(32);
      CK(cudaMemcpy(h.data(), d, 32 * 4, cudaMemcpyDeviceToHost));
      bool ok = true;
      for (int i = 0; i < 32; ++i) ok = ok && h[i] == 3 * i;
      WriteCase("unbalanced", big.Read(), "UnbalancedKernel (start 40 never ended, end 41 never started)", "block",
                64, "circular", big.capacity, std::string(", \"result_ok\": ") + (ok ? "true" : "false"));
      cudaFree(d);
    }
    // 32-bit clock wrap: 5 iterations of 1e9 cycles (block 0), one 5e9-cycle region (block 1).
    if (std::getenv("STRATA_SKIP_WRAP") == nullptr) {
      int* d;
      CK(cudaMalloc(&d, 8));
      big.Zero();
      on::SetBuffer(big.dev, big.capacity);
      on::Wrap(1000000000ull, 5, d, st);
      CK(cudaDeviceSynchronize());
      WriteCase("clock_wrap", big.Read(), "WrapKernel (block 0: 5 x 1e9 cycles; block 1: one 5e9-cycle region)",
                "block", 64, "circular", big.capacity, ", \"step_cycles\": 1000000000, \"iters\": 5");
      cudaFree(d);
    }
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
  }

  if (bench) {
    // Overhead: 1024^3 SGEMM and warp-specialized SGEMM; median of cudaEvent times per launch.
    const int M = 1024, N = 1024, K = 1024, reps = 300, warm = 20;
    auto A = Random((size_t)M * K, 4), B = Random((size_t)K * N, 5);
    float *dA, *dB, *dC;
    CK(cudaMalloc(&dA, A.size() * 4));
    CK(cudaMalloc(&dB, B.size() * 4));
    CK(cudaMalloc(&dC, (size_t)M * N * 4));
    CK(cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
    Buffer buf;
    buf.Alloc(64u << 20);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    auto time = [&](auto launch, bool zero) {
      std::vector<double> ms;
      for (int i = 0; i < warm + reps; ++i) {
        if (zero) CK(cudaMemsetAsync(buf.dev, 0, 4u << 20, st));
        CK(cudaEventRecord(e0, st));
        launch();
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        float t;
        CK(cudaEventElapsedTime(&t, e0, e1));
        if (i >= warm) ms.push_back(t);
      }
      return Median(ms) * 1000.0;  // µs
    };
    struct Row {
      const char* name;
      double us;
    };
    std::vector<Row> rows;
    on::SetBuffer(buf.dev, buf.capacity);
    rows.push_back({"gemm_plain", time([&] { off::Gemm(dA, dB, dC, M, N, K, 0, st); }, true)});
    rows.push_back({"gemm_regions_circular512", time([&] { on::Gemm(dA, dB, dC, M, N, K, 0, st); }, true)});
    rows.push_back({"gemm_regions_flush32", time([&] { on::Gemm(dA, dB, dC, M, N, K, 2, st); }, true)});
    rows.push_back({"warpspec_plain", time([&] { off::WarpSpec(dA, dB, dC, M, N, K, st); }, true)});
    rows.push_back({"warpspec_regions_circular512", time([&] { on::WarpSpec(dA, dB, dC, M, N, K, st); }, true)});
    on::SetBuffer(nullptr, 0);
    rows.push_back({"gemm_regions_no_buffer", time([&] { on::Gemm(dA, dB, dC, M, N, K, 0, st); }, true)});
    rows.push_back({"warpspec_regions_no_buffer", time([&] { on::WarpSpec(dA, dB, dC, M, N, K, st); }, true)});
    CK(cudaDeviceSynchronize());
    FILE* f = std::fopen((g_out + "/bench.json").c_str(), "w");
    std::fprintf(f, "{\n  \"device\": \"%s\", \"date\": \"%s\", \"driver_version\": %d,\n", JsonEscape(g_device).c_str(),
                 g_date.c_str(), g_driver);
    std::fprintf(f, "  \"problem\": [1024, 1024, 1024], \"launches\": %d, \"warmup\": %d,\n", reps, warm);
    std::fprintf(f, "  \"cycles_per_record\": %.3f, \"clock_cycles_per_ns\": %.5f,\n  \"median_us\": {", g_cycles_per_record,
                 g_cycles_per_ns);
    for (size_t i = 0; i < rows.size(); ++i) {
      std::fprintf(f, "%s\n    \"%s\": %.3f", i ? "," : "", rows[i].name, rows[i].us);
      std::printf("bench %-30s %9.3f us\n", rows[i].name, rows[i].us);
    }
    std::fprintf(f, "\n  }\n}\n");
    std::fclose(f);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
  }
  CK(cudaGetLastError());
  return 0;
}
