// Maps native PCs to (module, address in module, dynamic symbol). Runs on the aggregator
// thread only: it calls dl_iterate_phdr, which is not async-signal-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "aggregator/dynamic_symbols.h"

namespace strata::rt {

struct ModuleInfo {
  std::string path;
  std::string loader_name;  // dl_iterate_phdr's dlpi_name ("" for the main program)
  std::string build_id;   // lowercase hex of NT_GNU_BUILD_ID, "" if none
  uint64_t load_bias = 0;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // executable PT_LOAD [begin, end)
};

class ModuleMap {
 public:
  // Index into modules() of the module holding pc, refreshing the list once if unknown.
  // -1 when no loaded object covers pc (JIT code, unmapped).
  int Find(uint64_t pc);
  const std::vector<ModuleInfo>& modules() const { return modules_; }
  void Refresh();
  // Dynamic symbol of modules()[module] containing pc (what dladdr1 + the st_size check would
  // say; dynamic_symbols.h says why not dladdr), "" when none.
  std::string SymbolName(int module, uint64_t pc);

 private:
  int Lookup(uint64_t pc) const;
  std::vector<ModuleInfo> modules_;
  // Read once per loaded object (load bias, loader name); kept across Refresh.
  std::map<std::pair<uint64_t, std::string>, DynamicSymbols> symbols_;
};

}  // namespace strata::rt
