// A loaded object's dynamic symbols sorted by address, for naming native PCs: the answer
// dladdr1 gives (the symbol whose [value, value + size) holds the PC, size-0 symbols only at
// their exact address, the highest such value winning), at a binary search's cost.
//
// Why not dladdr: glibc scans every symbol of the object's hash table for each call, holding
// the loader lock (dl_load_lock) meanwhile. libtorch_cpu.so has hundreds of thousands of
// dynamic symbols: 3.8 ms per new PC on the 2-core dev VM, so `import torch` under sampling
// kept the aggregator in one drain for a second (its sample rings filled: 19% of the samples
// dropped), and every dlopen the program made waited for it.
//
// Only addresses and symbol indices are kept (about 28 bytes a symbol, no strings: a pip
// libtorch_cpu.so has hundreds of thousands); a name is read from the object's own string table
// inside dl_iterate_phdr, whose lock keeps the object from being unloaded meanwhile.
// Aggregator thread only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strata::rt {

class DynamicSymbols {
 public:
  // Reads the symbols of the loaded object whose load bias is `load_bias` and whose name
  // (dl_iterate_phdr's dlpi_name, "" for the main program) is `name`. Empty when not found.
  static DynamicSymbols Of(uint64_t load_bias, const std::string& name);

  // The symbol naming `pc` as dladdr1 + the st_size check would, "" when none (or when the
  // object is no longer loaded).
  std::string NameOf(uint64_t pc) const;
  size_t size() const { return syms_.size(); }

 private:
  friend class DynamicSymbolsBuilder;
  struct Sym {
    uint64_t start;
    uint64_t end;    // start + size; start + 1 for symbols that match only their address
    uint32_t index;  // in the object's dynamic symbol table
  };
  uint64_t bias_ = 0;
  std::string loader_name_;
  std::vector<Sym> syms_;          // by start, then in dladdr's visiting order
  std::vector<uint64_t> max_end_;  // max_end_[i]: the largest end among syms_[0..i]
};

}  // namespace strata::rt
