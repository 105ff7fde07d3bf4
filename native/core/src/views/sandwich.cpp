// The sandwich of one function (speedscope's name): who called it and what it called, from a
// top-down view. Callers: from each outermost call of the function outwards, one level per
// caller, merged by function. Callees: the subtrees under those calls merged by function. A
// function at the end of many long paths, or a deep recursion, would make trees as large as the
// paths are long: both trees are bounded in nodes and the caller walk in frames, and what a bound
// left out is said in one line (its time stays in the tree, without the breakdown).
#include <algorithm>
#include <string>

#include "../value_format.h"
#include "child_map.h"
#include "strata/core/api.h"
#include "view_builder.h"

namespace strata::core {

namespace {

std::string Share(double part, double whole) { return detail::Percent(whole > 0 ? part / whole : 0.0); }

// A tree merged by function, built node by node, then sorted into a compact View.
class MergedTree {
 public:
  MergedTree(const View& source, uint32_t root_frame, size_t max_nodes)
      : source_(source), map_(1024), max_nodes_(max_nodes) {
    Add(-1, root_frame, 0.0);
  }
  static constexpr uint32_t kFull = ~0u;

  // The child of `parent` for the function of view node `v` (made if missing; kFull when the
  // tree is at its bound); it shows the frame of the heaviest node merged into it.
  uint32_t Child(uint32_t parent, size_t v, double weight) {
    const uint32_t frame = source_.frame_id[v];
    bool inserted;
    uint32_t* slot = map_.FindOrInsert((uint64_t(parent) << 32) | (*source_.frame_function)[frame], &inserted,
                                       parent_.size() < max_nodes_);
    if (!slot) return kFull;
    if (inserted) *slot = Add(int32_t(parent), frame, weight);
    else if (weight > best_[*slot]) { best_[*slot] = weight; frame_[*slot] = frame; }
    return *slot;
  }
  void AddValue(uint32_t node, double inclusive, double exclusive) {
    incl_[node] += inclusive;
    excl_[node] += exclusive;
  }
  double inclusive(uint32_t node) const { return incl_[node]; }

  View ToView() {
    detail::ViewOutput out;
    out.parent = std::move(parent_);
    out.incl = incl_;
    detail::SortPreorder(out, 1, 0);
    View v;
    v.kind = ViewKind::kTopDown;
    v.filter = source_.filter;
    v.by_function = true;
    v.frame_table = source_.frame_table;
    v.frame_function = source_.frame_function;
    v.metric_count = source_.metric_count;
    v.primary_metric = source_.primary_metric;
    v.parent = std::move(out.sorted_parent);
    const size_t n = out.order.size();
    v.frame_id.resize(n);
    v.values.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t old = out.order[i];
      v.frame_id[i] = frame_[old];
      v.values[i] = NodeValue{incl_[old], excl_[old], 0};
    }
    return v;
  }

 private:
  uint32_t Add(int32_t parent, uint32_t frame, double weight) {
    parent_.push_back(parent);
    frame_.push_back(frame);
    best_.push_back(weight);
    incl_.push_back(0.0);
    excl_.push_back(0.0);
    return uint32_t(parent_.size() - 1);
  }
  const View& source_;
  detail::ChildMap map_;
  size_t max_nodes_;
  std::vector<int32_t> parent_;
  std::vector<uint32_t> frame_;
  std::vector<double> best_, incl_, excl_;
};

}  // namespace

