// Native-frame symbolization behind an interface, so that the fuzzer and tests can run the
// core without LLVM (null_symbolizer) and a second implementation can be added later.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace strata::core::detail {

struct SymbolInfo {
  std::string function;  // demangled; "" when unknown
  std::string file;      // "" when unknown
  uint32_t line = 0;     // 0 when unknown
};

class Symbolizer {
 public:
  virtual ~Symbolizer() = default;
  // `address` is the ELF virtual address inside `module_path`. Never throws; returns an empty
  // SymbolInfo when the module is missing, not an ELF file or has no symbols at that address.
  virtual SymbolInfo Symbolize(const std::string& module_path, uint64_t address) = 0;
  // The GNU build id of the ELF file at `module_path`, lowercase hex; "" when the file is
  // missing, not ELF, or has none. A profile recorded on another machine names modules by path:
  // the local file at that path is used only when its build id matches the recorded one.
  virtual std::string BuildId(const std::string& module_path) = 0;
  // Demangles an Itanium C++ name ("_Z3fooi" -> "foo(int)"); other names come back unchanged.
  virtual std::string Demangle(std::string_view name) = 0;
};

// The DWARF symbolizer (LLVM). Defined in dwarf_symbolizer.cpp; the fuzzer links
// native/fuzz/null_symbolizer.cpp instead. `debug_dirs`: where separate debug files are looked
// for (.gnu_debuglink and build-id layouts), besides the module's own folder and /usr/lib/debug.
std::unique_ptr<Symbolizer> MakeDefaultSymbolizer(const std::vector<std::string>& debug_dirs = {});

}  // namespace strata::core::detail
