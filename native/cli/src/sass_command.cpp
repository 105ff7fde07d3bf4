// `strata sass FILE [--nvdisasm PATH]`: embeds the SASS listings of the cubins a profile carries
// (for a profile recorded where nvdisasm was missing); `strata record` does the same at exit.
#include <cstdio>

#include "commands.h"
#include "strata/core/api.h"

namespace strata::cli {

std::string EmbedSass(const std::string& profile, const std::string& nvdisasm) {
  std::string status;
  core::EmbedSassListings(profile, nvdisasm.empty() ? core::FindNvdisasm() : nvdisasm, &status);
  return status;
}

int RunSass(const SassOptions& options) {
  try {
    if (!core::ProfileHasCubins(options.file)) {
      std::fprintf(stderr, "strata: %s carries no GPU code (cubins): nothing to disassemble\n", options.file.c_str());
      return kExitError;
    }
    std::string status = EmbedSass(options.file, options.nvdisasm);
    std::printf("%s: sass %s\n", options.file.c_str(), status.c_str());
    return status.rfind("embedded:", 0) == 0 ? 0 : kExitError;
  } catch (const core::Error& e) {
    std::fprintf(stderr, "strata: %s: %s\n", options.file.c_str(), e.what());
    return kExitError;
  }
}

}  // namespace strata::cli