Sandwich BuildSandwich(const View& view, uint32_t target, const SandwichBounds& bounds) {
  if (view.kind != ViewKind::kTopDown) throw Error("sandwich: made from a top-down view");
  const size_t n = view.size();
  if (view.values.size() != n || !view.frame_function) throw Error("sandwich: the view has no values");
  const auto& func = *view.frame_function;
  auto fn = [&](size_t i) { return func[view.frame_id[i]]; };
  // Subtree ends in preorder.
  std::vector<uint32_t> end(n);
  for (size_t i = n; i-- > 0;) {
    if (end[i] == 0) end[i] = uint32_t(i + 1);
    const int32_t p = view.parent[i];
    if (p >= 0 && end[i] > end[size_t(p)]) end[size_t(p)] = end[i];
  }
  // Outermost calls: nested ones are inside their subtrees.
  std::vector<uint32_t> calls;
  for (size_t i = 1; i < n;) {
    if (fn(i) != target) { ++i; continue; }
    calls.push_back(uint32_t(i));
    i = end[i];
  }
  Sandwich out;
  out.calls = calls.size();
  if (calls.empty()) return out;
  size_t heaviest = calls[0];
  for (uint32_t c : calls) if (view.values[c].inclusive > view.values[heaviest].inclusive) heaviest = c;

  // Callers, heaviest calls first: when the walk's budget runs out the calls left out are light.
  MergedTree callers(view, view.frame_id[heaviest], bounds.max_nodes);
  std::vector<uint32_t> by_weight(calls);
  std::stable_sort(by_weight.begin(), by_weight.end(),
                   [&](uint32_t a, uint32_t b) { return view.values[a].inclusive > view.values[b].inclusive; });
  uint64_t steps = 0;
  size_t cut_calls = 0;
  double cut_weight = 0, all_weight = 0;
  for (uint32_t c : by_weight) {
    const double w = view.values[c].inclusive;
    all_weight += w;
    callers.AddValue(0, w, 0.0);
    uint32_t cur = 0;
    bool cut = false;
    for (int32_t a = view.parent[c]; a > 0; a = view.parent[size_t(a)]) {
      if (steps >= bounds.max_steps) { cut = true; break; }
      ++steps;
      const uint32_t next = callers.Child(cur, size_t(a), w);
      if (next == MergedTree::kFull) { cut = true; break; }
      cur = next;
      callers.AddValue(cur, w, 0.0);
    }
    callers.AddValue(cur, 0.0, w);  // the path has no further caller (or they are left out)
    if (cut) { ++cut_calls; cut_weight += w; }
  }

  // Callees: each call's subtree, walked in preorder, every node under its parent's tree node.
  MergedTree callees(view, view.frame_id[heaviest], bounds.max_nodes);
  constexpr uint32_t kCut = MergedTree::kFull;
  std::vector<uint32_t> tree_of(n, kCut);
  double cut_callees = 0;
  size_t cut_nodes = 0;
  for (uint32_t c : calls) {
    tree_of[c] = 0;
    callees.AddValue(0, view.values[c].inclusive, view.values[c].exclusive);
    for (uint32_t j = c + 1; j < end[c]; ++j) {
      const uint32_t pt = tree_of[size_t(view.parent[j])];
      if (pt == kCut) continue;  // inside a subtree left out: counted there
      const uint32_t t = callees.Child(pt, j, view.values[j].inclusive);
      if (t == kCut) {
        // Its time stays in the tree as its caller's own.
        callees.AddValue(pt, 0.0, view.values[j].inclusive);
        cut_callees += view.values[j].inclusive;
        ++cut_nodes;
        continue;
      }
      tree_of[j] = t;
      callees.AddValue(t, view.values[j].inclusive, view.values[j].exclusive);
    }
  }

  if (cut_calls)
    out.partial = "partial sandwich: the callers of " + std::to_string(cut_calls) + " of " + std::to_string(calls.size()) +
                  " calls (" + Share(cut_weight, all_weight) + " of the function's time) are left out past " +
                  std::to_string(bounds.max_nodes) + " nodes or " + std::to_string(bounds.max_steps) + " caller frames";
  if (cut_nodes)
    out.partial += std::string(out.partial.empty() ? "partial sandwich: " : "; ") + "the callees are capped at " +
                   std::to_string(bounds.max_nodes) + " nodes: " + Share(cut_callees, callees.inclusive(0)) +
                   " of the time is shown as its callers' own (" + std::to_string(cut_nodes) + " subtrees left out)";
  out.callers = callers.ToView();
  out.callees = callees.ToView();
  return out;
}

}  // namespace strata::core
