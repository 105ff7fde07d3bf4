// The cubin's line table (.debug_line, DWARF v2, written by `nvcc -lineinfo`) per function:
// pc offset -> innermost source file and line. The table says nothing about inlining (NVIDIA
// keeps that in a prologue extension LLVM does not decode); the SASS listing does.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cubin_reader.h"

namespace strata::core::gpu {

struct LineRow {
  uint64_t address = 0;  // pc offset inside the function
  std::string file;      // absolute path as recorded ("" for the end-of-sequence row)
  uint32_t line = 0;     // 0: no line from here on (end of sequence)
};

struct CubinLines {
  // Rows per mangled function name, ascending by address, ending with the end-of-sequence row.
  // Rows sharing an address keep their table order: the last is the innermost line.
  std::map<std::string, std::vector<LineRow>> functions;
  std::string error;  // one line when the table could not be used ("" otherwise)

  // The line in effect at `pc` in `function`, nullptr when unknown.
  const LineRow* Find(const std::string& function, uint64_t pc) const;
};

// Decodes cubin.debug_line. Each line-program sequence covers one function with addresses
// starting at 0; sequence k (file order) belongs to the symbol of the k-th relocation of
// .rela.debug_line (by offset). A cubin without a line table gives no functions and no error;
// a table that cannot be matched to functions gives no functions and `error`.
CubinLines DecodeCubinLines(const Cubin& cubin);

}  // namespace strata::core::gpu
