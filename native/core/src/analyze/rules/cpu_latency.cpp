// cpu-latency: the GPU waits on the CPU. (1) Python lines that launch GPU work but whose CPU
// time exceeds their GPU time by `ratio` (the GPU idles while Python and the framework prepare
// the launches); (2) the whole run: the GPU busy under gpu_busy_max of the run while the CPU is
// busy (data loading, Python overhead). Needs CPU samples and GPU time in one profile.
// (3) more threads than cores on one job (a data loader's load function): the runtime counts
// each sampled thread once at its role (metric `threads`, profiler_runtime's thread_roles);
// CPU-only profiles too.
#include <cstdio>
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
    std::string how = cx.uses_torch_dataloader() ? "DataLoader num_workers, " : "";
    if (cx.uses_torch()) how += "torch.set_num_threads, ";
    std::string msg = "`" + Where(f.name, f.file, f.line) + "` runs on " + std::to_string(int(j.threads)) +
                      " threads but the process has " + std::to_string(int(cores)) +
                      " cores: the threads compete for the cores (and the GIL) instead of loading faster. Use at "
                      "most " + std::to_string(want < 1 ? 1 : want) +
                      " (e.g. " + how + "ThreadPoolExecutor(max_workers=...)), or make each item cheaper.";
    Finding fd = cx.Make("cpu-latency", "warning", j.node, std::move(msg));
    fd.cause = "threads";
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
  if (!gpu || !cpu || cx.Total(*gpu) <= 0 || cx.Total(*cpu) <= 0) return;
  const std::string cpu_name = cx.metrics()[*cpu].name;
  const size_t n = cx.size();
  // Imports, model construction, compilation and warm-up are one-time CPU work the GPU does not
  // wait for in the steady state: the judged metrics leave them out (run_phases.h).
  std::string overhead_advice;
  if (cx.uses_torch())
    overhead_advice = "capture the step with CUDA graphs (torch.compile(mode=\"reduce-overhead\") or "
                      "torch.cuda.graphs), batch small operations into larger tensor operations, and move Python-side "
                      "work out of the loop";
  else if (cx.uses_jax())
    overhead_advice = "jit the whole step (one compiled call per iteration, lax.scan for inner loops) and keep "
                      "Python-side work out of the loop";
  else
    overhead_advice = "launch fewer, larger kernels, capture the launch sequence in a CUDA graph, and move "
                      "host-side work out of the loop or onto another thread";
  // Shares are of the main thread's CPU time: library threads that spin in the background (a BLAS
  // pool) do not make the user's lines look lighter.
  const size_t main = cx.main_thread();
  // The profiler's own time (launch callbacks, operator contexts, samples) is not the program's.
  const double main_cpu = main ? cx.Incl(main, *cpu) - cx.ProfilerNs(main, *cpu) : cx.Total(*cpu) - cx.ProfilerNs(0, *cpu);
  if (main_cpu <= 0) return;
  // Time under a DataLoader's next-batch call is loading, not driving the GPU: the data-loader
  // rule judges it, so a line's CPU time here leaves it out (per node: the loader time below it).
  std::vector<double> loading(cx.uses_torch_dataloader() ? n : 0, 0.0);
  for (size_t v = loading.size(); v-- > 1;) {
    if (cx.loader_frame(v) == LoaderFrame::kNext) loading[v] = cx.Incl(v, *cpu);
    loading[size_t(cx.parent(v))] += loading[v];
  }
  // (1) deepest user lines with the imbalance.
  std::vector<char> sub(n, 0);
  std::vector<std::pair<std::string, uint32_t>> flagged;  // (1)'s lines: (2) does not repeat them
  for (size_t v = n; v-- > 1;) {
    if (cx.kind(v) != Kind::kPython || !cx.IsUserFrame(v) || sub[v]) {  // the user's own lines
      if (sub[v]) sub[size_t(cx.parent(v))] = 1;
      continue;
    }
    const FrameInfo& f = cx.frame(v);
    double c = cx.Incl(v, *cpu) - cx.ProfilerNs(v, *cpu) - (loading.empty() ? 0.0 : loading[v]), g = cx.Incl(v, *gpu);
    bool hit = g > 0 && c >= p["min_share"] * main_cpu && c >= p["ratio"] * g && c >= cx.min_cpu_ns();
    if (hit) sub[size_t(cx.parent(v))] = 1;
    if (!hit) continue;
    std::string msg = "`" + Where(f.name, f.file, f.line) + "` uses " + Duration(c) + " of " + cpu_name + " (" +
                      Percent(c / main_cpu) + " of the main thread's) to drive " + Duration(g) +
                      " of GPU work: the GPU waits for the CPU here. To keep it busy, " + overhead_advice + ".";
    Finding fd = cx.Make("cpu-latency", "warning", v, std::move(msg));
    fd.cause = "line";
    flagged.push_back({fd.location.file, fd.location.line});
    fd.evidence = {{cpu_name, c, "ns"}, {"gpu_time", g, "ns"}, {"cpu_gpu_ratio", c / g, "ratio"}};
    out.push_back(std::move(fd));
  }
  // (2) the GPU mostly idle over the steady state while the main thread is busy (the steady
  // state's wall time is an estimate: AnalysisContext::judged_wall_ns).
  const double judged_ns = cx.judged_wall_ns();
  if (judged_ns <= 0 || !main) return;
  const double gpu_busy = cx.gpu_busy(), cpu_busy = main_cpu / judged_ns;
  if (gpu_busy >= p["gpu_busy_max"] || cpu_busy < 0.5 || main_cpu < cx.min_cpu_ns()) return;
  if (!flagged.empty()) return;  // the lines say it already, where to change it
  // Point at the deepest user line on the main thread's heaviest path that keeps at least a third
  // of its CPU time.
  int32_t line = -1;
  for (size_t v = main;;) {
    if (cx.IsUserFrame(v)) line = int32_t(v);
    size_t best = 0;
    double w = -1;
    for (size_t c = v + 1; c < cx.subtree_end(v); c = cx.subtree_end(c))
      if (cx.Incl(c, *cpu) > w) { w = cx.Incl(c, *cpu); best = c; }
    if (!best || w < main_cpu / 3) break;
    v = best;
  }
  if (line < 0) {  // no user line keeps a third: the user line with the most CPU time
    double best = 0;
    for (size_t c = main; c < cx.subtree_end(main); ++c)
      if (cx.IsUserFrame(c) && cx.Incl(c, *cpu) > best) { best = cx.Incl(c, *cpu); line = int32_t(c); }
  }
  for (const auto& [file, l] : flagged)
    if (line > 0 && cx.frame(size_t(line)).file == file && cx.frame(size_t(line)).line == l) return;
  std::string advice;
  const bool drives_gpu = line > 0 && cx.Incl(size_t(line), *gpu) > 0;
  if (line > 0 && !drives_gpu)
    advice = "The heaviest CPU work, under `" + Where(cx.frame(size_t(line)).name, cx.frame(size_t(line)).file,
                                                      cx.frame(size_t(line)).line) +
             "`, drives no GPU work: do it on the GPU" +
             (cx.uses_torch() ? std::string(" (create tensors with device=\"cuda\")") : std::string()) +
             ", do it once outside the timed loop, or overlap it with GPU work";
  else if (cx.uses_torch_dataloader())
    advice = "Overlap data loading with GPU work (more DataLoader workers, pin_memory=True, non_blocking copies) and "
             "cut Python overhead on the heaviest CPU path";
  else
    advice = "Cut the CPU work on the heaviest path: " + overhead_advice;
  // Warm-up loops told apart by their cost (AnalysisContext::warmup_sites): named, so the user
  // sees which loop was judged.
  std::string warmup;
  for (const auto& w : cx.warmup_sites()) {
    const FrameInfo& e = cx.frame(w.node);
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.1f", w.cost_ratio);
    warmup += (warmup.empty() ? ", and " : ", ") + std::string("line ") + std::to_string(e.line) + " (" + ratio +
              "x line " + std::to_string(cx.frame(w.steady).line) + "'s cost per GPU launch: one-time work)";
  }
  std::string msg = "In the steady state the GPU was busy about " + Percent(gpu_busy) + " of the time (" +
                    Duration(cx.Total(*gpu)) + " of about " + Duration(judged_ns) + ", imports, model construction, "
                    "compilation and warm-up left out" + warmup + ") while the main thread's CPU was busy " +
                    Percent(cpu_busy) + ": the program is CPU-bound. " + advice + ".";
  Finding fd = cx.Make("cpu-latency", "warning", line > 0 ? size_t(line) : 0, std::move(msg));
  if (line <= 0) fd.node = -1, fd.path.clear();
  fd.cause = "run";
  fd.evidence = {{"gpu_busy_share", gpu_busy, "share"}, {"cpu_busy_share", cpu_busy, "share"},
                 {"judged_duration", judged_ns, "ns"}, {"profiler_time_left_out", cx.ProfilerNs(main, *cpu), "ns"}};
  out.push_back(std::move(fd));
}
}  // namespace strata::core::detail
