#include "analysis_context.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "strata/format/layout.h"
#include "sys_path_files.h"
#include "../views/frame_origin.h"


namespace strata::core::detail {

namespace {
// Native code of the interpreter or the system: never the user's, whatever source paths its
// debug info names (a pyenv-built CPython's point at /tmp/python-build.../*.c, libc's at ./csu/).
bool SystemOrInterpreterModule(const std::string& module) {
  if (module.empty()) return false;
  size_t slash = module.rfind('/');
  std::string base = slash == std::string::npos ? module : module.substr(slash + 1);
  // An interpreter built from source (pyenv) keeps its build's paths in its line tables: its
  // extension modules (lib-dynload) and installed packages' are told by where they are loaded from.
  return base.rfind("python", 0) == 0 || base.rfind("libpython", 0) == 0 || module.rfind("/lib/", 0) == 0 ||
         module.rfind("/lib64/", 0) == 0 || module.rfind("/usr/lib/", 0) == 0 || module.rfind("/usr/lib64/", 0) == 0 ||
         module.find("/lib-dynload/") != std::string::npos || module.find("-packages/") != std::string::npos;
}

// Strata's runtime and its operator plugin: the code profiler_time times.
bool StrataModule(const std::string& module) {
  size_t slash = module.rfind('/');
  std::string_view base(module);
  if (slash != std::string::npos) base.remove_prefix(slash + 1);
  return base.rfind("libstrata_runtime", 0) == 0 || base.rfind("libstrata_torch", 0) == 0;
}

// torch.compile's generated code (its wrapper and kernels) wherever its cache is
// (TORCHINDUCTOR_CACHE_DIR moves it out of /tmp/torchinductor_<user>): Inductor names each module
// <2 characters>/c<hash>.py.
bool InductorGeneratedFile(const std::string& file) {
  size_t slash = file.rfind('/');
  if (slash == std::string::npos || slash < 3 || file[slash - 3] != '/') return false;
  const size_t base = slash + 1;
  return file.size() - base > 40 && file[base] == 'c' && file.compare(file.size() - 3, 3, ".py") == 0;
}
}  // namespace

static_assert(int(Kind::kRegion) == int(format::FrameKind::kRegion) && int(Kind::kPython) == int(format::FrameKind::kPython),
              "Kind is numbered as the format's FrameKind");

AnalysisContext::AnalysisContext(const Profile& profile, View top_down, bool all_phases, std::string profile_path)
    : profile_(profile), view_(std::move(top_down)), profile_path_(std::move(profile_path)) {
  if (view_.kind != ViewKind::kTopDown) throw Error("the analyzers need the top-down view");
  const size_t n = view_.size();
  end_.assign(n, 0);
  // Preorder with parent < id: a node's subtree ends where the next node outside it starts.
  for (size_t i = n; i-- > 0;) {
    if (end_[i] == 0) end_[i] = i + 1;
    if (i > 0) {
      size_t p = size_t(view_.parent[i]);
      if (end_[i] > end_[p]) end_[p] = end_[i];
    }
  }
  const auto& table = *view_.frame_table;
  frame_kind_.assign(table.size(), Kind::kOther);
  frame_backward_.assign(table.size(), 0);
  frame_user_.assign(table.size(), 0);
  // The kind is part of what names a function: read once per function (a native function has a
  // frame per sampled address).
  for (uint32_t f : *view_.frame_function) function_count_ = std::max<size_t>(function_count_, size_t(f) + 1);
  std::vector<int8_t> function_kind(function_count_, -1);
  // torch.profiler names Python files relative to sys.path: the program the user ran (the
  // outermost `<module>`, first in preorder) tells the user's files from the libraries'.
  const bool sys_path_relative = profile_.meta("imported_from").value_or("") == "kineto";
  std::string script;
  for (size_t n = 0; sys_path_relative && n < view_.size(); ++n) {
    const FrameInfo& f = view_.frame(n);
    if (f.name == "<module>" && !f.file.empty() && f.file[0] != '<') {
      script = f.file;
      break;
    }
  }
  for (size_t i = 0; i < table.size(); ++i) {
    int8_t& known = function_kind[(*view_.frame_function)[i]];
    if (known < 0) {
      const int code = FrameKindCode(table[i].kind);
      known = int8_t(code >= 0 && code < int(Kind::kOther) ? code : int(Kind::kOther));
    }
    frame_kind_[i] = Kind(known);
    // PyTorch names autograd nodes "<Op>Backward<k>"; the engine's wrapper frame is
    // "autograd::engine::evaluate_function: <Op>Backward<k>".
    const std::string& file = table[i].file;
    auto has = [&](const char* part) { return file.find(part) != std::string::npos; };
    if (sys_path_relative && !file.empty() && file[0] != '/')
      frame_user_[i] = table[i].line > 0 && UserFileRelativeToSysPath(file, script);
    else
      frame_user_[i] = !file.empty() && table[i].line > 0 && file[0] != '<' && !has("/site-packages/") &&
                       !has("/dist-packages/") && !has("/lib/python") && file.rfind("/usr/include/", 0) != 0 &&
                       file.rfind("/usr/lib/", 0) != 0 && file.rfind("/usr/local/cuda", 0) != 0 &&
                       !has("/torchinductor_") && !InductorGeneratedFile(file) && !IsCompilerGeneratedSource(file) &&
                       !has("/.triton/") &&
                       !has("/triton/runtime/") && !SystemOrInterpreterModule(table[i].module);

    if (frame_kind_[i] == Kind::kOperator) {
      const std::string& nm = table[i].name;
      size_t b = nm.rfind("Backward");
      bool digits = b != std::string::npos;
      for (size_t c = b + 8; digits && c < nm.size(); ++c) digits = nm[c] >= '0' && nm[c] <= '9';
      frame_backward_[i] = digits || nm.rfind("autograd::engine::evaluate_function", 0) == 0;
    }
  }
  // The checks below find frameworks, DataLoaders and phases by installed paths
  // (`-packages/torch/...`): a library file torch.profiler named relative to sys.path is read as
  // what it was before the trim. Only for classifying; findings show the names as recorded.
  std::vector<FrameInfo> untrimmed;
  if (sys_path_relative) {
    untrimmed = table;
    for (size_t i = 0; i < untrimmed.size(); ++i) {
      std::string& file = untrimmed[i].file;
      if (!frame_user_[i] && !file.empty() && file[0] != '/' && file[0] != '<') file = "/site-packages/" + file;
    }
  }
  const std::vector<FrameInfo>& classified = sys_path_relative ? untrimmed : table;
  // A mark depends only on what names a function (kind, name, file or module): decided once per
  // function, not per frame (a native function has a frame per sampled address).
  const auto& frame_function = *view_.frame_function;
  std::vector<PhaseMark> marks(table.size());
  std::vector<int8_t> function_mark(function_count_, -1);
  for (size_t i = 0; i < table.size(); ++i) {
    int8_t& known = function_mark[frame_function[i]];
    if (known < 0) {
      PhaseMark mark = FramePhaseMark(classified[i]);
      if (all_phases && mark != PhaseMark::kProfiler) mark = PhaseMark::kNone;  // never the program's
      known = int8_t(mark);
    }
    marks[i] = PhaseMark(known);
  }
  std::vector<uint8_t> fw(table.size(), 0);
  std::vector<LoaderFrame> loader(table.size(), LoaderFrame::kNone);
  // A file's and a module's part are decided once per run of frames sharing it (a native
  // module's frames, one per address, share the module path).
  const std::string* last_file = nullptr;
  const std::string* last_mod = nullptr;
  uint8_t file_bits = 0, mod_bits = 0;
  bool data_file = false;  // torch/utils/data: its frames' parts in a DataLoader
  for (size_t i = 0; i < table.size(); ++i) {
    const std::string& file = classified[i].file;
    const std::string& mod = table[i].module;
    if (!last_file || file != *last_file) {
      auto has = [&](const char* part) { return file.find(part) != std::string::npos; };
      const bool installed = has("-packages/");
      file_bits = 0;
      if (installed && has("-packages/torch/")) file_bits |= 1;
      if (installed && (has("-packages/jax/") || has("-packages/jaxlib/") || has("-packages/flax/"))) file_bits |= 2;
      if (installed && has("/torch/utils/data/dataloader.py")) file_bits |= 4;
      data_file = installed && has("/torch/utils/data/");
      last_file = &file;
    }
    if (!last_mod || mod != *last_mod) {
      mod_bits = 0;
      if (mod.find("libtorch") != std::string::npos) mod_bits |= 1;
      if (mod.find("xla_") != std::string::npos) mod_bits |= 2;
      last_mod = &mod;
    }
    fw[i] = file_bits | mod_bits;
    if (frame_kind_[i] == Kind::kOperator && table[i].name.rfind("aten::", 0) == 0) fw[i] |= 1;
    if (data_file && frame_kind_[i] == Kind::kPython) loader[i] = ClassifyLoaderFrame(table[i].name, file);
  }
  // What every pass reads per node, gathered once per frame and then copied in node order.
  std::vector<NodeFacts> frame_facts(table.size());
  for (size_t i = 0; i < table.size(); ++i)
    frame_facts[i] = NodeFacts{frame_function[i], frame_kind_[i], frame_user_[i] != 0, frame_backward_[i] != 0, marks[i], fw[i],
                               loader[i]};
  node_.resize(n);
  for (size_t v = 0; v < n; ++v) node_[v] = frame_facts[view_.frame_id[v]];
  // One pass in preorder (a parent's facts are known before its children's): the nearest user
  // and Python frames above each node, launch calls that load a module, the phase, and the
  // frameworks the judged phases show.
  user_anc_.assign(n, -1);
  python_anc_.assign(n, -1);
  // Phases: the outermost marking frame decides (a compilation inside an import is import time).
  phase_.assign(n, Phase::kSteady);
  // A launch call that takes over a millisecond on average is loading its kernel's module at its
  // first call (CUDA lazy loading): the CPU work under it is warm-up, its kernels are not.
  auto api = FindMetric(profile_, "api_time");
  std::vector<char> loading(n, 0);
  std::vector<int8_t> launch_call(api && !all_phases ? table.size() : 0, -1);  // per frame, on first use
  auto phase_of = [&](size_t v) {
    Phase up = phase_[size_t(view_.parent[v])];
    // The profiler's work is left out wherever it happens; otherwise the outermost mark decides.
    if (node_[v].mark == PhaseMark::kProfiler) return Phase::kProfiler;
    if (up != Phase::kSteady) return up;
    if (loading[size_t(view_.parent[v])] && kind(v) != Kind::kKernel) return Phase::kWarmup;
    switch (node_[v].mark) {
      case PhaseMark::kNone: break;
      case PhaseMark::kImport: return Phase::kImport;
      case PhaseMark::kConstruction: return Phase::kConstruction;
      case PhaseMark::kCompilation: return Phase::kCompilation;
      case PhaseMark::kWarmup: return Phase::kWarmup;
      case PhaseMark::kShutdown: return Phase::kShutdown;
      case PhaseMark::kProfiler: return Phase::kProfiler;
      case PhaseMark::kConstructorCall: {
        // A library object built by the user's own line (the model, the optimizer); a constructor
        // called by library code is part of whatever that code does.
        int32_t py = view_.parent[v];
        while (py > 0 && kind(size_t(py)) != Kind::kPython) py = view_.parent[size_t(py)];
        if (py > 0 && IsUserFrame(size_t(py))) return Phase::kConstruction;
        break;
      }
    }
    return Phase::kSteady;
  };
  uint8_t frameworks = 0;
  for (size_t v = 1; v < n; ++v) {
    size_t p = size_t(view_.parent[v]);
    user_anc_[v] = node_[v].user ? int32_t(v) : user_anc_[p];
    python_anc_[v] = node_[v].kind == Kind::kPython ? int32_t(v) : python_anc_[p];
    if (api && !all_phases && kind(v) == Kind::kGpuApi) {
      int8_t& launch = launch_call[view_.frame_id[v]];
      if (launch < 0) launch = table[view_.frame_id[v]].name.find("Launch") != std::string::npos;
      if (launch) {
        const NodeMetric m = metric(v, *api);
        loading[v] = m.count > 0 && m.exclusive / double(m.count) > 1e6;
      }
    }
    phase_[v] = phase_of(v);
    // Frameworks as the judged phases show them (an import of torch.utils.data by a library is
    // no DataLoader in the loop).
    if (judged(v)) frameworks |= node_[v].frameworks;
  }
  torch_ = (frameworks & 1) != 0;
  jax_ = (frameworks & 2) != 0;
  dataloader_ = (frameworks & 4) != 0;
  judged_incl_.resize(profile.metrics().size());
  judged_excl_.resize(profile.metrics().size());
  profiler_metric_ = FindMetric(profile_, "profiler_time");
  // The main thread and the steady state's wall time.
  std::optional<size_t> cpu;
  for (const char* m : {"cpu_time", "wall_time"})
    if (!cpu) cpu = FindMetric(profile_, m);
  if (!cpu) return;
  double best = -1;
  for (size_t c = 1; c < n; c = end_[c]) {
    bool user = false;
    for (size_t d = c; d < end_[c] && !user; ++d) user = IsUserFrame(d);
    if (user && metric(c, *cpu).inclusive > best) { best = metric(c, *cpu).inclusive; main_thread_ = c; }
  }
  if (auto period = profile_.meta("period_ns")) {
    try { min_cpu_ns_ = 10 * std::stod(*period); } catch (...) { min_cpu_ns_ = 0; }
  }
  double run_ns = 0;
  if (auto d = profile_.meta("duration_ns")) {
    try { run_ns = std::stod(*d); } catch (...) { run_ns = 0; }
  }
  auto elapsed = FindMetric(profile_, "elapsed_time");
  if (elapsed && !(metric(0, *elapsed).inclusive > 0)) elapsed.reset();
  elapsed_metric_ = elapsed;
  cpu_metric_ = cpu;
  MarkOtherThreads(elapsed);
  if (!all_phases) MarkWarmupCallSites(*cpu);
  // The main thread's wall time between its own samples, where the runtime records it; else the
  // run's duration scaled by the judged share of the main thread's CPU time (off where the thread
  // waited outside the steady state: a build, a download). The profiler's own work stretched the
  // run: the figure is of the program alone.
  double wall = 0;
  if (main_thread_ && elapsed) wall = SteadyCost(*elapsed)[main_thread_];
  else if (main_thread_ && run_ns > 0 && best > 0)
    wall = run_ns * std::min(1.0, Incl(main_thread_, *cpu) / best) - ProfilerNs(main_thread_, *cpu);
  judged_wall_ns_ = std::max(0.0, wall);
}

std::vector<double> AnalysisContext::SteadyCost(size_t k) const {
  // Per node, inclusive: metric k over the judged phases on the main thread's own samples, with
  // the profiler's work inside them counted in and then its cost taken out: what Strata's runtime
  // measured of itself (profiler_time: its callbacks and the sample handler, where no sample can
  // land), plus the CPU time sampled in the other profiling machinery it drives and does not time
  // (CUPTI's library, RecordFunction's calls to its observers, outside Strata's own frames).
  // Without profiler_time, everything sampled in profiler frames. Elapsed time in a profiler frame
  // is not the profiler's: the wait before that sample is the program's.
  const size_t n = size();
  const bool wall = elapsed_metric_ == k;  // another thread's samples carry its own wall time
  std::vector<char> inside(n, 0);  // judged, or profiler work entered from a judged frame
  const std::vector<char> strata = StrataFrames();  // in Strata's own code (timed by profiler_time)
  inside[0] = judged(0);
  for (size_t v = 1; v < n; ++v) inside[v] = judged(v) || (phase_[v] == Phase::kProfiler && inside[size_t(parent(v))]);
  std::vector<double> value(n, 0.0), cost(n, 0.0);
  for (size_t v = n; v-- > 0;) {
    if (inside[v]) {
      if (!(wall && other_thread_.size() == n && other_thread_[v])) value[v] += metric(v, k).exclusive;
      if (profiler_metric_) cost[v] += metric(v, *profiler_metric_).exclusive;
      if (phase_[v] == Phase::kProfiler && cpu_metric_ && !(profiler_metric_ && strata[v]))
        cost[v] += metric(v, *cpu_metric_).exclusive;
    }
    if (v > 0) {
      value[size_t(parent(v))] += value[v];
      cost[size_t(parent(v))] += cost[v];
    }
  }
  for (size_t v = 0; v < n; ++v) value[v] = std::max(0.0, value[v] - cost[v]);
  return value;
}

void AnalysisContext::MarkOtherThreads(std::optional<size_t> elapsed) {
  // PyTorch runs the backward of CUDA tensors on its per-device autograd threads while the calling
  // thread waits; the runtime links each backward operator's samples under its forward's call
  // path. Their elapsed_time is those threads' wall time (their idle time between backward
  // passes included), not the main thread's: summing both counts a training step about twice.
  // A backward that launched GPU work ran there; in a run with such a backward every linked
  // backward did (a CPU tensor's backward runs on the calling thread, and then nothing is marked).
  // Work another thread did for the main thread's line (XLA's threads) is placed under a `thread`
  // frame: that thread's samples too.
  other_thread_.assign(size(), 0);
  if (!elapsed || !main_thread_) return;
  auto gpu = FindMetric(profile_, "gpu_time");
  auto api = FindMetric(profile_, "api_time");
  bool on_device_threads = false;
  for (size_t v = main_thread_ + 1; v < end_[main_thread_] && !on_device_threads; ++v)
    if (is_backward_op(v) && !is_backward_op(size_t(parent(v))))
      on_device_threads = (gpu && metric(v, *gpu).inclusive > 0) || (api && metric(v, *api).inclusive > 0);
  for (size_t v = main_thread_ + 1; v < end_[main_thread_]; ++v)
    other_thread_[v] = other_thread_[size_t(parent(v))] || (on_device_threads && is_backward_op(v)) ||
                       (kind(v) == Kind::kOther && frame(v).kind == "thread");
}

void AnalysisContext::MarkWarmupCallSites(size_t cost_metric) {
  // A loop's first steps do one-time work no frame marks (cuBLASLt's heuristics, cuDNN's graph
  // builds, allocator growth, lazy module loads below the launch threshold). A calling context
  // tree has no time order, but a program that calls its step from a warm-up loop and then from
  // the loop it times has the step under two lines of one function: per unit of GPU work (a
  // launch: a step launches the same kernels each time) the earlier line then costs far more
  // than the later one, and the difference is that one-time work. The steady state is the later
  // loop: the earlier lines are warm-up.
  auto gpu = FindMetric(profile_, "gpu_time");
  if (!gpu || !main_thread_) return;
  const size_t n = size();
  // Per node over the steady state: the cost (CPU time: one-time work is the host's, heuristics
  // and graph builds; wall time per launch would also differ where one line waits on the GPU and
  // the other does not; the profiler's own cost out) and the GPU launches below.
  const std::vector<double> cost = SteadyCost(cost_metric);
  std::vector<double> launches(n, 0.0);
  for (size_t v = n; v-- > 1;) {
    if (judged(v) && metric(v, *gpu).exclusive > 0) launches[v] += double(metric(v, *gpu).count);
    launches[size_t(parent(v))] += launches[v];
  }
  // Call sites: a user line (Python) of the main thread with launches below, keyed by its node's
  // parent and function; the functions it calls that launch.
  struct Site { size_t node; std::vector<uint32_t> callees; };
  std::map<std::pair<size_t, uint32_t>, std::vector<Site>> groups;
  std::map<size_t, size_t> site_of;  // node -> index in its group
  for (size_t v = main_thread_ + 1; v < end_[main_thread_]; ++v) {
    if (kind(v) != Kind::kPython || !IsUserFrame(v) || launches[v] <= 0 || !judged(v)) continue;
    auto& g = groups[{size_t(parent(v)), function(v)}];
    site_of[v] = g.size();
    g.push_back(Site{v, {}});
  }
  for (size_t v = main_thread_ + 1; v < end_[main_thread_]; ++v) {
    if (kind(v) != Kind::kPython || launches[v] <= 0) continue;
    int32_t c = PythonAncestor(size_t(parent(v)));
    if (c <= 0) continue;
    auto it = site_of.find(size_t(c));
    if (it == site_of.end()) continue;
    auto& callees = groups[{size_t(parent(size_t(c))), function(size_t(c))}][it->second].callees;
    if (std::find(callees.begin(), callees.end(), function(v)) == callees.end()) callees.push_back(function(v));
  }
  for (auto& [key, sites] : groups) {
    if (sites.size() < 2) continue;
    // The later line in the function is the loop that runs later.
    std::sort(sites.begin(), sites.end(), [&](const Site& a, const Site& b) { return frame(a.node).line < frame(b.node).line; });
    for (size_t last = sites.size() - 1, i = 0; i < last; ++i) {
      const Site& e = sites[i];
      // The latest line calling the same function.
      const Site* r = nullptr;
      for (size_t j = last + 1; j-- > i + 1 && !r;)
        for (uint32_t f : sites[j].callees)
          if (std::find(e.callees.begin(), e.callees.end(), f) != e.callees.end()) { r = &sites[j]; break; }
      if (!r || cost[r->node] < min_cpu_ns_ || launches[r->node] <= 0 || frame(r->node).line == frame(e.node).line) continue;
      const double per_e = cost[e.node] / launches[e.node], per_r = cost[r->node] / launches[r->node];
      if (per_r <= 0 || per_e < kOneTimeCostRatio * per_r) continue;
      for (size_t v = e.node; v < end_[e.node]; ++v)
        if (phase_[v] == Phase::kSteady) phase_[v] = Phase::kWarmup;
      warmup_sites_.push_back(WarmupSite{e.node, r->node, per_e / per_r});
    }
  }
}

const std::vector<NodeMetric>& AnalysisContext::column(size_t k) const {
  if (!columns_used_.empty() && columns_used_.back() == k) return columns_[k];  // read node after node
  if (columns_.size() != profile_.metrics().size()) columns_.resize(profile_.metrics().size());
  columns_used_.erase(std::remove(columns_used_.begin(), columns_used_.end(), k), columns_used_.end());
  columns_used_.push_back(k);
  if (columns_[k].size() != size()) {
    // At least four (a rule reads two or three metrics per node), else what 256 MB hold.
    const size_t budget = std::max<size_t>(4, (size_t(256) << 20) / std::max<size_t>(1, size() * sizeof(NodeMetric)));
    while (columns_used_.size() > budget) {
      std::vector<NodeMetric>().swap(columns_[columns_used_.front()]);
      columns_used_.erase(columns_used_.begin());
    }
    columns_[k] = profile_.MetricColumn(view_, k);
  }
  return columns_[k];
}

const std::vector<double>& AnalysisContext::judged_incl(size_t k) const {
  std::vector<double>& v = judged_incl_[k];
  if (v.size() != size()) {
    std::vector<double>& excl = judged_excl_[k];
    excl.assign(size(), 0.0);
    for (size_t i = 0; i < size(); ++i)
      if (judged(i)) excl[i] = metric(i, k).exclusive;
    v.assign(size(), 0.0);
    for (size_t i = size(); i-- > 0;) {
      v[i] += excl[i];
      if (i > 0) v[size_t(parent(i))] += v[i];
    }
  }
  return v;
}

double AnalysisContext::ProfilerNs(size_t n, size_t k) const {
  if (!profiler_metric_) return 0.0;
  std::vector<double>& sampled = sampled_in_profiler_[k];
  if (sampled.size() != size()) {
    // k's samples in Strata's own frames entered from the steady state: the part of profiler_time
    // the judged metrics left out already (CUPTI's and RecordFunction's frames are left out too,
    // but profiler_time does not hold them).
    const std::vector<char> strata = StrataFrames();
    sampled.assign(size(), 0.0);
    std::vector<char> inside(size(), 0);
    inside[0] = judged(0);
    for (size_t v = 1; v < size(); ++v) {
      inside[v] = judged(v) || (phase_[v] == Phase::kProfiler && inside[size_t(parent(v))]);
      if (inside[v] && strata[v]) sampled[v] = metric(v, k).exclusive;
    }
    for (size_t v = size(); v-- > 1;) sampled[size_t(parent(v))] += sampled[v];
  }
  return std::max(0.0, Incl(n, *profiler_metric_) - sampled[n]);
}

std::vector<char> AnalysisContext::StrataFrames() const {
  std::vector<char> strata(size(), 0);
  for (size_t v = 1; v < size(); ++v)
    strata[v] = phase_[v] == Phase::kProfiler && (strata[size_t(parent(v))] || StrataModule(frame(v).module));
  return strata;
}

double AnalysisContext::gpu_busy() const {
  auto gpu = FindMetric(profile_, "gpu_time");
  return gpu && judged_wall_ns_ > 0 ? Total(*gpu) / judged_wall_ns_ : 0.0;
}

std::optional<size_t> AnalysisContext::metric_index(const std::string& name) const {
  return FindMetric(profile_, name);
}

FindingFrame AnalysisContext::Frame(size_t n) const {
  const FrameInfo& f = frame(n);
  return FindingFrame{f.kind, f.name, f.file, f.line};
}

std::vector<FindingFrame> AnalysisContext::Path(size_t n) const {
  std::vector<FindingFrame> path;
  for (int32_t v = int32_t(n); v > 0; v = parent(size_t(v))) path.push_back(Frame(size_t(v)));
  return {path.rbegin(), path.rend()};
}

FindingFrame AnalysisContext::Location(size_t n) const {
  for (int32_t v = int32_t(n); v > 0; v = parent(size_t(v))) {
    const FrameInfo& f = frame(size_t(v));
    if (!f.file.empty() && f.line > 0) return Frame(size_t(v));
  }
  return FindingFrame{};
}

int32_t AnalysisContext::Anchor(size_t n) const {
  int32_t user = UserAncestor(n);
  if (user > 0) return user;
  for (int32_t v = int32_t(n); v > 0; v = parent(size_t(v)))
    if (!frame(size_t(v)).file.empty() && frame(size_t(v)).line > 0) return v;
  return -1;
}

Finding AnalysisContext::Make(const std::string& rule, const std::string& severity, size_t node,
                              std::string message) const {
  Finding f;
  f.rule = rule;
  f.severity = severity;
  f.message = std::move(message);
  f.node = int32_t(node);
  int32_t at = Anchor(node);
  f.location = at > 0 ? Frame(size_t(at)) : FindingFrame{};
  f.path = Path(node);
  return f;
}

}  // namespace strata::core::detail
