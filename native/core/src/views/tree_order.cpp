// Shared tree helpers for the views: children lists, stored inclusive sums, preorder sorting.
#include <algorithm>
#include <cmath>
#include <utility>

#include "view_builder.h"

namespace strata::core::detail {

namespace {
template <typename ParentOf>
Children BuildChildrenImpl(size_t n, ParentOf parent_of) {
  Children c;
  c.offset.assign(n + 1, 0);
  for (size_t i = 1; i < n; ++i) ++c.offset[parent_of(i) + 1];
  for (size_t i = 0; i < n; ++i) c.offset[i + 1] += c.offset[i];
  c.child.resize(n ? n - 1 : 0);
  std::vector<uint32_t> fill(c.offset.begin(), c.offset.end() - 1);
  for (size_t i = 1; i < n; ++i) c.child[fill[parent_of(i)]++] = uint32_t(i);
  return c;
}

// NaN sorts last, so a hostile value can never break the strict weak ordering.
inline double Key(double v) { return std::isnan(v) ? -HUGE_VAL : v; }
}  // namespace

Children BuildChildren(const int32_t* parent, size_t n) {
  return BuildChildrenImpl(n, [parent](size_t i) { return uint32_t(parent[i]); });
}

Children BuildChildren(const format::NodeRecord* nodes, size_t n) {
  return BuildChildrenImpl(n, [nodes](size_t i) { return nodes[i].parent; });
}

std::vector<double> StoredInclusive(const ViewInput& in) {
  const size_t m = in.metric_count;
  std::vector<double> incl(in.node_count * m);
  for (size_t i = 0; i < in.node_count * m; ++i) incl[i] = in.excl[i].sum;
  for (size_t i = in.node_count; i-- > 1;) {
    const size_t p = in.nodes[i].parent;
    for (size_t k = 0; k < m; ++k) incl[p * m + k] += incl[i * m + k];
  }
  return incl;
}

void SortChildrenOf(Children& c, size_t node, const double* incl, size_t metric_count, size_t primary,
                    std::vector<std::pair<double, uint32_t>>& keyed) {
  const uint32_t b = c.offset[node], e = c.offset[node + 1];
  if (e - b < 2 || metric_count == 0) return;
  // Each child's key read once, in list order (independent loads overlap), then sorted with
  // its id: sorting by reading the keys through ids would wait on a miss per comparison.
  keyed.clear();
  for (uint32_t j = b; j < e; ++j) keyed.push_back({Key(incl[size_t(c.child[j]) * metric_count + primary]), c.child[j]});
  std::sort(keyed.begin(), keyed.end(), [](const auto& x, const auto& y) {
    return x.first > y.first || (x.first == y.first && x.second < y.second);
  });
  for (uint32_t j = b; j < e; ++j) c.child[j] = keyed[j - b].second;
}

void SortPreorder(ViewOutput& out, size_t metric_count, size_t primary, Children* children) {
  const size_t n = out.parent.size();
  if (n == 0) return;
  Children built;
  if (!children) built = BuildChildren(out.parent.data(), n);
  Children& c = children ? *children : built;
  if (metric_count > 0) {
    std::vector<std::pair<double, uint32_t>> keyed;
    for (size_t i = 0; i < n; ++i) SortChildrenOf(c, i, out.incl.data(), metric_count, primary, keyed);
  }
  // Preorder positions without walking the tree (a walk waits on one cache miss after another
  // over a million nodes): a node's first child follows it, each next child follows the
  // previous one's subtree. Parents come before children, so one pass in id order places all.
  std::vector<uint32_t> size(n, 1);
  for (size_t i = n; i-- > 1;) size[size_t(out.parent[i])] += size[i];
  std::vector<uint32_t> pos(n);
  pos[0] = 0;
  for (size_t v = 0; v < n; ++v) {
    uint32_t next = pos[v] + 1;
    for (uint32_t j = c.offset[v]; j < c.offset[v + 1]; ++j) {
      const uint32_t child = c.child[j];
      pos[child] = next;
      next += size[child];
    }
  }
  std::vector<uint32_t> order(n);
  out.sorted_parent.resize(n);
  for (size_t v = 0; v < n; ++v) {
    order[pos[v]] = uint32_t(v);
    out.sorted_parent[pos[v]] = v == 0 ? -1 : int32_t(pos[size_t(out.parent[v])]);
  }
  out.order = std::move(order);
}

}  // namespace strata::core::detail
