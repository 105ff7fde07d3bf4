// --limit: the N nodes with the largest inclusive value plus their ancestors.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "strata/core/report.h"

namespace strata::core {

std::vector<int32_t> SelectNodes(const View& view, size_t metric, size_t limit) {
  const size_t n = view.parent.size();
  std::vector<int32_t> ids;
  if (limit == 0 || limit >= n) {
    ids.resize(n);
    std::iota(ids.begin(), ids.end(), 0);
    return ids;
  }
  auto value = [&](int32_t i) {
    double v = metric < view.metric_count ? view.metric(size_t(i), metric).inclusive : 0.0;
    return std::isnan(v) ? -HUGE_VAL : v;
  };
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::nth_element(order.begin(), order.begin() + long(limit), order.end(), [&](int32_t a, int32_t b) {
    double va = value(a), vb = value(b);
    return va > vb || (va == vb && a < b);
  });
  std::vector<char> keep(n, 0);
  for (size_t k = 0; k < limit; ++k)
    for (int32_t v = order[k]; v >= 0 && !keep[size_t(v)]; v = view.parent[size_t(v)]) keep[size_t(v)] = 1;
  for (size_t i = 0; i < n; ++i) if (keep[i]) ids.push_back(int32_t(i));
  return ids;
}

}  // namespace strata::core
