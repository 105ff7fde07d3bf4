// strata report: a profile as a text tree/table or as JSON (docs/report-json.md).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "commands.h"
#include "symbol_paths.h"
#include "strata/core/api.h"
#include "strata/core/report.h"

namespace strata::cli {

int RunReport(const ReportOptions& options) {
  std::string out;
  try {
    core::OpenOptions open;
    open.symbol_paths = SymbolPaths(options.symbol_paths);
    auto profile = core::Profile::Open(options.file, open);
    core::ReportOptions ro;
    if (!options.metric.empty()) {
      auto m = core::FindMetric(*profile, options.metric);
      if (!m) {
        std::string names;
        for (const auto& mi : profile->metrics()) names += (names.empty() ? "" : ", ") + mi.name;
        std::fprintf(stderr, "strata: %s: no metric named '%s' (the profile has: %s)\n",
                     options.file.c_str(), options.metric.c_str(), names.empty() ? "none" : names.c_str());
        return kExitUsage;
      }
      ro.metric = *m;
    }
    const bool json = options.format == "json";
    ro.limit = options.limit >= 0 ? size_t(options.limit) : (json ? 0 : 50);
    core::ViewOptions vo;
    vo.primary_metric = ro.metric;
    vo.expand = false;  // the reports read the compact form
    core::View view = profile->BuildView(core::ParseViewKind(options.view), vo);
    out = json ? core::JsonReport(*profile, view, ro) : core::TextReport(*profile, view, ro);
  } catch (const core::Error& e) {
    std::fprintf(stderr, "strata: %s: %s\n", options.file.c_str(), e.what());
    return kExitError;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : kExitError;
}

}  // namespace strata::cli
