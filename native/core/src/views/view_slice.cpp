// A part of a view to draw: the subtree of one node down to the nodes wider than a bound. A
// flame graph of a million nodes draws a few thousand at any zoom (a frame under a pixel is not
// drawn), so the viewer asks for what is visible first and for a node's part when zoomed into it.
// Children are sorted by descending value, so the children kept are a prefix of each node's
// children: what a part adds later goes after them and moves nothing already drawn.
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "strata/core/api.h"

namespace strata::core {

ViewSlice SliceView(const View& view, size_t root, const SliceBound& bound) {
  const size_t n = view.size();
  if (root >= n) throw Error("view part: node " + std::to_string(root) + " is not in the view (" + std::to_string(n) + " nodes)");
  if (view.values.size() != n) throw Error("view part: the view has no values");
  // In preorder a node's subtree is [root, end): a later node is inside while its parent is.
  size_t end = root + 1;
  while (end < n && size_t(view.parent[end]) >= root) ++end;
  const bool whole = end - root <= bound.whole_up_to;
  double min_value = whole ? 0.0 : bound.min_value;
  const size_t cap = std::max<size_t>(1, bound.max_nodes);
  const size_t max_depth = whole ? SIZE_MAX : bound.max_depth;
  // Levels below the root, for the depth bound (a parent comes before its children).
  std::vector<uint32_t> depth(max_depth == SIZE_MAX ? 0 : end - root, 0);
  auto deep = [&](size_t i) {
    if (depth.empty() || i == root) return false;
    depth[i - root] = depth[size_t(view.parent[i]) - root] + 1;
    return depth[i - root] > max_depth;
  };
  // Kept: the root, and every node whose parent is kept, within the depth bound, whose value
  // reaches the bound (NaN never does). Counted first, for the cap.
  std::vector<int32_t> slot(end - root, -1);  // subtree node -> its index in the slice
  slot[0] = 0;
  std::vector<double> reached;
  for (size_t i = root + 1; i < end && !whole; ++i) {
    if (slot[size_t(view.parent[i]) - root] < 0 || deep(i) || !(view.values[i].inclusive >= min_value)) continue;
    slot[i - root] = 0;
    reached.push_back(view.values[i].inclusive);
  }
  // Past the cap only what is above the cap's bound (the (max_nodes - 1)-th largest value) is
  // kept: ties at it are left out whole, so a narrow child is always one not above the bound.
  bool capped = false;
  if (!whole && reached.size() + 1 > cap) {
    capped = true;
    if (cap >= 2) {
      std::nth_element(reached.begin(), reached.begin() + long(cap - 2), reached.end(), std::greater<double>());
      min_value = std::max(min_value, reached[cap - 2]);
    } else {
      min_value = HUGE_VAL;
    }
  }
  reached = {};
  std::fill(slot.begin(), slot.end(), -1);
  auto narrow = [&](size_t i) {
    const double v = view.values[i].inclusive;
    return !whole && !(capped ? v > min_value : v >= min_value);
  };
  ViewSlice out;
  bool any_narrow = false;
  for (size_t i = root; i < end; ++i) {
    const int32_t p = i == root ? -1 : slot[size_t(view.parent[i]) - root];
    if (i != root) {
      if (p < 0) continue;  // under a node left out
      LeftOut& why = out.more[size_t(p)];
      if (!depth.empty() && depth[i - root] > max_depth) { why = LeftOut::kAny; continue; }
      if (narrow(i)) { if (why == LeftOut::kNone) why = LeftOut::kNarrow; any_narrow = true; continue; }
      // Values that grow down the tree (never for additive metrics) could pass the cap.
      if (!whole && out.node.size() >= cap) { why = LeftOut::kAny; continue; }
    }
    slot[i - root] = int32_t(out.node.size());
    out.node.push_back(uint32_t(i));
    out.parent.push_back(p);
    out.more.push_back(LeftOut::kNone);
  }
  out.min_value = !any_narrow ? 0.0 : capped ? std::nextafter(min_value, HUGE_VAL) : min_value;
  return out;
}

}  // namespace strata::core

namespace strata::core {

ViewPart CutViewPart(const View& view, size_t root, const SliceBound& bound) {
  ViewPart part;
  part.slice = SliceView(view, root, bound);
  part.frame_id.reserve(part.slice.node.size());
  part.values.reserve(part.slice.node.size());
  for (uint32_t i : part.slice.node) {
    part.frame_id.push_back(view.frame_id[i]);
    part.values.push_back(view.values[i]);
  }
  return part;
}

}  // namespace strata::core
