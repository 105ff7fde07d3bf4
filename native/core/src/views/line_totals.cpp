// Line totals (SumLines in strata/core/api.h): one compact top-down view, walked once for every
// metric asked for.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "strata/core/api.h"

namespace strata::core {

LineTotals SumLines(const Profile& profile, const std::vector<size_t>& metrics) {
  for (size_t m : metrics)
    if (m >= profile.metrics().size())
      throw Error("metric index " + std::to_string(m) + " is out of range (the profile has " +
                  std::to_string(profile.metrics().size()) + " metrics)");
  ViewOptions options;
  options.expand = false;
  const View view = profile.BuildView(ViewKind::kTopDown, options);
  LineTotals out;
  for (size_t m : metrics) out.totals.push_back(view.size() && m < view.metric_count ? view.metric(0, m).inclusive : 0.0);
  const auto& table = *view.frame_table;
  // Frames of one (file, line) share one key; the file strings compare by value.
  std::map<std::pair<std::string, uint32_t>, size_t> keys;
  std::vector<size_t> frame_key(table.size(), SIZE_MAX);
  for (size_t f = 0; f < table.size(); ++f) {
    const FrameInfo& fi = table[f];
    if (fi.file.empty() || fi.line == 0) continue;
    frame_key[f] = keys.try_emplace({fi.file, fi.line}, keys.size()).first->second;
  }
  std::vector<size_t> open(keys.size(), 0);     // nodes of the current path on each key
  std::vector<size_t> line_index(keys.size(), SIZE_MAX);
  std::vector<size_t> stack;
  for (size_t i = 1; i < view.size(); ++i) {
    const size_t parent = size_t(view.parent[i]);
    while (!stack.empty() && stack.back() != parent) {
      const size_t k = frame_key[view.frame_id[stack.back()]];
      if (k != SIZE_MAX) --open[k];
      stack.pop_back();
    }
    stack.push_back(i);
    const size_t k = frame_key[view.frame_id[i]];
    if (k == SIZE_MAX) continue;
    if (open[k]++ > 0) continue;  // an outer frame of this path already counted this line
    if (line_index[k] == SIZE_MAX) {
      const FrameInfo& fi = view.frame(i);
      line_index[k] = out.lines.size();
      out.lines.push_back({fi.file, fi.line, std::vector<double>(metrics.size(), 0.0)});
    }
    auto& values = out.lines[line_index[k]].values;
    for (size_t j = 0; j < metrics.size(); ++j) values[j] += view.metric(i, metrics[j]).inclusive;
  }
  return out;
}

}  // namespace strata::core
