// Finding and running NVIDIA's disassembler (fork/exec, no shell).
#pragma once

#include <string>

namespace strata::core::gpu {

// $STRATA_NVDISASM, then nvdisasm on PATH, $CUDA_HOME/bin, /usr/local/cuda/bin; "" when none is
// an executable file.
std::string FindNvdisasm();

struct ToolRun {
  bool ok = false;      // exited with status 0
  std::string out;      // stdout
  std::string error;    // one line when !ok: why (exit status and the first stderr line)
};

// `nvdisasm -c -gi CUBIN_PATH`: code only, with source lines and the inlining chain.
ToolRun RunNvdisasm(const std::string& nvdisasm, const std::string& cubin_path);
// "V13.0.88" from `nvdisasm --version`, "" when it says none.
std::string NvdisasmVersion(const std::string& nvdisasm);

}  // namespace strata::core::gpu
