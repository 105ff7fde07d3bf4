// strata import: a pprof profile, a speedscope file or a PyTorch-profiler (Kineto) trace as a
// Strata profile (the core tells which and converts it).
#include <cstdio>

#include "commands.h"
#include "strata/core/api.h"
#include "strata/core/trace_import.h"

namespace strata::cli {

int RunImport(const ImportOptions& options) {
  try {
    core::ImportTraceFile(options.trace, options.output);
  } catch (const core::Error& e) {
    std::fprintf(stderr, "strata: %s: %s\n", options.trace.c_str(), e.what());
    return kExitError;
  }
  std::fprintf(stderr, "strata: wrote %s\n", options.output.c_str());
  return 0;
}

}  // namespace strata::cli
