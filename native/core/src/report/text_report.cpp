// Terminal report: meta, then an indented tree (top-down, bottom-up) or a table (flat).
#include <cmath>
#include <cstdio>
#include <string>

#include "../value_format.h"
#include "stall_summary.h"
#include "strata/core/report.h"

namespace strata::core {

namespace {

std::string Percent(double v, double total) {
  char buf[32];
  double p = total > 0 ? 100.0 * v / total : 0.0;
  std::snprintf(buf, sizeof buf, "%6.2f%%", p);
  return buf;
}

// "12.3 ms" for ns-valued metrics, the plain number otherwise.
std::string Amount(double v, const std::string& unit) {
  char buf[64];
  if (unit == "ns") return detail::Duration(v, 2);
  std::snprintf(buf, sizeof buf, "%.6g %s", v, unit.c_str());
  return buf;
}

std::string FileLine(const std::string& file, uint32_t line) {
  std::string s = file;
  size_t slash = s.rfind('/');
  if (slash != std::string::npos) s = s.substr(slash + 1);
  if (line > 0) s += ":" + std::to_string(line);
  return s;
}

// Where a frame is; a fused kernel's frame: every line it fuses ("fuses a.py:20 forward, ...").
std::string Location(const FrameInfo& f) {
  if (!f.fused_lines.empty()) {
    std::string s = "fuses";
    for (size_t i = 0; i < f.fused_lines.size(); ++i) {
      const SourceLine& l = f.fused_lines[i];
      s += (i ? ", " : " ") + FileLine(l.file, l.line);
      if (!l.function.empty()) s += " " + l.function;
    }
    return s;
  }
  if (f.file.empty()) return f.module.empty() ? "" : f.module;
  return FileLine(f.file, f.line);
}

std::string Reasons(const std::vector<detail::StallReason>& reasons) {
  std::string s;
  for (const auto& r : reasons) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " %.1f%%", 100.0 * r.share);
    s += (s.empty() ? "" : ", ") + r.reason + buf;
  }
  return s;
}

// Per kernel: stall reasons, then the lines with most samples (at most 10) and their top 3.
std::string StallSection(const Profile& profile) {
  const auto kernels = detail::SummarizeStalls(profile);
  if (kernels.empty()) return {};
  std::string out = "\nGPU stalls (PC sampling), per kernel and source line:\n";
  for (const auto& k : kernels) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f samples", k.samples);
    out += "\n  " + k.kernel + "  (" + buf + ")\n    stalls: " + Reasons(k.reasons) + "\n";
    size_t shown = 0;
    for (const auto& l : k.lines) {
      if (++shown > 10) { out += "    (" + std::to_string(k.lines.size() - 10) + " more lines)\n"; break; }
      FrameInfo f;
      f.file = l.file;
      f.line = l.line;
      std::string where = l.line ? Location(f) : "(unknown line)";
      std::snprintf(buf, sizeof buf, "    %-24s %8.0f  ", where.c_str(), l.samples);
      out += buf + Reasons(l.top) + "\n";
    }
  }
  return out;
}

}  // namespace

std::string TextReport(const Profile& profile, const View& view, const ReportOptions& options) {
  std::string out;
  const auto& metrics = profile.metrics();
  const auto meta = profile.meta();
  auto meta_value = [&](const char* key) -> const std::string* {
    for (const auto& kv : meta) if (kv.first == key) return &kv.second;
    return nullptr;
  };
  out += "Strata profile (format v" + std::to_string(profile.version()) + ")\n";
  if (auto* v = meta_value("command")) out += "  command: " + *v + "\n";
  if (auto* v = meta_value("exit")) out += "  exit:    " + *v + "\n";
  if (auto* v = meta_value("ended")) out += "  ended:   " + *v + "\n";
  if (auto* v = meta_value("samples")) out += "  samples: " + *v + "\n";
  else if (!metrics.empty()) out += "  samples: " + std::to_string(profile.total_count(0)) + "\n";
  for (const auto& [k, v] : meta) {
    if (k == "command" || k == "exit" || k == "ended" || k == "samples" || k == "exit_code" ||
        k == "exit_signal")
      continue;
    out += "  " + k + ": " + v + "\n";
  }
  const size_t m = options.metric;
  if (metrics.empty() || m >= metrics.size() || m >= view.metric_count) {
    out += "\nThe profile has no metrics.\n";
    return out;
  }
  const MetricInfo& mi = metrics[m];
  const double total = view.size() == 0 ? 0.0 : view.metric(0, m).inclusive;
  out += "\n" + std::string(ViewKindName(view.kind)) + " view, metric " + mi.name + " (" + mi.unit +
         "), total " + Amount(total, mi.unit) + "\n";

  const std::vector<int32_t> ids = SelectNodes(view, m, options.limit);
  if (ids.size() < view.parent.size())
    out += "(showing " + std::to_string(ids.size()) + " of " + std::to_string(view.parent.size()) +
           " nodes; --limit changes this)\n";
  out += "\n";
  if (view.kind == ViewKind::kFlat) {
    out += "  excl%    incl%   exclusive    inclusive   function  location\n";
    for (int32_t id : ids) {
      if (id == 0) continue;
      const auto& nm = view.metric(size_t(id), m);
      const FrameInfo& f = view.frame(size_t(id));
      char buf[64];
      std::snprintf(buf, sizeof buf, "%12s %12s", Amount(nm.exclusive, mi.unit).c_str(),
                    Amount(nm.inclusive, mi.unit).c_str());
      out += Percent(nm.exclusive, total) + "  " + Percent(nm.inclusive, total) + " " + buf + "   " +
             f.name;
      std::string loc = Location(f);
      if (!loc.empty()) out += "  " + loc;
      out += "\n";
    }
    return out + StallSection(profile);
  }
  out += "  incl%    excl%   function  location\n";
  std::vector<int> depth(view.parent.size(), 0);
  for (int32_t id : ids) {
    const int32_t p = view.parent[size_t(id)];
    depth[size_t(id)] = p < 0 ? 0 : depth[size_t(p)] + 1;
    const auto& nm = view.metric(size_t(id), m);
    const FrameInfo& f = view.frame(size_t(id));
    out += Percent(nm.inclusive, total) + "  " + Percent(nm.exclusive, total) + "  ";
    out.append(size_t(std::min(depth[size_t(id)], 64)) * 2, ' ');
    out += f.name;
    std::string loc = Location(f);
    if (!loc.empty()) out += "  " + loc;
    out += "\n";
  }
  return out + StallSection(profile);
}

}  // namespace strata::core
