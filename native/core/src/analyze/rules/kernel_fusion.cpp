// kernel-fusion: a frame that launches many short kernels spends its GPU time on launch
// latency and on memory round trips between them. Flagged: the deepest frame with a source
// line (a Python line first, else a C++ line) under which launches >= min_launches, the mean
// kernel time <= max_mean_us, the kernels' GPU time >= min_share of the total, and their launch
// calls and kernels together >= min_wall_share of the steady state's estimated wall time.
#include <algorithm>
#include <map>

#include "../../value_format.h"
#include "../kernel_kinds.h"
#include "builtin_rules.h"

namespace strata::core::detail {

void KernelFusion(const AnalysisContext& cx, const RuleParams& p, std::vector<Finding>& out) {
  auto gpu = cx.metric_index(kGpuTime);
  if (!gpu || cx.Total(*gpu) <= 0) return;
  auto api = cx.metric_index(kApiTime);
  const size_t n = cx.size();
  // Per node: kernel launches and kernel GPU time in its subtree (kernels only: copies and
  // sets are not fusion candidates).
  std::vector<double> launches(n, 0), kernel_ns(n, 0);
  // Kernels of a CUDA graph (cuGraphLaunch: XLA's, or a captured step) cost no launch each.
  // Whether an API call launches a graph is decided by its name: once per function.
  std::vector<int8_t> graph_launch(cx.function_count(), -1);
  auto launches_graph = [&](int32_t api_up) {
    if (api_up <= 0 || cx.kind(size_t(api_up)) != Kind::kGpuApi) return false;
    int8_t& known = graph_launch[cx.function(size_t(api_up))];
    if (known < 0) known = cx.frame(size_t(api_up)).name.find("GraphLaunch") != std::string::npos;
    return known != 0;
  };
  for (size_t v = n; v-- > 1;) {
    if (cx.kind(v) == Kind::kKernel && !launches_graph(cx.parent(v))) {
      launches[v] += double(cx.Count(v, *gpu));
      kernel_ns[v] += cx.Excl(v, *gpu);
    }
    size_t par = size_t(cx.parent(v));
    launches[par] += launches[v];
    kernel_ns[par] += kernel_ns[v];
  }
  const double min_launches = p["min_launches"], max_mean_ns = p["max_mean_us"] * 1e3;
  const double min_ns = p["min_share"] * cx.Total(*gpu);
  auto candidate = [&](size_t v) {
    Kind k = cx.kind(v);
    if (k == Kind::kKernel || k == Kind::kGpuApi || k == Kind::kPc || k == Kind::kRegion) return false;
    if (!(launches[v] >= min_launches && kernel_ns[v] >= min_ns && kernel_ns[v] / launches[v] <= max_mean_ns)) return false;
    const FrameInfo& f = cx.frame(v);
    if (f.file.empty() || f.line == 0) return false;
    // The user's line decides; a library line only where no line of the user's code is above.
    return cx.IsUserFrame(v) || cx.UserAncestor(v) < 0;
  };
  // Deepest Python candidates first; a C++ candidate only where no Python frame qualifies above.
  std::vector<char> covered(n, 0);  // flagged
  std::vector<char> sub(n, 0);      // a flagged frame is strictly below (children come first)
  // Passes: the user's own Python lines, then library Python lines, then C++ lines.
  for (int pass = 0; pass < 3; ++pass) {
    std::fill(sub.begin(), sub.end(), 0);
    for (size_t v = n; v-- > 1;) {
      bool py = cx.kind(v) == Kind::kPython;
      bool want = pass == 0 ? py && cx.IsUserFrame(v) : pass == 1 ? py : !py;
      bool ok = want && !sub[v] && !covered[v] && candidate(v) &&
                !(pass == 2 && cx.PythonAncestor(v) > 0 && candidate(size_t(cx.PythonAncestor(v))));
      if (ok) {  // not below a frame flagged in an earlier pass (the user's line wins)
        for (int32_t up = cx.parent(v); up > 0 && ok; up = cx.parent(size_t(up))) ok = !covered[size_t(up)];
      }
      if (covered[v] || sub[v] || ok) sub[size_t(cx.parent(v))] = 1;
      if (!ok) continue;
      covered[v] = 1;
      // The kernels: name -> (launches, ns).
      std::map<std::string, std::pair<double, double>> kernels;
      double api_ns = 0;
      for (size_t c = v; c < cx.subtree_end(v); ++c) {
        if (cx.kind(c) == Kind::kKernel && cx.Count(c, *gpu) && !launches_graph(cx.parent(c))) {
          auto& e = kernels[cx.frame(c).name];
          e.first += double(cx.Count(c, *gpu));
          e.second += cx.Excl(c, *gpu);
        }
        if (api && cx.kind(c) == Kind::kGpuApi) api_ns += cx.Excl(c, *api);
      }
      std::vector<std::pair<std::string, std::pair<double, double>>> top(kernels.begin(), kernels.end());
      std::sort(top.begin(), top.end(), [](auto& a, auto& b) { return a.second.first > b.second.first; });
      std::string list;
      double compiled = 0;
      for (const auto& [name, e] : top)
        if (ClassifyKernel(name) == KernelKind::kCompiled) compiled += e.first;
      for (size_t i = 0; i < top.size() && i < 3; ++i)
        list += (i ? ", " : "") + ShortKernelName(top[i].first) + " x" + Count(top[i].second.first);
      if (top.size() > 3) list += ", ...";
      // One kernel launched many times is a loop around one operation, not operations to fuse.
      if (kernels.size() < 2) continue;
      const double mean = kernel_ns[v] / launches[v];
      const double overhead = api ? api_ns / (api_ns + kernel_ns[v]) : 0;
      // What fusing them could save at most: their launch calls and their kernels. Where that is a
      // sliver of the steady state (a loop waiting on its data loader), the cause is elsewhere.
      // Only where the launches were seen under the line (XLA launches from its own threads: its
      // dispatch cost is the jitted call's CPU time, not measured here).
      const double wall = cx.judged_wall_ns();
      const double step_share = wall > 0 ? (api_ns + kernel_ns[v]) / wall : 0;
      if (wall > 0 && api_ns > 0 && step_share < p["min_wall_share"]) continue;
      const FrameInfo& f = cx.frame(v);
      std::string advice;
      if (cx.uses_torch() && compiled > 0)
        advice = "This code already runs torch.compile'd kernels (" + Count(compiled) + " of the launches); what is left "
                 "is launch overhead: capture the step with CUDA graphs (torch.compile(mode=\"reduce-overhead\")) or give each launch more work (a larger "
                 "batch).";
      else if (cx.uses_torch())
        advice = "Fuse these operations so that fewer, larger kernels run: torch.compile the model or step "
                 "(mode=\"reduce-overhead\" also captures CUDA graphs), or batch the loop into one tensor operation.";
      else if (cx.uses_jax())
        advice = "XLA fuses inside one jitted call only: jit a larger function (the whole training step), run "
                 "several steps per call (lax.scan or lax.fori_loop over steps), or give each call more work (a "
                 "larger batch).";
      else
        advice = "Fuse these kernels into fewer, larger ones, or capture the sequence once in a CUDA graph "
                 "(cudaStreamBeginCapture, cudaGraphLaunch) to cut the launch overhead.";
      std::string msg = "`" + Where(f.name, f.file, f.line) + "` launches " + Count(launches[v]) + " kernels (" +
                        Count(double(kernels.size())) + " distinct: " + list + ") averaging " + Duration(mean) +
                        " each, " + Percent(kernel_ns[v] / cx.Total(*gpu)) + " of GPU time" +
                        (api && api_ns > 0 ? "; the launch calls cost " + Duration(api_ns) + " of CPU time (" + Percent(overhead) +
                                   " of launch + kernel time)" : std::string()) +
                        ". " + advice;
      Finding fd = cx.Make("kernel-fusion", "warning", v, std::move(msg));
      fd.cause = "launch-bound";
      fd.evidence = {{"launches", launches[v], "count"},
                     {"mean_kernel_time", mean, "ns"},
                     {"gpu_time", kernel_ns[v], "ns"},
                     {"gpu_time_share", kernel_ns[v] / cx.Total(*gpu), "share"},
                     {"distinct_kernels", double(kernels.size()), "count"}};
      if (api) {
        fd.evidence.push_back({"api_time", api_ns, "ns"});
        fd.evidence.push_back({"launch_overhead_share", overhead, "share"});
      }
      if (wall > 0) fd.evidence.push_back({"launch_and_kernel_share_of_steady_state", step_share, "share"});
      out.push_back(std::move(fd));
    }
  }
}

}  // namespace strata::core::detail
