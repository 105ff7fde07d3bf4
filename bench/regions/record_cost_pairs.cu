// Plain / instrumented pairs of the benchmark GEMMs, for calibrating the record cost per kernel
// and checking it on data it was not chosen on (bench/regions/calibration_h100.sh runs this
// twice, fresh processes, and per_kernel_cost.py calibrates on one run and replays the other).
//
//   record_cost_pairs OUTDIR M N K [--reps R] [--loop-reps L] [--no-bins]
//
// For the pipelined and the warp-specialized GEMM, 2 and 3 stages, 8- and 32-deep k-steps, and
// both marker levels (1: wait + compute per k-step; 2: plus iterations and the async load), on an
// M x N x K fp32 problem:
// - kernel time: the plain build (markers compiled out) and the instrumented one recording into
//   keep-all lanes (every record kept: what is replayed) and into circular 256-record lanes (what a
//   user records), cudaEvent per launch, R launches each (median, min, all kept), alternating
//   plain / keep-all / circular in rounds of 10 so that clock drift shifts them alike;
// - per lane, the k-loop's clock64 span (read by the leaders just outside the k-loop markers) in
//   the plain build (truth) and in the instrumented one, L launches each;
// - the region buffer of the last instrumented launch (OUTDIR/<case>.bin, unless --no-bins).
// Every result is checked against a naive GEMM. Output: OUTDIR/pairs.json (bench/regions/
// accuracy.py reads it as accuracy.json), OUTDIR/calibration.bin.
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

std::vector<unsigned char> ReadBuffer(void* dev, size_t capacity) {
  unsigned long long used = 0;  // docs/regions.md: `used` at byte 16
  CK(cudaMemcpy(&used, static_cast<char*>(dev) + 16, 8, cudaMemcpyDeviceToHost));
  std::vector<unsigned char> b(std::min<size_t>(capacity, 64 + used));
  CK(cudaMemcpy(b.data(), dev, b.size(), cudaMemcpyDeviceToHost));
  return b;
}

void WriteFile(const std::string& path, const std::vector<unsigned char>& b) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(b.data(), 1, b.size(), f) != b.size()) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
  std::fclose(f);
}

template <class T>
std::string Join(const std::vector<T>& v, const char* fmt) {
  std::string s;
  char b[64];
  for (size_t i = 0; i < v.size(); ++i) {
    std::snprintf(b, sizeof b, fmt, v[i]);
    s += (i ? "," : "") + std::string(b);
  }
  return s;
}

