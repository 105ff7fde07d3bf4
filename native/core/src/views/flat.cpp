// Flat view: the root plus one child per distinct function. A function's inclusive value is
// the sum over the sample paths that contain it, counted once per path even under recursion
// (computed as the sum of the stored inclusive values of its outermost occurrences on each
// path). Its exclusive statistics merge (Chan) those of every stored node of that function.
// The frame shown is that of the function's heaviest stored node (by inclusive value).
#include "view_builder.h"

namespace strata::core::detail {

ViewOutput BuildFlat(const ViewInput& in) {
  const size_t n = in.node_count, m = in.metric_count, p = in.primary;
  const std::vector<double> td = StoredInclusive(in);
  const Children c = BuildChildren(in.nodes, n);

  std::vector<int32_t> row_of(in.func_count, -1);
  ViewOutput out;
  std::vector<double> best;
  out.parent.push_back(-1);
  out.frame.push_back(in.nodes[0].frame);
  out.incl.assign(td.begin(), td.begin() + m);
  out.excl_storage.assign(in.excl, in.excl + m);
  best.push_back(0);

  std::vector<uint32_t> on_path(in.func_count, 0);
  struct Entry { uint32_t node, next; };
  std::vector<Entry> stack;
  stack.push_back({0, c.offset[0]});
  while (!stack.empty()) {
    Entry& e = stack.back();
    if (e.next == c.offset[e.node + 1]) {
      if (e.node != 0) --on_path[in.node_func[e.node]];
      stack.pop_back();
      continue;
    }
    const uint32_t v = c.child[e.next++];
    const uint32_t f = in.node_func[v];
    int32_t row = row_of[f];
    const double weight = m ? td[size_t(v) * m + p] : 0.0;
    if (row < 0) {
      row = row_of[f] = int32_t(out.parent.size());
      out.parent.push_back(0);
      out.frame.push_back(in.nodes[v].frame);
      best.push_back(weight);
      out.incl.resize(out.incl.size() + m, 0.0);
      out.excl_storage.resize(out.excl_storage.size() + m);
    } else if (weight > best[row]) {
      best[row] = weight;
      out.frame[row] = in.nodes[v].frame;
    }
    if (on_path[f]++ == 0)
      for (size_t k = 0; k < m; ++k) out.incl[size_t(row) * m + k] += td[size_t(v) * m + k];
    for (size_t k = 0; k < m; ++k) out.excl_storage[size_t(row) * m + k].Merge(in.excl[size_t(v) * m + k]);
    stack.push_back({v, c.offset[v]});  // invalidates e; not used after this
  }
  out.excl = out.excl_storage.data();
  SortPreorder(out, m, p);
  return out;
}

}  // namespace strata::core::detail
