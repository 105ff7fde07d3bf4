#include "strata/replay/address_plan.h"

#include <algorithm>

namespace strata::replay {

std::vector<Span> PlanSpans(const std::vector<snapshot::Region>& regions, uint64_t granularity) {
  std::vector<Span> spans;
  for (const auto& r : regions) {
    uint64_t start = r.base / granularity * granularity;
    uint64_t end = (r.base + r.size + granularity - 1) / granularity * granularity;
    spans.push_back({start, end - start});
  }
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
  std::vector<Span> merged;
  for (const Span& s : spans) {
    if (!merged.empty() && s.start <= merged.back().start + merged.back().size) {
      uint64_t end = std::max(merged.back().start + merged.back().size, s.start + s.size);
      merged.back().size = end - merged.back().start;
    } else {
      merged.push_back(s);
    }
  }
  return merged;
}

}  // namespace strata::replay
