// Writes a seed corpus of valid profiles (ProfileWriter) into the directory given.
#include <cstdio>
#include <cstring>
#include <string>

#include "strata/format/writer.h"

namespace fmt = strata::format;

namespace {
fmt::MetricStats Stats(std::initializer_list<double> values) {
  fmt::MetricStats s;
  for (double v : values) s.Add(v);
  return s;
}

// A small decodable region buffer (docs/regions.md "The buffer"): one lane, a region around a
// loop of two iterations.
std::string RegionBuffer() {
  std::string b(64 + 96, '\0');
  auto put32 = [&b](size_t at, uint32_t v) { std::memcpy(&b[at], &v, 4); };
  auto put64 = [&b](size_t at, uint64_t v) { std::memcpy(&b[at], &v, 8); };
  const uint32_t records[][3] = {{0, 1, 0}, {2, 2, 0}, {3, 2, 0}, {2, 2, 1}, {3, 2, 1}, {1, 1, 0}};  // kind, id, iter
  const uint32_t n = sizeof records / sizeof records[0];
  put32(0, 0x47455253u);  // "SREG"
  put32(4, 1);
  put64(8, 4096);
  put64(16, 96 + 8 * n);
  put32(24, 1);
  put32(64, 1);  // a lane entry
  put32(68, 96 + 8 * n);
  put32(64 + 48, n);
  put32(64 + 52, n);
  put32(64 + 40, 64);
  put64(64 + 64, 1000000);  // globaltimer start / clock64 start, end
  put64(64 + 72, 5000);
  put64(64 + 80, 1100000);
  put64(64 + 88, 5000 + 180000);
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t tag = (uint64_t(records[i][0]) << 28) | (uint64_t(records[i][1]) << 16) | records[i][2];
    uint64_t word = tag | (uint64_t(5000 + 1000 * (i + 1)) << 32);
    b.append(reinterpret_cast<const char*>(&word), 8);
  }
  return b;
}

bool Write(const std::string& dir, const char* name, const fmt::ProfileWriter& w) {
  std::string error;
  if (!w.WriteAtomically(dir + "/" + name, &error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return false;
  }
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) { std::fprintf(stderr, "usage: make_seeds DIR\n"); return 2; }
  std::string dir = argv[1];
  bool ok = true;
  {
    fmt::ProfileWriter w;  // root only
    ok &= Write(dir, "empty.strata", w);
  }
  {
    fmt::ProfileWriter w;  // every frame kind, meta, two metrics, recursion
    w.Meta("command", "python train.py");
    w.Meta("exit", "exited with code 0");
    uint32_t cpu = w.Metric("cpu_time", "ns");
    uint32_t bytes = w.Metric("bytes", "bytes");
    uint32_t mod = w.Module("/usr/lib/libfoo.so", "abc123", 0x7f0000000000);
    uint32_t py = w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "train", "/src/train.py", 12);
    uint32_t op = w.Frame(fmt::FrameKind::kOperator, fmt::kNone, 0, "aten::mm", "", 0);
    uint32_t nat = w.Frame(fmt::FrameKind::kNative, mod, 0x1234, "_Z3fooi", "", 0);
    uint32_t api = w.Frame(fmt::FrameKind::kGpuApi, fmt::kNone, 0, "cudaLaunchKernel", "", 0);
    uint32_t ker = w.Frame(fmt::FrameKind::kKernel, mod, 0, "gemm_kernel", "", 0);
    uint32_t pc = w.Frame(fmt::FrameKind::kPc, mod, 0x40, "", "", 0);
    uint32_t reg = w.Frame(fmt::FrameKind::kRegion, fmt::kNone, 0, "mainloop", "", 0);
    uint32_t a = w.Child(0, py);
    uint32_t b = w.Child(a, py);
    uint32_t c = w.Child(b, op);
    uint32_t d = w.Child(c, nat);
    uint32_t e = w.Child(d, api);
    uint32_t f = w.Child(e, ker);
    uint32_t g = w.Child(f, pc);
    uint32_t h = w.Child(f, reg);
    w.AddStats(a, cpu, Stats({1, 2}));
    w.AddStats(d, cpu, Stats({5, 7, 9}));
    w.AddStats(g, cpu, Stats({3}));
    w.AddStats(h, bytes, Stats({64, 128}));
    ok &= Write(dir, "kinds.strata", w);
  }
  {
    fmt::ProfileWriter w;  // a wider tree
    uint32_t cpu = w.Metric("cpu_time", "ns");
    uint32_t parent = 0;
    for (int i = 0; i < 40; ++i) {
      uint32_t fr = w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "f" + std::to_string(i % 7), "/a.py", uint32_t(i));
      uint32_t n = w.Child(i % 3 == 0 ? 0 : parent, fr);
      w.AddStats(n, cpu, Stats({double(i)}));
      parent = n;
    }
    ok &= Write(dir, "wide.strata", w);
  }
  {
    fmt::ProfileWriter w;  // pc frames with a SASS listing blob (parsed for real in the fuzzer)
    uint32_t samples = w.Metric("pc_samples", "count");
    uint32_t stall = w.Metric("stall_wait", "count");
    uint32_t mod = w.Module("cubin:1", "1", 0);
    w.Blob(mod, fmt::BlobKind::kCubin, std::string("\x7f" "ELF\x02\x01\x01", 7));
    w.Blob(mod, fmt::BlobKind::kSassListing,
           "\t.section\t.text._Z1kv,\"ax\",@progbits\n"
           "\t//## File \"/a.cu\", line 3 inlined at \"/a.cu\", line 7\n"
           "\t//## File \"/a.cu\", line 7\n"
           "        /*0000*/                   FFMA R5, R5, R2, 0.5 ;\n"
           "        /*0010*/              @!P0 BRA `(.L_x_0) ;\n");
    uint32_t k = w.Child(0, w.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "k()", "", 0));
    for (uint64_t pc : {0x0, 0x10, 0x20}) {
      uint32_t n = w.Child(k, w.Frame(fmt::FrameKind::kPc, mod, pc, "_Z1kv", "", 0));
      w.AddStats(n, samples, Stats({2}));
      w.AddStats(n, stall, Stats({2}));
    }
    ok &= Write(dir, "pc.strata", w);
  }
  {
    fmt::ProfileWriter w;  // region launches (two of one kernel, one names table) and a loop's iteration frames
    uint32_t time = w.Metric("region_time", "ns");
    uint32_t k = w.Child(0, w.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "gemm(float*)", "", 0));
    uint32_t loop = w.Child(k, w.Frame(fmt::FrameKind::kRegion, fmt::kNone, 2, "k-loop", "/src/k.cu", 40));
    uint32_t it = w.Child(loop, w.Frame(fmt::FrameKind::kRegion, fmt::kNone, 2, "k-loop", "/src/k.cu", 40,
                                        fmt::kFrameFlagIteration));
    w.AddStats(loop, time, Stats({2000}));
    w.AddStats(it, time, Stats({1000, 1000}));
    for (uint64_t corr : {5, 6}) {
      fmt::RegionLaunch l;
      l.kernel = "_Z4gemmPf";
      l.correlation_id = corr;
      l.sm_clock_khz = 1980000;
      l.cycles_per_ns = corr == 5 ? 1.8 : 0;
      l.record_cost_cycles = 14.7;
      l.names = {{1, "kernel", "", 0}, {2, "k-loop", "/src/k.cu", 40}};
      l.buffer = RegionBuffer();
      w.AddRegionLaunch(l);
    }
    ok &= Write(dir, "regions.strata", w);
  }
  return ok ? 0 : 1;
}
