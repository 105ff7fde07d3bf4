// forward-backward: an operator whose backward costs more than `ratio` times its forward
// (DeepContext's case: advanced-indexing backward at 39.6% of GPU time against 0.8% forward,
// fixed by index_select). The runtime places backward operators under the call path of the
// forward operator they belong to (linked by autograd sequence number), so both sit under the
// forward's Python line. Per Python line: forward time = operator subtrees that are not
// backward; backward time = the outermost backward-operator subtrees. GPU time when the profile
// has it, else CPU time (a CPU-only run shows the same imbalance). The advice follows what the
// backward contains (its operators and kernels), not its name: a torch.compile'd region's
// backward is judged by its kernels.
#include <map>
#include <vector>

#include "../../value_format.h"
#include "../kernel_kinds.h"
#include "builtin_rules.h"

namespace strata::core::detail {

void ForwardBackward(const AnalysisContext& cx, const RuleParams& p, std::vector<Finding>& out) {
  std::optional<size_t> k = cx.metric_index(kGpuTime);
  if (!k || cx.Total(*k) <= 0) {
    k.reset();
    for (const char* m : kCpuMetrics)
      if (!k) k = cx.metric_index(m);
  }
  if (!k || cx.Total(*k) <= 0) return;
  const std::string metric = cx.metrics()[*k].name;
  const size_t n = cx.size();
  // Units compared: a forward operator with its backward inside its subtree (the runtime puts
  // a backward under the forward it belongs to), or, for backward operators placed directly
  // under a Python line, that line's forward operators together.
  struct Unit { size_t node = 0, fwd_op = 0, bwd_op = 0; double fwd = 0, bwd = 0, bwd_best = -1; };
  std::vector<Unit> units;  // one per forward operator or Python line that has operators
  std::vector<int32_t> unit_of(n, -1);
  auto unit = [&](size_t key) -> Unit& {
    if (unit_of[key] < 0) { unit_of[key] = int32_t(units.size()); units.emplace_back(); }
    return units[size_t(unit_of[key])];
  };
  for (size_t v = 1; v < n; ++v) {
    if (cx.kind(v) != Kind::kOperator) continue;
    bool bwd = cx.is_backward_op(v);
    // The nearest operator above v (below the nearest Python line) and that line.
    int32_t up = cx.parent(v), enclosing_fwd = -1;
    bool outer = true;
    for (; up > 0 && cx.kind(size_t(up)) != Kind::kPython; up = cx.parent(size_t(up))) {
      if (cx.kind(size_t(up)) != Kind::kOperator) continue;
      if (cx.is_backward_op(size_t(up)) == bwd) outer = false;
      if (!cx.is_backward_op(size_t(up))) enclosing_fwd = up;  // ends at the outermost forward
    }
    if (!outer || up <= 0) continue;
    double t = cx.Incl(v, *k);
    if (bwd) {
      size_t key = enclosing_fwd > 0 ? size_t(enclosing_fwd) : size_t(up);
      Unit& u = unit(key);
      u.node = size_t(up);
      u.bwd += t;
      if (t > u.bwd_best) { u.bwd_best = t; u.bwd_op = v; }
    } else if (enclosing_fwd < 0) {
      double inner_bwd = 0;
      for (size_t c = v + 1; c < cx.subtree_end(v); ++c) {
        if (cx.is_backward_op(c)) {
          inner_bwd += cx.Incl(c, *k);
          c = cx.subtree_end(c) - 1;
        }
      }
      Unit& own = unit(v);  // the operator with its own backward
      own.node = size_t(up);
      own.fwd_op = v;
      own.fwd = t - inner_bwd;
      Unit& line = unit(size_t(up));  // the line's forward total, for backwards placed beside
      line.node = size_t(up);
      line.fwd += t - inner_bwd;
      if (!line.fwd_op || t - inner_bwd > cx.Incl(line.fwd_op, *k)) line.fwd_op = v;
    }
  }
  const double total = cx.Total(*k);
  const Frameworks fw{cx.uses_torch(), cx.uses_jax()};
  for (const Unit& u : units) {
    // Without a measured forward there is nothing to compare with (a compiled region's forward
    // kernels run under another node).
    if (!u.bwd_op || u.fwd <= 0 || u.bwd < p["min_share"] * total || u.bwd <= p["ratio"] * u.fwd) continue;
    std::string fwd_name = u.fwd_op ? cx.frame(u.fwd_op).name : std::string("its forward operators");
    std::string bwd_name = cx.frame(u.bwd_op).name;
    const char* prefix = "autograd::engine::evaluate_function: ";
    if (bwd_name.rfind(prefix, 0) == 0) bwd_name = bwd_name.substr(std::string(prefix).size());
    // Judged by what the backward contains, not by its name: its operators and kernels.
    bool indexing = false;
    std::map<std::string, double> kernels;
    for (size_t c = u.bwd_op; c < cx.subtree_end(u.bwd_op); ++c) {
      const std::string& nm = cx.frame(c).name;
      if (cx.kind(c) == Kind::kOperator &&
          (nm.find("IndexBackward") != std::string::npos || nm.find("IndexPutBackward") != std::string::npos ||
           nm.find("index_put") != std::string::npos || nm.find("embedding_dense_backward") != std::string::npos))
        indexing = true;
      if (cx.kind(c) == Kind::kKernel) {
        kernels[nm] += cx.Excl(c, *k);
        if (ClassifyKernel(nm) == KernelKind::kIndexing) indexing = true;
      }
    }
    // Backward kernels that are short on average are launch-bound (tiny shapes): their count, not
    // an expensive gradient, makes the ratio; kernel-fusion and cpu-latency speak for them.
    double launches = 0, kernel_ns = 0;
    for (size_t c = u.bwd_op; c < cx.subtree_end(u.bwd_op); ++c)
      if (cx.kind(c) == Kind::kKernel) { launches += double(cx.Count(c, *k)); kernel_ns += cx.Excl(c, *k); }
    if (metric == kGpuTime && launches > 0 && kernel_ns / launches < p["min_mean_kernel_us"] * 1e3) continue;
    std::string top_kernel;
    double top_ns = -1;
    for (const auto& [nm, t] : kernels)
      if (t > top_ns) { top_ns = t; top_kernel = nm; }
    const bool compiled = fwd_name.find("Compiled") != std::string::npos || bwd_name.find("Compiled") != std::string::npos;
    std::string advice;
    if (indexing)
      advice = "Its backward scatters into repeated indices with atomics: use index_select or embedding instead of "
               "advanced indexing (x[idx]) here, or deduplicate the indices.";
    else if (!top_kernel.empty()) {
      // cuDNN computes a convolution's gradients with implicit-GEMM kernels (CUTLASS, xmma): the
      // change is the convolution's (layout, precision, algorithm choice), not a GEMM call's.
      const bool conv = bwd_name.find("Convolution") != std::string::npos ||
                        fwd_name.find("conv") != std::string::npos;
      const KernelKind kind = conv ? KernelKind::kConv : ClassifyKernel(top_kernel);
      advice = "Its heaviest backward kernel is `" + ShortKernelName(top_kernel) + "` (" + Percent(top_ns / u.bwd) +
               " of the backward). " + KernelAdvice(kind, top_kernel, fw);
    }
    else if (compiled)
      continue;  // a compiled region with nothing inside to judge it by
    else
      advice = "Look at the backward's operators under this line in the flame graph; an operation with a cheaper "
               "gradient (or detaching what needs none) removes it.";
    const FrameInfo& py = cx.frame(u.node);
    std::string msg = "The backward of `" + fwd_name + "` at " + Where(py.name, py.file, py.line) + " (`" + bwd_name +
                      "`) takes " + Duration(u.bwd) + " of " + metric + " (" + Percent(u.bwd / total) + "), " +
                      Number(u.bwd / u.fwd) + "x its forward (" + Duration(u.fwd) + "). " + advice;
    Finding fd = cx.Make("forward-backward", "warning", u.node, std::move(msg));
    fd.cause = bwd_name;
    fd.evidence = {{"backward_" + metric, u.bwd, "ns"}, {"forward_" + metric, u.fwd, "ns"},
                   {"backward_share", u.bwd / total, "share"},
                   {"backward_forward_ratio", u.bwd / u.fwd, "ratio"}};
    out.push_back(std::move(fd));
  }
}
}  // namespace strata::core::detail
