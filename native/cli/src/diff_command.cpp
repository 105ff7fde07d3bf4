// strata diff: two runs compared call path by call path (the core matches and ranks them).
#include <cstdio>

#include "commands.h"
#include "strata/core/api.h"
#include "strata/core/profile_diff.h"
#include "symbol_paths.h"

namespace strata::cli {

int RunDiff(const DiffOptions& options) {
  core::OpenOptions open;
  open.symbol_paths = SymbolPaths(options.symbol_paths);
  std::unique_ptr<core::Profile> a, b;
  for (const auto& [file, profile] : {std::pair{&options.a, &a}, std::pair{&options.b, &b}}) {
    try {
      *profile = core::Profile::Open(*file, open);
    } catch (const core::Error& e) {
      std::fprintf(stderr, "strata: %s: %s\n", file->c_str(), e.what());
      return kExitError;
    }
  }
  try {
    const core::ProfileDiff diff = core::DiffProfiles(*a, *b, options.metric, options.limit);
    const std::string text = core::DiffText(diff, options.limit);
    std::fwrite(text.data(), 1, text.size(), stdout);
  } catch (const core::Error& e) {
    std::fprintf(stderr, "strata diff: %s\n", e.what());
    return kExitError;
  }
  return std::fflush(stdout) == 0 ? 0 : kExitError;
}

}  // namespace strata::cli
