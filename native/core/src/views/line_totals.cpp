// Line totals (SumLines in strata/core/api.h): one compact top-down view, walked once for every
// metric asked for.
#include <algorithm>
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
  // Frames of one (file, line) share one key; the file strings compare by value. A frame opens
  // its own line's key; a fused kernel's frame opens the keys of every line it fuses.
  std::map<std::pair<std::string, uint32_t>, size_t> keys;
  std::vector<std::pair<std::string, uint32_t>> key_line;
  auto key_of = [&](const std::string& file, uint32_t line) {
    auto [it, fresh] = keys.try_emplace({file, line}, keys.size());
    if (fresh) key_line.emplace_back(file, line);
    return it->second;
  };
  // Per frame its own line's key, and (CSR, only fused frames have any) the keys of the other
  // lines it fuses: 12 bytes a frame, a profile's frame table can be millions long.
  std::vector<size_t> frame_key(table.size(), SIZE_MAX);
  std::vector<uint32_t> fused_offset(table.size() + 1, 0);
  std::vector<size_t> fused_key;
  for (size_t f = 0; f < table.size(); ++f) {
    const FrameInfo& fi = table[f];
    if (!fi.file.empty() && fi.line != 0) frame_key[f] = key_of(fi.file, fi.line);
    for (const SourceLine& l : fi.fused_lines) {
      if (l.file.empty() || l.line == 0) continue;
      const size_t k = key_of(l.file, l.line);
      if (k != frame_key[f] && std::find(fused_key.begin() + fused_offset[f], fused_key.end(), k) == fused_key.end())
        fused_key.push_back(k);
    }
    fused_offset[f + 1] = uint32_t(fused_key.size());
  }
  const auto fused_frame = [&](uint32_t f) { return fused_offset[f + 1] > fused_offset[f]; };
  // Calls fn(key) for every key frame `f` opens.
  const auto for_keys = [&](uint32_t f, auto&& fn) {
    if (frame_key[f] != SIZE_MAX) fn(frame_key[f]);
    for (uint32_t x = fused_offset[f]; x < fused_offset[f + 1]; ++x) fn(fused_key[x]);
  };
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
  // The nodes that count for a line (the outermost frame of the line on their path; a fused
  // kernel's frame also for each line it fuses), each with its line's entry.
  std::vector<size_t> open(keys.size(), 0);        // nodes of the current path on each key
  std::vector<size_t> open_fused(keys.size(), 0);  // fused frames of the current path on each key
  std::vector<size_t> line_index(keys.size(), SIZE_MAX);
  struct Counted {
    uint32_t node, entry;  // the node, its line's entry of out.lines
    bool count, fused;     // counts for the line's value; for its fused part
  };
  std::vector<Counted> counted;  // ascending node
  std::vector<size_t> stack;
  auto line_at = [&](size_t k) -> LineTotals::Line& {
    if (line_index[k] == SIZE_MAX) {
      line_index[k] = out.lines.size();
      out.lines.push_back({key_line[k].first, key_line[k].second, std::vector<double>(k_count, 0.0),
                           std::vector<double>(k_count, 0.0), std::vector<double>(k_count, 0.0)});
    }
    return out.lines[line_index[k]];
  };
  for (size_t i = 1; i < view.size(); ++i) {
    const size_t parent = size_t(view.parent[i]);
    while (!stack.empty() && stack.back() != parent) {
      const uint32_t f = view.frame_id[stack.back()];
      const bool fused = fused_frame(f);
      for_keys(f, [&](size_t k) {
        --open[k];
        if (fused) --open_fused[k];
      });
      stack.pop_back();
    }
    stack.push_back(i);
    const uint32_t f = view.frame_id[i];
    const bool is_fused = fused_frame(f);
    for_keys(f, [&](size_t k) {
      // An outer frame of this path already counted this line: not again (recursion, or a
      // fused kernel placed under one of the lines it fuses).
      const bool count = open[k]++ == 0;
      const bool fused = is_fused && open_fused[k]++ == 0;
      if (!count && !fused) return;
      line_at(k);
      counted.push_back({uint32_t(i), uint32_t(line_index[k]), count, fused});
    });
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
    for (const Counted& c : counted) {
      auto& line = out.lines[c.entry];
      if (c.count) line.values[j] += column[c.node].inclusive;
      if (c.count && any_backward) line.backward[j] += backward[c.node];
      if (c.fused) line.fused[j] += column[c.node].inclusive;
    }
  }
  return out;
}

}  // namespace strata::core
