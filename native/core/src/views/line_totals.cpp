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
  // A lean view, each metric read at every node in turn (Profile::MetricColumn: the values an
  // all-metrics view holds), so that a dozen metrics of a million nodes are never all held.
  ViewOptions options;
  options.expand = false;
  options.all_metrics = false;
  const View view = profile.BuildView(ViewKind::kTopDown, options);
  LineTotals out;
  const auto& table = *view.frame_table;
  // Frames of one (file, line) share one key; the file strings compare by value.
  std::map<std::pair<std::string, uint32_t>, size_t> keys;
  std::vector<size_t> frame_key(table.size(), SIZE_MAX);
  for (size_t f = 0; f < table.size(); ++f) {
    const FrameInfo& fi = table[f];
    if (fi.file.empty() || fi.line == 0) continue;
    frame_key[f] = keys.try_emplace({fi.file, fi.line}, keys.size()).first->second;
  }
  // Backward part: per node, the inclusive values of the outermost backward operators in its
  // subtree (children follow their parent in preorder: a reverse walk sums them upwards).
  const size_t k_count = metrics.size();
  std::vector<char> frame_backward(table.size(), 0);
  bool any_backward = false;
  for (size_t f = 0; f < table.size(); ++f) {
    const FrameInfo& fi = table[f];
    if (fi.kind != "operator") continue;
    const std::string& nm = fi.name;
    const size_t b = nm.rfind("Backward");
    bool digits = b != std::string::npos;
    for (size_t c = b + 8; digits && c < nm.size(); ++c) digits = nm[c] >= '0' && nm[c] <= '9';
    frame_backward[f] = digits || nm.rfind("autograd::engine::evaluate_function", 0) == 0;
    any_backward = any_backward || frame_backward[f];
  }
  // The nodes that count for their line (the outermost frame of the line on their path), each
  // with its line's entry.
  std::vector<size_t> open(keys.size(), 0);     // nodes of the current path on each key
  std::vector<size_t> line_index(keys.size(), SIZE_MAX);
  std::vector<std::pair<uint32_t, uint32_t>> counted;  // (node, entry of out.lines), ascending node
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
      out.lines.push_back({fi.file, fi.line, std::vector<double>(k_count, 0.0), std::vector<double>(k_count, 0.0)});
    }
    counted.push_back({uint32_t(i), uint32_t(line_index[k])});
  }
  std::vector<double> backward;  // per node, of the metric being summed
  for (size_t j = 0; j < k_count; ++j) {
    const std::vector<NodeMetric> column = view.size() ? profile.MetricColumn(view, metrics[j]) : std::vector<NodeMetric>{};
    out.totals.push_back(view.size() ? column[0].inclusive : 0.0);
    if (any_backward) {
      backward.assign(view.size(), 0.0);
      for (size_t i = view.size(); i-- > 1;) {
        if (frame_backward[view.frame_id[i]]) backward[i] = column[i].inclusive;
        backward[size_t(view.parent[i])] += backward[i];
      }
    }
    for (const auto& [i, entry] : counted) {
      auto& line = out.lines[entry];
      line.values[j] += column[i].inclusive;
      if (any_backward) line.backward[j] += backward[i];
    }
  }
  return out;
}

}  // namespace strata::core
