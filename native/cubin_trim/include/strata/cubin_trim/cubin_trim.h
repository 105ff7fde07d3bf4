// Cuts a cubin (a CUDA ELF64 image, e_machine EM_CUDA) down to the code of the functions a
// profile has PC samples in, so that the profile carries that code and its line tables and not
// every kernel of every library the program loaded. Plain C++17: the runtime links it (it trims
// at write time) and the core's tests check that the core reads a trimmed cubin as the original.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace strata::cubin_trim {

struct TrimmedCubin {
  std::string bytes;             // the trimmed ELF image; "" when `error` is set
  size_t functions_kept = 0;     // functions whose code is kept (those asked for, their callees)
  size_t functions_dropped = 0;  // functions whose code was removed
  size_t functions_missing = 0;  // names in `keep` that no function of the cubin has
  std::string error;             // one line ("cubin: ...") when the image could not be trimmed
};

// Keeps every section header and every symbol, so the indices that .nv.info, .nv.callgraph,
// relocations and the code sections' sh_info hold stay valid, and keeps the module-wide
// sections (line tables, notes) whole, and .debug_frame less the CIEs and FDEs of the functions
// whose code goes (their relocations with them). The code section of each function neither in
// `keep` nor called (per .nv.callgraph) from one that is keeps only a stub: the first instruction
// (16 bytes; a 32-byte bundle before sm_70) of each of its functions, whose symbols move there (so every function symbol still lies
// inside its section's bytes with a non-zero size: nvdisasm rejects a cubin otherwise); its
// relocation sections, constant banks and attributes (.nv.info.<function>) become empty (size
// 0), and those functions are renamed "$d<symbol index>" in the symbol table and in their sections' names
// (".text.$d14"): names are most of what is left of a library module otherwise. The string
// tables are rebuilt with the names in use. Section data keep their order and alignment;
// program headers are moved with the sections they cover. Bytes of kept code sections, line
// tables and the other sections are copied unchanged. Fails (error set) on anything that is not a
// readable ELF64 little-endian cubin, and when no function of `keep` is in it.
TrimmedCubin TrimCubin(std::string_view elf, const std::vector<std::string>& keep);

}  // namespace strata::cubin_trim
