// cpu-latency: the GPU waits on the CPU. (1) Python lines that launch GPU work but whose CPU
// time exceeds their GPU time by `ratio` (the GPU idles while Python and the framework prepare
// the launches); (2) the whole run: the GPU busy under gpu_busy_max of the run while the CPU is
// busy (data loading, Python overhead). Needs CPU samples and GPU time in one profile.
// (3) more threads than cores on one job (a data loader's load function): the runtime counts
// each sampled thread once at its role (metric `threads`, profiler_runtime's thread_roles);
// CPU-only profiles too.
#include <map>
#include <utility>

#include "../../value_format.h"
#include "builtin_rules.h"

namespace strata::core::detail {
namespace {

void ThreadOversubscription(const AnalysisContext& cx, const RuleParams& p, std::vector<Finding>& out) {
  auto threads = cx.metric_index("threads");
  auto cores_text = cx.meta("cpu_cores");
  if (!threads || !cores_text) return;
  double cores = 0;
  try { cores = std::stod(*cores_text); } catch (...) { return; }
  if (cores <= 0) return;
  // Threads per function (one Python function can be the role at several lines).
  struct Job { double threads = 0; size_t node = 0; double node_threads = 0; };
  std::map<std::pair<std::string, std::string>, Job> jobs;
  for (size_t v = 1; v < cx.size(); ++v) {
    double t = cx.metric(v, *threads).exclusive;
    if (t <= 0 || cx.kind(v) != Kind::kPython) continue;
    const FrameInfo& f = cx.frame(v);
    Job& j = jobs[{f.name, f.file}];
    j.threads += t;
    if (t > j.node_threads) { j.node_threads = t; j.node = v; }
  }
  for (const auto& [key, j] : jobs) {
    if (j.threads < 2 || j.threads <= p["threads_per_core"] * cores) continue;
    const FrameInfo& f = cx.frame(j.node);
    int want = int(p["threads_per_core"] * cores);
    std::string msg = "`" + Where(f.name, f.file, f.line) + "` runs on " + std::to_string(int(j.threads)) +
                      " threads but the process has " + std::to_string(int(cores)) +
                      " cores: the threads compete for the cores (and the GIL) instead of loading faster. Use at "
                      "most " + std::to_string(want < 1 ? 1 : want) +
                      " (e.g. ThreadPoolExecutor(max_workers=...), DataLoader num_workers, torch.set_num_threads), "
                      "or make each item cheaper.";
    Finding fd = cx.Make("cpu-latency", "warning", j.node, std::move(msg));
    fd.evidence = {{"threads", j.threads, "threads"}, {"cpu_cores", cores, "cores"}};
    out.push_back(std::move(fd));
  }
}

}  // namespace

void CpuLatency(const AnalysisContext& cx, const RuleParams& p, std::vector<Finding>& out) {
  ThreadOversubscription(cx, p, out);
  auto gpu = cx.metric_index(kGpuTime);
  std::optional<size_t> cpu;
  for (const char* m : kCpuMetrics)
    if (!cpu) cpu = cx.metric_index(m);
  if (!gpu || !cpu || cx.total(*gpu) <= 0 || cx.total(*cpu) <= 0) return;
  const std::string cpu_name = cx.metrics()[*cpu].name;
  const size_t n = cx.size();
  // CPU time spent importing modules (start-up: `import torch` alone is seconds) is not time
  // the GPU waits for: it is taken out of each line's CPU time.
  std::vector<double> imported(n, 0);
  for (size_t v = n; v-- > 1;) {
    const FrameInfo& f = cx.frame(v);
    if (cx.kind(v) == Kind::kPython && f.name == "_find_and_load") imported[v] = cx.metric(v, *cpu).inclusive;
    imported[size_t(cx.parent(v))] += imported[v];
  }
  // (1) deepest Python lines with the imbalance.
  std::vector<char> sub(n, 0);
  for (size_t v = n; v-- > 1;) {
    if (cx.kind(v) != Kind::kPython || !cx.IsUserFrame(v) || sub[v]) {  // the user's own lines
      if (sub[v]) sub[size_t(cx.parent(v))] = 1;
      continue;
    }
    const FrameInfo& f = cx.frame(v);
    double c = cx.metric(v, *cpu).inclusive - imported[v], g = cx.metric(v, *gpu).inclusive;
    bool hit = !sub[v] && cx.kind(v) == Kind::kPython && g > 0 && c >= p["min_share"] * cx.total(*cpu) && c >= p["ratio"] * g;
    if (hit || sub[v]) sub[size_t(cx.parent(v))] = 1;
    if (!hit) continue;
    std::string msg = "`" + Where(f.name, f.file, f.line) + "` uses " + Duration(c) + " of " + cpu_name + " (" +
                      Percent(c / cx.total(*cpu)) + ") to drive " + Duration(g) +
                      " of GPU work: the GPU waits for the CPU here. Move the Python-side work out of the loop, "
                      "batch small operations into larger tensor operations, or capture the step with CUDA graphs "
                      "(torch.compile mode=\"reduce-overhead\").";
    Finding fd = cx.Make("cpu-latency", "warning", v, std::move(msg));
    fd.evidence = {{cpu_name, c, "ns"}, {"gpu_time", g, "ns"}, {"cpu_gpu_ratio", c / g, "ratio"}};
    out.push_back(std::move(fd));
  }
  // (2) the GPU mostly idle over the run while the CPU is busy.
  auto duration = cx.meta("duration_ns");
  if (!duration) return;
  double run_ns = 0;
  try { run_ns = std::stod(*duration); } catch (...) { return; }
  if (run_ns <= 0) return;
  double gpu_busy = cx.total(*gpu) / run_ns, cpu_busy = (cx.total(*cpu) - imported[0]) / run_ns;
  if (gpu_busy >= p["gpu_busy_max"] || cpu_busy < 0.5) return;
  // Point at the heaviest CPU path: follow the heaviest child from the root down to a Python line.
  size_t v = 0;
  for (;;) {
    size_t best = 0;
    double w = -1;
    for (size_t c = v + 1; c < cx.subtree_end(v); c = cx.subtree_end(c)) {
      double own = cx.metric(c, *cpu).inclusive - imported[c];  // imports are not the loop
      if (own > w) { w = own; best = c; }
    }
    if (!best || w < 0.5 * (cx.total(*cpu) - imported[0])) break;
    v = best;
  }
  // Name the user's heaviest line on that path when the path itself has no source line.
  if (cx.Location(v).file.empty()) {
    double best = -1;
    size_t line = v;
    for (size_t c = v; c < cx.subtree_end(v); ++c) {
      if (cx.kind(c) != Kind::kPython || !cx.IsUserFrame(c)) continue;
      double own = cx.metric(c, *cpu).inclusive - imported[c];
      if (own > best) { best = own; line = c; }
    }
    v = line;
  }
  std::string msg = "The GPU was busy " + Percent(gpu_busy) + " of the run (" + Duration(cx.total(*gpu)) + " of " +
                    Duration(run_ns) + ") while the CPU was busy " + Percent(cpu_busy) + " (imports not counted)" +
                    ": the program is CPU-bound. Overlap data loading with GPU work (DataLoader workers, pinned "
                    "memory, non_blocking copies) and cut Python overhead on the heaviest CPU path.";
  Finding fd = cx.Make("cpu-latency", "warning", v, std::move(msg));
  fd.evidence = {{"gpu_busy_share", gpu_busy, "share"}, {"cpu_busy_share", cpu_busy, "share"},
                 {"duration", run_ns, "ns"}};
  out.push_back(std::move(fd));
}

}  // namespace strata::core::detail
