// Benchmark (not a test): every analyzer rule over a synthetic 1M-node profile shaped like a
// training run (Python lines ▸ operators ▸ native ▸ CUDA API ▸ kernels, CPU and GPU metrics).
// Prints a Markdown table; --record FILE appends it. Goal (issue 5): all rules < 200 ms.
// Usage: build/bin/strata_analyze_bench [--nodes 1000000] [--repeat 5] [--record docs/benchmarks.md]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <ctime>
#include <unistd.h>
#include <vector>

#include "strata/core/analyze.h"
#include "bench_stamp.h"
#include "strata/core/api.h"
#include "strata/format/writer.h"

namespace fmt = strata::format;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<unsigned char> MakeProfile(size_t target_nodes) {
  fmt::ProfileWriter w;
  uint32_t cpu = w.Metric("cpu_time", "ns"), gpu = w.Metric("gpu_time", "ns"), api = w.Metric("api_time", "ns");
  w.Meta("duration_ns", "60000000000");
  size_t nodes = 1;
  uint64_t seed = 42;
  auto rnd = [&](uint64_t n) { seed = seed * 6364136223846793005ull + 1442695040888963407ull; return (seed >> 33) % n; };
  auto add = [&](uint32_t node, uint32_t m, double v, int count) {
    fmt::MetricStats s;
    for (int i = 0; i < count; ++i) s.Add(v * (0.5 + double(rnd(100)) / 100.0));
    w.AddStats(node, m, s);
  };
  uint32_t mod = w.Module("/usr/lib/libtorch_cuda.so", "", 0);
  for (int file = 0; nodes < target_nodes; ++file) {
    std::string path = "/work/model/layer" + std::to_string(file) + ".py";
    uint32_t fn = w.Child(0, w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "forward" + std::to_string(file), path, 10));
    ++nodes;
    for (int line = 0; line < 50 && nodes < target_nodes; ++line) {
      uint32_t ln = w.Child(fn, w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "block", path, uint32_t(20 + line)));
      add(ln, cpu, 1e5, 3);
      ++nodes;
      for (int op = 0; op < 4 && nodes < target_nodes; ++op) {
        std::string name = op == 3 ? "AddmmBackward0" : "aten::op" + std::to_string(rnd(40));
        uint32_t o = w.Child(ln, w.Frame(fmt::FrameKind::kOperator, fmt::kNone, 0, name, "", 0));
        ++nodes;
        for (int nat = 0; nat < 3 && nodes < target_nodes; ++nat) {
          uint32_t nv = w.Child(o, w.Frame(fmt::FrameKind::kNative, mod, 0x1000 + rnd(1 << 20), "at::native::impl" + std::to_string(nat), "", 0));
          add(nv, cpu, 2e4, 2);
          uint32_t a = w.Child(nv, w.Frame(fmt::FrameKind::kGpuApi, fmt::kNone, 0, "cudaLaunchKernel", "", 0));
          add(a, api, 4e3, 5);
          uint32_t k = w.Child(a, w.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "kernel_" + std::to_string(rnd(500)), "", 0));
          add(k, gpu, 1e4, 5);
          nodes += 3;
        }
      }
    }
  }
  return w.Serialize();
}

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }
// This thread's CPU time: on a shared machine the wall time is inflated by the load, this is not.
double CpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  size_t target = 1000000;
  int repeat = 5;
  const char* record = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--nodes") && i + 1 < argc) target = size_t(std::atoll(argv[++i]));
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--record") && i + 1 < argc) record = argv[++i];
    else { std::fprintf(stderr, "usage: %s [--nodes N] [--repeat R] [--record FILE]\n", argv[0]); return 2; }
  }
  auto bytes = MakeProfile(target);
  auto profile = strata::core::Profile::FromBytes(bytes);
  // A user rule runs with the built-ins (the issue counts all rules).
  std::string rules = "/tmp/strata_bench.rules";
  std::ofstream(rules) << "[rule slow-op]\npath = python:block > operator:aten::* > native:*\nwhen = self_share(cpu_time) > 0.01% and count(cpu_time) >= 2\nmessage = {name}\n";
  strata::core::AnalyzeOptions options;
  options.rule_files = {rules};
  std::vector<double> view_ms, analyze_ms, view_cpu, analyze_cpu;
  size_t findings = 0;
  std::vector<std::pair<std::string, double>> stages;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = Clock::now();
    const double c0 = CpuMs();
    auto v = profile->BuildView(strata::core::ViewKind::kTopDown, strata::core::ViewOptions{0, false});
    auto t1 = Clock::now();
    const double c1 = CpuMs();
    auto result = strata::core::Analyze(*profile, std::move(v), options);
    auto t2 = Clock::now();
    const double c2 = CpuMs();
    view_ms.push_back(Ms(t1 - t0));
    analyze_ms.push_back(Ms(t2 - t1));
    view_cpu.push_back(c1 - c0);
    analyze_cpu.push_back(c2 - c1);
    findings = result.findings.size();
    stages = result.timings_ms;
    for (const auto& e : result.errors) std::fprintf(stderr, "rule error: %s\n", e.c_str());
  }
  for (auto* v : {&view_ms, &analyze_ms, &view_cpu, &analyze_cpu}) std::sort(v->begin(), v->end());
  double view = view_ms[view_ms.size() / 2], all = analyze_ms[analyze_ms.size() / 2];
  double view_c = view_cpu[view_cpu.size() / 2], all_c = analyze_cpu[analyze_cpu.size() / 2];
  char text[2048];
  std::snprintf(text, sizeof text,
                "### Analyzers over a %zu-node profile — %s\n\n"
                "Command: `build/bin/strata_analyze_bench --nodes %zu --repeat %d` (median of %d, one thread). "
                "Analyze = every built-in rule plus one user rule over the top-down view (built once for the viewer; its time is the first column). "
                "Goal: < 200 ms.\n\n"
                "| nodes | top-down view ms (cpu) | all rules ms (cpu) | findings |\n| --- | --- | --- | --- |\n"
                "| %zu | %.1f (%.1f) | %.1f (%.1f) | %zu |\n",
                profile->node_count(), BenchStamp().c_str(), target, repeat, repeat, profile->node_count(), view, view_c,
                all, all_c, findings);
  std::string detail = "\nStages of the last run (ms):";
  for (const auto& [name, ms] : stages) {
    char b[96];
    std::snprintf(b, sizeof b, " %s %.1f;", name.c_str(), ms);
    detail += b;
  }
  detail += "\n";
  std::strncat(text, detail.c_str(), sizeof text - std::strlen(text) - 1);
  std::fputs(text, stdout);
  if (record) {
    std::ofstream out(record, std::ios::app);
    out << "\n" << text;
  }
  return 0;
}
