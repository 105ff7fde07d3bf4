// The scripts `strata trace` runs cuda-gdb with (cuda_gdb_script.cpp).
#pragma once

#include <string>

namespace strata::cli {

// cuda-gdb's Python (`-x FILE.py`): parameters through STRATA_TRACE_{LOG,KERNEL,BLOCK,THREAD,MAX};
// writes the JSON-lines log core::ParseCudaGdbLog reads.
const char* CudaGdbPythonScript();
// A plain command file for a cuda-gdb without Python: a breakpoint on the kernel, the focus,
// `x/i $pc` + `stepi` MAX times (its stdout is the log).
std::string CudaGdbCommandFile(const std::string& kernel, const std::string& block, const std::string& thread, long max_instructions);

}  // namespace strata::cli
