// Benchmark (not a test): the core's side of opening a profile in the viewer, without Node or a
// browser: open, the first top-down view (frames resolved once), the same view again, its part
// wider than half a pixel of a 1600-pixel graph and 128 rows deep (what the viewer sends first),
// the same part from the view in parts (BeginTopDown: before the view is whole) and the rest of
// that view (what the addon fills in the background), bottom-up.
// What the addon's worker thread spends before the webview gets its columns.
// Usage: build/bin/strata_view_bench PROFILE [--repeat 5]   (strata_synth_profile writes one)
// Each figure is wall ms with the thread's CPU ms beside it: on a shared machine the wall time
// is inflated by the load and the CPU time is what the code costs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "bench_stamp.h"
#include "strata/core/api.h"

using Clock = std::chrono::steady_clock;
namespace core = strata::core;

namespace {
double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }
double CpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}
double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
  const char* path = nullptr;
  int repeat = 5;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (!path && argv[i][0] != '-') path = argv[i];
    else { std::fprintf(stderr, "usage: %s PROFILE [--repeat R]\n", argv[0]); return 2; }
  }
  if (!path) { std::fprintf(stderr, "usage: %s PROFILE [--repeat R]\n", argv[0]); return 2; }
  core::ViewOptions options;
  options.expand = false;  // what the addon asks for: the drawn metric's values only
  options.all_metrics = false;
  options.filter = core::FrameFilter::kAuto;
  std::vector<double> open_ms, first_ms, top_ms, slice_ms, bottom_ms, open_cpu, first_cpu, top_cpu, slice_cpu, bottom_cpu;
  std::vector<double> parts_ms, parts_cpu, rest_ms, rest_cpu;
  size_t nodes = 0, top_nodes = 0, slice_nodes = 0, bottom_nodes = 0;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = Clock::now();
    const double c0 = CpuMs();
    auto profile = core::Profile::Open(path);
    auto t1 = Clock::now();
    const double c1 = CpuMs();
    core::View first = profile->BuildView(core::ViewKind::kTopDown, options);
    auto t2 = Clock::now();
    const double c2 = CpuMs();
    core::View again = profile->BuildView(core::ViewKind::kTopDown, options);
    auto t3 = Clock::now();
    const double c3 = CpuMs();
    const core::SliceBound bound{again.values[0].inclusive * 0.5 / 1600, 100000, 128, 50000};
    const core::ViewSlice slice = core::SliceView(again, 0, bound);
    auto t3s = Clock::now();
    const double c3s = CpuMs();
    auto parts = profile->BeginTopDown(options);
    const core::ViewPart part = parts->Part(0, bound);
    auto t3p = Clock::now();
    const double c3p = CpuMs();
    parts->Whole();
    auto t3w = Clock::now();
    const double c3w = CpuMs();
    parts.reset();
    if (part.slice.node != slice.node) { std::fprintf(stderr, "view_bench: the part from the parts differs\n"); return 1; }
    parts_ms.push_back(Ms(t3p - t3s));
    parts_cpu.push_back(c3p - c3s);
    rest_ms.push_back(Ms(t3w - t3p));
    rest_cpu.push_back(c3w - c3p);
    const auto t3b = Clock::now();
    const double c3b = CpuMs();
    core::View bottom = profile->BuildView(core::ViewKind::kBottomUp, options);
    auto t4 = Clock::now();
    const double c4 = CpuMs();
    open_cpu.push_back(c1 - c0);
    first_cpu.push_back(c2 - c1);
    top_cpu.push_back(c3 - c2);
    slice_cpu.push_back(c3s - c3);
    bottom_cpu.push_back(c4 - c3b);
    open_ms.push_back(Ms(t1 - t0));
    first_ms.push_back(Ms(t2 - t1));
    top_ms.push_back(Ms(t3 - t2));
    slice_ms.push_back(Ms(t3s - t3));
    bottom_ms.push_back(Ms(t4 - t3b));
    nodes = profile->node_count();
    top_nodes = again.size();
    slice_nodes = slice.node.size();
    bottom_nodes = bottom.size();
  }
  std::printf("%s — %s, median of %d\n", path, BenchStamp().c_str(), repeat);
  std::printf("| stored nodes | open ms (cpu) | first top-down ms (cpu; frames resolved) | top-down ms (cpu) | top-down nodes | first part ms (cpu) | first part nodes | in parts: first part ms (cpu) | in parts: the rest ms (cpu) | bottom-up ms (cpu) | bottom-up nodes |\n");
  std::printf("| %zu | %.1f (%.1f) | %.1f (%.1f) | %.1f (%.1f) | %zu | %.1f (%.1f) | %zu | %.1f (%.1f) | %.1f (%.1f) | %.1f (%.1f) | %zu |\n", nodes, Median(open_ms),
              Median(open_cpu), Median(first_ms), Median(first_cpu), Median(top_ms), Median(top_cpu), top_nodes,
              Median(slice_ms), Median(slice_cpu), slice_nodes, Median(parts_ms), Median(parts_cpu), Median(rest_ms),
              Median(rest_cpu), Median(bottom_ms), Median(bottom_cpu), bottom_nodes);
  return 0;
}
