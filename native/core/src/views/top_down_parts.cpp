// Parts of a top-down view before the view is sorted: the same walk as SliceView (view_slice.cpp),
// over the creation-order tree. A node's preorder id is its parent's + 1 + the subtree sizes of
// the siblings sorted before it; only the children of the nodes a part reaches are sorted.
#include "top_down_parts.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>

namespace strata::core::detail {

namespace {
constexpr uint32_t kUnplaced = ~0u;
}

TopDownTreeParts::TopDownTreeParts(ViewOutput out, Children children, size_t metric_count, size_t primary)
    : out_(std::move(out)), kids_(std::move(children)), m_(metric_count), p_(primary) {
  const size_t n = out_.parent.size();
  if (kids_.offset.empty() && n > 0) kids_ = BuildChildren(out_.parent.data(), n);
  // Parents are created before their children: one pass from the last node adds up the sizes.
  subtree_.assign(n, 1);
  for (size_t i = n; i-- > 1;) subtree_[size_t(out_.parent[i])] += subtree_[i];
  sorted_.assign(n, 0);
  id_.assign(n, kUnplaced);
  if (n > 0) { id_[0] = 0; node_of_id_.emplace(0, 0); }
}

const uint32_t* TopDownTreeParts::SortedChildren(uint32_t v, uint32_t* count) {
  if (!sorted_[v]) {
    std::vector<std::pair<double, uint32_t>> keyed;
    SortChildrenOf(kids_, v, out_.incl.data(), m_, p_, keyed);
    sorted_[v] = 1;
  }
  *count = kids_.offset[v + 1] - kids_.offset[v];
  return kids_.child.data() + kids_.offset[v];
}

void TopDownTreeParts::Emit(ViewPart& part, uint32_t v, uint32_t id, int32_t parent) {
  static const Stats empty;
  part.slice.node.push_back(id);
  part.slice.parent.push_back(parent);
  part.slice.more.push_back(LeftOut::kNone);
  part.frame_id.push_back(out_.frame[v]);
  const Stats* ex = out_.ExclOf(v, m_);
  if (p_ < m_) {
    const Stats& st = ex ? ex[p_] : empty;
    part.values.push_back(NodeValue{Value(v), st.sum, st.count});
  } else {
    part.values.push_back(NodeValue{});
  }
  if (id_[v] == kUnplaced) {
    id_[v] = id;
    node_of_id_.emplace(id, v);
  }
}

ViewPart TopDownTreeParts::Part(size_t root_id, const SliceBound& bound) {
  const size_t n = size();
  if (root_id >= n)
    throw Error("view part: node " + std::to_string(root_id) + " is not in the view (" + std::to_string(n) + " nodes)");
  auto found = node_of_id_.find(uint32_t(root_id));
  if (found == node_of_id_.end())
    throw Error("view part: node " + std::to_string(root_id) + " was not in a part of the view yet");
  const uint32_t root = found->second;
  const bool whole = subtree_[root] <= bound.whole_up_to;
  double min_value = whole ? 0.0 : bound.min_value;
  const size_t cap = std::max<size_t>(1, bound.max_nodes);
  const size_t max_depth = whole ? SIZE_MAX : bound.max_depth;
  auto value = [&](uint32_t v) { return m_ ? Value(v) : 0.0; };
  // Reached (what SliceView counts for the cap): below the root, within the depth, at least the
  // bound, under a reached node. Only reached nodes' children are looked at.
  bool capped = false;
  if (!whole) {
    std::vector<double> reached;
    std::vector<std::pair<uint32_t, size_t>> stack{{root, 0}};
    while (!stack.empty()) {
      const auto [v, depth] = stack.back();
      stack.pop_back();
      if (depth + 1 > max_depth) continue;
      uint32_t count;
      const uint32_t* c = SortedChildren(v, &count);
      for (uint32_t j = 0; j < count; ++j) {
        if (!(value(c[j]) >= min_value)) continue;
        reached.push_back(value(c[j]));
        stack.push_back({c[j], depth + 1});
      }
    }
    if (reached.size() + 1 > cap) {
      capped = true;
      if (cap >= 2) {
        std::nth_element(reached.begin(), reached.begin() + long(cap - 2), reached.end(), std::greater<double>());
        min_value = std::max(min_value, reached[cap - 2]);
      } else {
        min_value = HUGE_VAL;
      }
    }
  }
  auto narrow = [&](uint32_t v) {
    const double x = value(v);
    return !whole && !(capped ? x > min_value : x >= min_value);
  };
  // The part in preorder: a node, then each kept child's subtree in turn, as SliceView meets them.
  ViewPart part;
  bool any_narrow = false;
  Emit(part, root, uint32_t(root_id), -1);
  struct Frame {
    uint32_t v;        // the node
    int32_t at;        // its index in the part
    size_t depth;      // levels below the part's root
    uint32_t next;     // its next child to look at
    uint32_t next_id;  // that child's preorder id
  };
  std::vector<Frame> stack{{root, 0, 0, 0, uint32_t(root_id) + 1}};
  while (!stack.empty()) {
    Frame& f = stack.back();
    uint32_t count;
    const uint32_t* c = SortedChildren(f.v, &count);
    if (f.next == count) { stack.pop_back(); continue; }
    const uint32_t child = c[f.next++];
    const uint32_t id = f.next_id;
    f.next_id += subtree_[child];
    LeftOut& why = part.slice.more[size_t(f.at)];
    if (f.depth + 1 > max_depth) { why = LeftOut::kAny; continue; }
    if (narrow(child)) { if (why == LeftOut::kNone) why = LeftOut::kNarrow; any_narrow = true; continue; }
    if (!whole && part.slice.node.size() >= cap) { why = LeftOut::kAny; continue; }
    const int32_t at = int32_t(part.slice.node.size());
    const size_t depth = f.depth + 1;
    Emit(part, child, id, f.at);  // `f` may move with the stack below: not used after this
    stack.push_back({child, at, depth, 0, id + 1});
  }
  part.slice.min_value = !any_narrow ? 0.0 : capped ? std::nextafter(min_value, HUGE_VAL) : min_value;
  return part;
}

ViewOutput TopDownTreeParts::CopyTree(Children* children) const {
  ViewOutput copy;
  copy.parent = out_.parent;
  copy.frame = out_.frame;
  copy.incl = out_.incl;
  copy.excl = out_.excl;  // not copied: read only
  copy.excl_slot = out_.excl_slot;
  copy.lines = out_.lines;
  copy.partial = out_.partial;
  copy.landing = out_.landing;
  *children = kids_;
  return copy;
}

}  // namespace strata::core::detail
