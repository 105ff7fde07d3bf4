// Writes a seed corpus of valid profiles (ProfileWriter) into the directory given.
#include <cstdio>
#include <string>

#include "strata/format/writer.h"

namespace fmt = strata::format;

namespace {
fmt::MetricStats Stats(std::initializer_list<double> values) {
  fmt::MetricStats s;
  for (double v : values) s.Add(v);
  return s;
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
  return ok ? 0 : 1;
}
