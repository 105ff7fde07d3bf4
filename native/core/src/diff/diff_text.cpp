// strata/core/profile_diff.h DiffText: the rows as a terminal table, each frame with its
// nearest callers so that a reader sees where the changed path runs.
#include <cmath>

#include "../value_format.h"
#include "strata/core/profile_diff.h"

namespace strata::core {
namespace {

constexpr size_t kCallersShown = 4;

std::string Value(double v, const MetricInfo& metric) {
  return metric.unit == "ns" ? detail::Duration(std::fabs(v), 2) : detail::Number(std::fabs(v));
}

std::string Signed(double v, const MetricInfo& metric) { return (v < 0 ? "-" : "+") + Value(v, metric); }

std::string Where(const FrameInfo& f) {
  std::string out = f.name.empty() ? "[" + f.kind + "]" : f.name;
  if (!f.file.empty()) out += "  " + f.file + (f.line ? ":" + std::to_string(f.line) : "");
  return out;
}

std::string Column(const std::string& s, size_t width) {
  return s.size() >= width ? s + " " : std::string(width - s.size(), ' ') + s + " ";
}

}  // namespace

std::string DiffText(const ProfileDiff& diff, size_t limit) {
  const MetricInfo& m = diff.metric;
  const size_t only_a = diff.only_a_paths, only_b = diff.only_b_paths;
  std::string out = "diff of " + m.name + " (" + m.unit + "): A " + Value(diff.total_a, m) + ", B " +
                    Value(diff.total_b, m) + ", change " + Signed(diff.total_b - diff.total_a, m);
  if (diff.total_a != 0) out += " (" + (diff.total_b >= diff.total_a ? std::string("+") : std::string("-")) +
                                detail::Percent(std::fabs(diff.total_b - diff.total_a) / diff.total_a) + ")";
  out += "\ncall paths: " + std::to_string(diff.common_paths) + " in both, " + std::to_string(only_a) +
         " only in A, " + std::to_string(only_b) + " only in B";
  if (diff.fuzzy_paths) out += " (" + std::to_string(diff.fuzzy_paths) + " of those in both matched fuzzily: a moved line or another instantiation)";
  out += "\n\n";
  out += Column("change", 12) + Column("A", 11) + Column("B", 11) + " frame (callers below, nearest first)\n";
  const size_t n = limit == 0 ? diff.rows.size() : std::min(limit, diff.rows.size());
  for (size_t i = 0; i < n; ++i) {
    const DiffRow& r = diff.rows[i];
    if (r.change() == 0) break;
    const std::string tag = r.a == 0 ? "  [only in B]" : r.b == 0 ? "  [only in A]" : r.match == DiffMatch::kFuzzy ? "  [fuzzy match]" : "";
    out += Column(Signed(r.change(), m), 12) + Column(Value(r.a, m), 11) + Column(Value(r.b, m), 11) + " " +
           (r.path.empty() ? std::string("<root>") : Where(r.path.back())) + tag + "\n";
    // The user's own line the path runs through, however deep below it the change is.
    for (size_t k = r.path.size(); k-- > 0;)
      if (r.path[k].origin == FrameOrigin::kUser && !r.path[k].file.empty()) {
        if (k + 1 < r.path.size()) out += std::string(37, ' ') + "in your code: " + Where(r.path[k]) + "\n";
        break;
      }
    for (size_t k = 1; k <= kCallersShown && k < r.path.size(); ++k)
      out += std::string(37, ' ') + "<- " + Where(r.path[r.path.size() - 1 - k]) + "\n";
    if (r.path.size() > kCallersShown + 1)
      out += std::string(37, ' ') + "<- ... " + std::to_string(r.path.size() - 1 - kCallersShown) + " more\n";
  }
  for (const auto& [title, list] : {std::pair{"kernels only in B (appeared)", &diff.appeared},
                                    std::pair{"kernels only in A (vanished)", &diff.vanished}}) {
    if (list->empty()) continue;
    out += std::string("\n") + title + ":\n";
    const size_t shown = limit == 0 ? list->size() : std::min(limit, list->size());
    for (size_t i = 0; i < shown; ++i) out += Column(Value((*list)[i].value, m), 12) + " " + (*list)[i].name + "\n";
    if (shown < list->size()) out += std::string(13, ' ') + "... " + std::to_string(list->size() - shown) + " more\n";
  }
  return out;
}

}  // namespace strata::core
