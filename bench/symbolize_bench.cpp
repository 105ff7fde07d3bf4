// Benchmark (not a test): native-frame symbolization throughput. A profile with N native
// frames over D distinct addresses of a real shared library (DWARF through LLVM): the first
// look-up of an address goes to LLVM, every later one to the per-module cache.
// Prints a Markdown table; --record FILE appends it. Goal (issue 4): >= 1M cached look-ups/s.
// Usage: build/bin/strata_symbolize_bench LIBRARY [--frames 1000000] [--distinct 2000] [--record FILE]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <ctime>
#include <unistd.h>

#include "bench_stamp.h"
#include "strata/core/api.h"
#include "strata/format/writer.h"

namespace fmt = strata::format;
using Clock = std::chrono::steady_clock;

namespace {
double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Symbolizes every frame of a fresh profile; returns seconds.
double Resolve(const std::string& lib, size_t frames, size_t distinct, std::string* sample) {
  fmt::ProfileWriter w;
  uint32_t m = w.Metric("cpu_time", "ns");
  uint32_t mod = w.Module(lib, "", 0);
  for (size_t i = 0; i < frames; ++i) {
    // Distinct frame records (different name strings) on `distinct` addresses in .text.
    uint64_t addr = 0x1100 + (i % distinct) * 4;
    uint32_t node = w.Child(0, w.Frame(fmt::FrameKind::kNative, mod, addr, "f" + std::to_string(i), "", 0));
    fmt::MetricStats s;
    s.Add(1);
    w.AddStats(node, m, s);
  }
  auto p = strata::core::Profile::FromBytes(w.Serialize());
  auto t0 = Clock::now();
  auto v = p->BuildView(strata::core::ViewKind::kFlat, strata::core::ViewOptions{0, false});
  double s = Seconds(Clock::now() - t0);
  *sample = (*v.frame_table)[1].name;
  return s;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) { std::fprintf(stderr, "usage: %s LIBRARY [--frames N] [--distinct D] [--record FILE]\n", argv[0]); return 2; }
  std::string lib = argv[1];
  size_t frames = 1000000, distinct = 2000;
  const char* record = nullptr;
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--frames") && i + 1 < argc) frames = size_t(std::atoll(argv[++i]));
    else if (!std::strcmp(argv[i], "--distinct") && i + 1 < argc) distinct = size_t(std::atoll(argv[++i]));
    else if (!std::strcmp(argv[i], "--record") && i + 1 < argc) record = argv[++i];
  }
  std::string name;
  // All look-ups but the first per address are cache hits; subtract the all-miss run's cost.
  double cold = Resolve(lib, distinct, distinct, &name);
  double all = Resolve(lib, frames, distinct, &name);
  double per_sec = double(frames - distinct) / (all - cold > 0 ? all - cold : 1e-9);
  char text[1024];
  std::snprintf(text, sizeof text,
                "### Native symbolization throughput — %s\n\n"
                "Command: `build/bin/strata_symbolize_bench %s --frames %zu --distinct %zu` (one thread; "
                "the view build resolves every frame; cached = look-ups after an address's first).\n\n"
                "| frames | distinct addresses | first look-ups (LLVM) s | all frames s | cached look-ups / s |\n"
                "| --- | --- | --- | --- | --- |\n| %zu | %zu | %.3f | %.3f | %.2fM |\n",
                BenchStamp().c_str(), lib.c_str(), frames, distinct, frames, distinct, cold, all, per_sec / 1e6);
  std::fputs(text, stdout);
  std::printf("(e.g. frame 1 resolved to %s)\n", name.c_str());
  if (record) std::ofstream(record, std::ios::app) << "\n" << text;
  return 0;
}
