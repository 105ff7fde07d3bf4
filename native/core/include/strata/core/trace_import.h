// `strata import`: another tool's file as a Strata profile, its format told by its content.
#pragma once

#include <string>

namespace strata::core {

// A gzipped pprof profile (strata/core/pprof_import.h), a speedscope file
// (strata/core/speedscope_import.h) or else a PyTorch-profiler (Kineto) trace
// (strata/core/kineto_import.h), the JSON ones also gzipped (torch.profiler's .json.gz), written to `profile_path` atomically: nothing is written on any
// error. Throws Error (one line; for a file that is neither, the Kineto reader's reason).
void ImportTraceFile(const std::string& trace_path, const std::string& profile_path);

}  // namespace strata::core