const char* KindName(int kind) { return kind == 0 ? "pipelined" : "warpspec"; }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: record_cost_pairs OUTDIR M N K [--reps R] [--loop-reps L] [--no-bins]\n");
    return 2;
  }
  const std::string out = argv[1];
  const int M = std::atoi(argv[2]), N = std::atoi(argv[3]), K = std::atoi(argv[4]);
  int reps = 60, loop_reps = 5;
  bool bins = true;
  for (int i = 5; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--loop-reps") == 0 && i + 1 < argc) loop_reps = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--no-bins") == 0) bins = false;
    else {
      std::fprintf(stderr, "unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  if (M <= 0 || N <= 0 || K <= 0 || M % 128 || N % 128 || K % 32 || reps < 10 || loop_reps < 1) {
    std::fprintf(stderr, "M and N must be multiples of 128, K of 32; reps >= 10, loop reps >= 1\n");
    return 2;
  }
  // Keep-all lanes hold 1024 records: level 2 writes 7 per k-step (pipelined) at 8-deep k-steps.
  if (K / 8 * 7 + 8 > 1024) {
    std::fprintf(stderr, "K = %d is too deep for keep-all lanes (1024 records); at most 1160\n", K);
    return 2;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  CK(cudaDriverGetVersion(&driver));
  char date[64];
  {
    std::time_t t = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  }
  cudaStream_t st = 0;
  const double cycles_per_ns = MeasureCyclesPerNs();

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
  const int blocks = (M / 128) * (N / 128);
  unsigned long long* loop;
  CK(cudaMalloc(&loop, (size_t)blocks * 3 * 8));
  // Keep-all lanes: a lane header and 1024 records of 8 bytes, three lanes a block at most.
  const size_t capacity = 64 + (size_t)blocks * 3 * (1024 * 8 + 256);
  void* buf;
  CK(cudaMalloc(&buf, capacity));
  ReferenceGemm<<<dim3(N / 16, M / 16), dim3(16, 16)>>>(A, B, R, M, N, K);
  std::vector<float> hR((size_t)M * N), hC((size_t)M * N);
  CK(cudaMemcpy(hR.data(), R, hR.size() * 4, cudaMemcpyDeviceToHost));
  auto check = [&]() {  // max |C - R| relative to max |R|
    CK(cudaMemcpy(hC.data(), C, hC.size() * 4, cudaMemcpyDeviceToHost));
    double err = 0, mag = 0;
    for (size_t i = 0; i < hC.size(); ++i) {
      err = std::max(err, (double)std::fabs(hC[i] - hR[i]));
      mag = std::max(mag, (double)std::fabs(hR[i]));
    }
    return err / mag;
  };

  {  // The start-up calibration of this device (the calibration kernel's cost per record).
    CK(cudaMemset(buf, 0, 1 << 20));
    on::SetBuffer(buf, 1 << 20);
    on::Calibrate(200, st);
    CK(cudaDeviceSynchronize());
    WriteFile(out + "/calibration.bin", ReadBuffer(buf, 1 << 20));
  }

  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  FILE* f = std::fopen((out + "/pairs.json").c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "cannot write %s/pairs.json\n", out.c_str());
    return 1;
  }
  std::fprintf(f, "{\"device\": \"%s\", \"driver\": %d, \"date\": \"%s\", \"cycles_per_ns\": %.5f, \"problem\": [%d, %d, %d], "
               "\"blocks\": %d, \"reps\": %d, \"loop_reps\": %d, \"names\": \"%s\", \"cases\": [",
               prop.name, driver, date, cycles_per_ns, M, N, K, blocks, reps, loop_reps, on::Names());
  std::printf("device %s, driver %d, %s, %.4f cycles/ns, problem %dx%dx%d (%d blocks)\n", prop.name, driver, date,
              cycles_per_ns, M, N, K, blocks);
  std::printf("%-28s %6s %9s %9s %9s %7s %7s %4s\n", "case", "level", "plain_us", "keepall", "circ256", "k/p", "c/p",
              "blk");
  int ci = 0;
  for (int bk : {8, 32})
    for (int kind = 0; kind < 2; ++kind)
      for (int stages = 2; stages <= 3; ++stages)
        for (int level = 1; level <= 2; ++level) {
          GemmArgs plain{A, B, C, M, N, K, kind, stages, level, 2, bk, loop};
          GemmArgs keep = plain, circ = plain;
          circ.mode = 0;
          int regs, smem, bps, regs_on, smem_on, bps_on;
          if (!off::Describe(plain, &regs, &smem, &bps) || !on::Describe(keep, &regs_on, &smem_on, &bps_on) ||
              !on::Describe(circ, &regs_on, &smem_on, &bps_on)) {
            std::fprintf(stderr, "no kernel for %s s%d l%d k%d\n", KindName(kind), stages, level, bk);
            return 1;
          }
          const int per = kind == 0 ? 2 : 3, lanes = blocks * per;
          // Kernel time: plain, keep-all, circular, alternating in rounds of 10 (round 0 warms up).
          std::vector<double> t_plain, t_keep, t_circ;
          double err[3] = {0, 0, 0};
          for (int r = 0; r <= reps / 10; ++r)
            for (int v = 0; v < 3; ++v) {
              if (v > 0) on::SetBuffer(buf, capacity);
              for (int i = 0; i < 10; ++i) {
                if (v > 0) CK(cudaMemsetAsync(buf, 0, capacity, st));
                CK(cudaEventRecord(e0, st));
                const bool ok = v == 0 ? off::Gemm(plain, st) : on::Gemm(v == 1 ? keep : circ, st);
                CK(cudaEventRecord(e1, st));
                CK(cudaEventSynchronize(e1));
                if (!ok) return 1;
                float ms;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                if (r > 0) (v == 0 ? t_plain : v == 1 ? t_keep : t_circ).push_back(ms * 1000.0);
              }
              if (r == 0) {
                CK(cudaGetLastError());
                err[v] = check();
              }
            }
          // Per-lane k-loop spans: plain, then instrumented (keep-all), loop_reps launches each.
          std::vector<unsigned long long> truth, instr, h(lanes);
          for (int rep = 0; rep < loop_reps; ++rep) {
            off::Gemm(plain, st);
            CK(cudaMemcpy(h.data(), loop, lanes * 8, cudaMemcpyDeviceToHost));
            truth.insert(truth.end(), h.begin(), h.end());
          }
          std::vector<unsigned long long> last;
          on::SetBuffer(buf, capacity);
          for (int rep = 0; rep < loop_reps; ++rep) {
            CK(cudaMemset(buf, 0, capacity));
            on::Gemm(keep, st);
            CK(cudaMemcpy(h.data(), loop, lanes * 8, cudaMemcpyDeviceToHost));
            if (rep + 1 < loop_reps) instr.insert(instr.end(), h.begin(), h.end());
            else last = h;
          }
          const auto b = ReadBuffer(buf, capacity);
          unsigned lanes_written = 0, lanes_dropped = 0;
          std::memcpy(&lanes_written, b.data() + 24, 4);
          std::memcpy(&lanes_dropped, b.data() + 28, 4);
          if (lanes_dropped != 0 || lanes_written == 0) {
            std::fprintf(stderr, "%u lanes written, %u dropped\n", lanes_written, lanes_dropped);
            return 1;
          }
          // The saved buffer's launch first (bench/regions/accuracy.py pairs it with the buffer).
          last.insert(last.end(), instr.begin(), instr.end());
          const std::string name = std::string("acc_") + KindName(kind) + "_s" + std::to_string(stages) + "_l" +
                                   std::to_string(level) + (bk == 8 ? "" : "_k32");
          if (bins) WriteFile(out + "/" + name + ".bin", b);
          std::fprintf(f, "%s\n  {\"name\": \"%s\", \"kind\": \"%s\", \"stages\": %d, \"level\": %d, \"bk\": %d, "
                       "\"k_steps\": %d, \"lanes_per_block\": %d, \"regs\": [%d, %d], \"smem\": [%d, %d], "
                       "\"blocks_per_sm\": [%d, %d], \"max_rel_err\": [%.3e, %.3e, %.3e],\n"
                       "   \"plain_us\": [%s],\n   \"keepall_us\": [%s],\n   \"circular_us\": [%s],\n"
                       "   \"plain_loop_cycles\": [%s],\n   \"instrumented_loop_cycles\": [%s]}",
                       ci++ ? "," : "", name.c_str(), KindName(kind), stages, level, bk, K / bk, per, regs, regs_on, smem,
                       smem_on, bps, bps_on, err[0], err[1], err[2], Join(t_plain, "%.3f").c_str(),
                       Join(t_keep, "%.3f").c_str(), Join(t_circ, "%.3f").c_str(), Join(truth, "%llu").c_str(),
                       Join(last, "%llu").c_str());
          const double mp = Median(t_plain), mk = Median(t_keep), mc = Median(t_circ);
          std::printf("%-28s %6d %9.2f %9.2f %9.2f %7.4f %7.4f %4d  err %.1e %.1e %.1e\n", name.c_str(), level, mp, mk,
                      mc, mk / mp, mc / mp, bps, err[0], err[1], err[2]);
          std::fflush(stdout);
        }
  std::fprintf(f, "\n]}\n");
  std::fclose(f);
  return 0;
}
