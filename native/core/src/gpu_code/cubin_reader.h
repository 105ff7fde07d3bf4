// Reads what the analysis needs from a cubin (a CUDA ELF64 image, e_machine EM_CUDA = 190):
// its functions and the raw line-table bytes with their relocations. LLVM's Object library
// does the ELF parsing; nothing here knows DWARF (cubin_lines does).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace strata::core::gpu {

struct CubinFunction {
  std::string name;  // mangled, e.g. "_Z9mem_chainPKjPjji"
  uint64_t size = 0; // bytes of its code (the STT_FUNC symbol's size)
  std::string code;  // those bytes (16 per instruction on sm_70 and later)
  uint64_t static_shared_bytes = 0;  // the size of its .nv.shared.<name> section (0: none)
  uint32_t max_threads = 0;          // threads per block from __launch_bounds__ (.nv.info.<name>
                                     // EIATTR_MAX_THREADS, x*y*z); 0 when not declared
};

struct CubinLineRelocation {
  uint64_t offset = 0;    // r_offset inside .debug_line
  std::string symbol;     // the function whose sequence starts there
};

struct Cubin {
  std::vector<CubinFunction> functions;  // STT_FUNC symbols, each in its own .text.<name>
  std::string debug_line;                // .debug_line bytes ("" without -lineinfo)
  std::vector<CubinLineRelocation> line_relocations;  // .rela.debug_line, sorted by offset
};

// Parses `bytes` (copied; the caller's buffer need not outlive the result). Throws
// strata::core::Error with one line ("cubin: ...") on anything that is not a readable cubin.
Cubin ReadCubin(std::string_view bytes);

}  // namespace strata::core::gpu
