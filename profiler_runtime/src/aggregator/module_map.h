// Maps native PCs to (module, address in module, dynamic symbol). Runs on the aggregator
// thread only: it calls dl_iterate_phdr and dladdr, which are not async-signal-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strata::rt {

struct ModuleInfo {
  std::string path;
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
  // Dynamic symbol containing pc (dladdr + st_size check), "" when none.
  static std::string SymbolName(uint64_t pc);

 private:
  int Lookup(uint64_t pc) const;
  std::vector<ModuleInfo> modules_;
};

}  // namespace strata::rt
