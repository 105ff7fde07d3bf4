// strata export: a profile's calling context tree in another tool's format (the core writes it).
#include <cstdio>

#include "commands.h"
#include "strata/core/api.h"
#include "strata/core/export.h"
#include "symbol_paths.h"

namespace strata::cli {

int RunExport(const ExportOptions& options) {
  core::ExportFormat format;
  try {
    format = core::ParseExportFormat(options.format);
  } catch (const core::Error& e) {
    std::fprintf(stderr, "strata export: %s\n", e.what());
    return kExitUsage;
  }
  try {
    core::OpenOptions open;
    open.symbol_paths = SymbolPaths(options.symbol_paths);
    auto profile = core::Profile::Open(options.file, open);
    core::ExportProfileToFile(*profile, format, options.output, options.file);
  } catch (const core::Error& e) {
    std::fprintf(stderr, "strata: %s: %s\n", options.file.c_str(), e.what());
    return kExitError;
  }
  std::fprintf(stderr, "strata: wrote %s\n", options.output.c_str());
  return 0;
}

}  // namespace strata::cli
