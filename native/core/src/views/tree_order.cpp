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

void SortPreorder(ViewOutput& out, size_t metric_count, size_t primary) {
  const size_t n = out.parent.size();
  if (n == 0) return;
  Children c = BuildChildren(out.parent.data(), n);
  if (metric_count > 0) {
    const double* incl = out.incl.data();
    for (size_t i = 0; i < n; ++i) {
      auto b = c.child.begin() + c.offset[i], e = c.child.begin() + c.offset[i + 1];
      if (e - b < 2) continue;
      std::sort(b, e, [&](uint32_t x, uint32_t y) {
        double kx = Key(incl[x * metric_count + primary]), ky = Key(incl[y * metric_count + primary]);
        return kx > ky || (kx == ky && x < y);
      });
    }
  }
  // Iterative preorder.
  std::vector<uint32_t> order;
  order.reserve(n);
  std::vector<uint32_t> stack{0};
  while (!stack.empty()) {
    uint32_t v = stack.back();
    stack.pop_back();
    order.push_back(v);
    for (uint32_t j = c.offset[v + 1]; j-- > c.offset[v];) stack.push_back(c.child[j]);
  }
  std::vector<int32_t> new_id(n);
  for (size_t i = 0; i < n; ++i) new_id[order[i]] = int32_t(i);
  out.sorted_parent.resize(n);
  for (size_t i = 0; i < n; ++i) out.sorted_parent[i] = i == 0 ? -1 : new_id[size_t(out.parent[order[i]])];
  out.order = std::move(order);
}

}  // namespace strata::core::detail
