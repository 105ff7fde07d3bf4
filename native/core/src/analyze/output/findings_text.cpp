// `strata analyze --format text`: one block per finding, for a terminal.
#include <algorithm>

#include "../../value_format.h"
#include "strata/core/analyze.h"

namespace strata::core {

std::string FindingsText(const AnalysisResult& result) {
  std::string out;
  for (const auto& e : result.errors) out += "error: " + e + "\n";
  if (result.findings.empty()) {
    out += "no findings\n";
    return out;
  }
  for (const auto& f : result.findings) {
    std::string where = f.location.file.empty() ? std::string("(no source line)")
                                                : f.location.file + ":" + std::to_string(f.location.line);
    out += f.severity + " [" + f.rule + "] " + where + "\n  " + f.message + "\n";
    if (!f.path.empty()) {
      out += "  path:";
      size_t first = f.path.size() > 6 ? f.path.size() - 6 : 0;
      if (first) out += " ... >";
      for (size_t i = first; i < f.path.size(); ++i)
        out += std::string(i > first ? " >" : "") + " " + detail::Where(f.path[i].name, f.path[i].file, f.path[i].line);
      out += "\n";
    }
    // The merged call paths, each by its last frames (where it differs from the others).
    const size_t shown = std::min<size_t>(f.other_paths.size(), 3);
    for (size_t k = 0; k < shown; ++k) {
      const auto& p = f.other_paths[k];
      out += "  also:";
      size_t first = p.size() > 3 ? p.size() - 3 : 0;
      if (first) out += " ... >";
      for (size_t i = first; i < p.size(); ++i)
        out += std::string(i > first ? " >" : "") + " " + detail::Where(p[i].name, p[i].file, p[i].line);
      out += "\n";
    }
    if (f.other_paths.size() > shown)
      out += "  and " + std::to_string(f.other_paths.size() - shown) + " more call path" +
             (f.other_paths.size() - shown > 1 ? "s" : "") + " (--format json: other_paths)\n";
  }
  out += std::to_string(result.findings.size()) + " finding" + (result.findings.size() == 1 ? "" : "s") + "\n";
  return out;
}

}  // namespace strata::core
