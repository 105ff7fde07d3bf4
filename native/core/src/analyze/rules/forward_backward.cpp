// forward-backward: an operator whose backward costs more than `ratio` times its forward
// (DeepContext's case: advanced-indexing backward at 39.6% of GPU time against 0.8% forward,
// fixed by index_select). The runtime places backward operators under the call path of the
// forward operator they belong to (linked by autograd sequence number), so both sit under the
// forward's Python line. Per Python line: forward time = operator subtrees that are not
// backward; backward time = the outermost backward-operator subtrees. GPU time when the profile
// has it, else CPU time (a CPU-only run shows the same imbalance).
#include <vector>

#include "../../value_format.h"
#include "builtin_rules.h"

namespace strata::core::detail {

void ForwardBackward(const AnalysisContext& cx, const RuleParams& p, std::vector<Finding>& out) {
  std::optional<size_t> k = cx.metric_index(kGpuTime);
  if (!k || cx.total(*k) <= 0) {
    k.reset();
    for (const char* m : kCpuMetrics)
      if (!k) k = cx.metric_index(m);
  }
  if (!k || cx.total(*k) <= 0) return;
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
    double t = cx.metric(v, *k).inclusive;
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
          inner_bwd += cx.metric(c, *k).inclusive;
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
      if (!line.fwd_op || t - inner_bwd > cx.metric(line.fwd_op, *k).inclusive) line.fwd_op = v;
    }
  }
  const double total = cx.total(*k);
  for (const Unit& u : units) {
    if (!u.bwd_op || u.bwd < p["min_share"] * total || u.bwd <= p["ratio"] * u.fwd) continue;
    const FrameInfo& py = cx.frame(u.node);
    std::string fwd_name = u.fwd_op ? cx.frame(u.fwd_op).name : std::string("its forward operators");
    std::string bwd_name = cx.frame(u.bwd_op).name;
    const char* prefix = "autograd::engine::evaluate_function: ";
    if (bwd_name.rfind(prefix, 0) == 0) bwd_name = bwd_name.substr(std::string(prefix).size());
    std::string ratio = u.fwd > 0 ? Number(u.bwd / u.fwd) + "x" : "all";
    std::string msg = "The backward of `" + fwd_name + "` at " + Where(py.name, py.file, py.line) + " (`" + bwd_name +
                      "`) takes " + Duration(u.bwd) + " of " + metric + " (" + Percent(u.bwd / total) +
                      "), " + ratio + " its forward (" + Duration(u.fwd) +
                      "). Use an operation with a cheaper gradient here: e.g. index_select or embedding instead of "
                      "advanced indexing with repeated indices (its backward accumulates with atomics), or "
                      "avoid the operation's expensive backward path.";
    Finding fd = cx.Make("forward-backward", "warning", u.node, std::move(msg));
    fd.evidence = {{"backward_" + metric, u.bwd, "ns"}, {"forward_" + metric, u.fwd, "ns"},
                   {"backward_share", u.bwd / total, "share"},
                   {"backward_forward_ratio", u.fwd > 0 ? u.bwd / u.fwd : 0, "ratio"}};
    out.push_back(std::move(fd));
  }
}

}  // namespace strata::core::detail
