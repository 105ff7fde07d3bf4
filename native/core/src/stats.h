// Exclusive statistics of one metric (Welford form, as stored in NodeMetricRecord).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "strata/core/api.h"

namespace strata::core::detail {

struct Stats {
  uint64_t count = 0;
  double sum = 0, min = 0, max = 0, m2 = 0;
  bool present = false;  // a record (or a merge of records) exists

  // Chan et al. parallel merge of two (count, mean, m2) summaries.
  void Merge(const Stats& o) {
    if (!o.present) return;
    if (!present) { *this = o; return; }
    if (o.count == 0) { sum += o.sum; return; }
    if (count == 0) { double s = sum; *this = o; sum += s; return; }
    double n1 = double(count), n2 = double(o.count);
    double delta = o.sum / n2 - sum / n1;
    m2 = m2 + o.m2 + delta * delta * (n1 * n2 / (n1 + n2));
    count += o.count;
    sum += o.sum;
    min = std::min(min, o.min);
    max = std::max(max, o.max);
  }

  NodeMetric ToNodeMetric(double inclusive) const {
    NodeMetric m;
    m.inclusive = inclusive;
    m.exclusive = sum;
    m.count = count;
    if (count > 0) {
      m.min = min;
      m.max = max;
      m.mean = sum / double(count);
      m.std = std::sqrt(std::max(0.0, m2 / double(count)));
    }
    return m;
  }
};

}  // namespace strata::core::detail
