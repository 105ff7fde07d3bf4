#include "aggregator/dynamic_symbols.h"

#include <elf.h>
#include <link.h>

#include <algorithm>
#include <cstring>

#include "common/loaded_objects.h"

namespace strata::rt {
namespace {

// Calls fn(info) inside dl_iterate_phdr for the loaded object (bias, name), if loaded.
template <typename Fn>
void WithObject(uint64_t bias, const std::string& name, Fn fn) {
  struct Ctx { uint64_t bias; const std::string* name; Fn* fn; } ctx{bias, &name, &fn};
  IterateLoadedObjects(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* c = static_cast<Ctx*>(data);
        if (info->dlpi_addr != c->bias || *c->name != (info->dlpi_name ? info->dlpi_name : "")) return 0;
        (*c->fn)(info);
        return 1;
      },
      &ctx);
}

// The object's dynamic section, its d_ptr values made absolute (glibc relocates them in place
// for ordinary objects; the vDSO's stay relative to its base).
struct DynInfo {
  const ElfW(Sym)* symtab = nullptr;
  const char* strtab = nullptr;
  uint64_t strsz = 0;
  const uint32_t* gnu_hash = nullptr;
  const uint32_t* sysv_hash = nullptr;
};

bool ReadDynamic(const dl_phdr_info* info, DynInfo* d) {
  const ElfW(Dyn)* dyn = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (!dyn) return false;
  uint64_t base = info->dlpi_addr;
  auto abs = [base](uint64_t p) { return p < base ? p + base : p; };
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    switch (dyn->d_tag) {
      case DT_SYMTAB: d->symtab = reinterpret_cast<const ElfW(Sym)*>(abs(dyn->d_un.d_ptr)); break;
      case DT_STRTAB: d->strtab = reinterpret_cast<const char*>(abs(dyn->d_un.d_ptr)); break;
      case DT_STRSZ: d->strsz = dyn->d_un.d_val; break;
      case DT_GNU_HASH: d->gnu_hash = reinterpret_cast<const uint32_t*>(abs(dyn->d_un.d_ptr)); break;
      case DT_HASH: d->sysv_hash = reinterpret_cast<const uint32_t*>(abs(dyn->d_un.d_ptr)); break;
      default: break;
    }
  }
  return d->symtab && d->strtab && (d->gnu_hash || d->sysv_hash);
}

}  // namespace

// Builds the index from the same symbols, in the same order, that glibc's dladdr visits (its
// ties go to the first one visited).
class DynamicSymbolsBuilder {
 public:
  static bool Read(const dl_phdr_info* info, DynamicSymbols* out) {
    DynInfo d;
    if (!ReadDynamic(info, &d)) return false;
    uint64_t bias = info->dlpi_addr;
    // Only code can hold a sampled PC: symbols outside the executable segments (vtables, type
    // info, data: 30% of the defined dynamic symbols of Debian's libtorch_cpu.so) are left out.
    std::vector<std::pair<uint64_t, uint64_t>> text;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
      const ElfW(Phdr)& ph = info->dlpi_phdr[i];
      if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
        text.emplace_back(bias + ph.p_vaddr, bias + ph.p_vaddr + ph.p_memsz);
    }
    auto in_text = [&text](uint64_t start, uint64_t end) {
      for (const auto& [b, e] : text)
        if (start < e && end > b) return true;
      return false;
    };
    struct Tmp { uint64_t start, end; uint32_t order, index; };
    std::vector<Tmp> tmp;
    uint32_t order = 0;
    auto visit = [&](uint32_t index) {
      const ElfW(Sym)& s = d.symtab[index];
      uint32_t ord = order++;
      if ((s.st_shndx == SHN_UNDEF && s.st_value == 0) || s.st_shndx == SHN_ABS ||
          ELF64_ST_TYPE(s.st_info) == STT_TLS || s.st_name >= d.strsz)
        return;
      uint64_t start = bias + s.st_value;
      // Size-0 (and undefined) symbols name only their own address, as in dladdr.
      uint64_t end = start + (s.st_size ? s.st_size : 1);
      if (!in_text(start, end)) return;
      tmp.push_back(Tmp{start, end, ord, index});
    };
    if (d.gnu_hash) {
      uint32_t nbuckets = d.gnu_hash[0], symoffset = d.gnu_hash[1], bloom_size = d.gnu_hash[2];
      const uint32_t* buckets = reinterpret_cast<const uint32_t*>(
          reinterpret_cast<const ElfW(Addr)*>(d.gnu_hash + 4) + bloom_size);
      const uint32_t* chain_zero = buckets + nbuckets - symoffset;
      for (uint32_t b = 0; b < nbuckets; ++b) {
        if (buckets[b] == 0) continue;
        uint32_t index = buckets[b];
        const uint32_t* h = &chain_zero[index];
        do visit(index++); while ((*h++ & 1u) == 0);
      }
    } else {
      uint32_t nchain = d.sysv_hash[1];
      for (uint32_t i = 0; i < nchain; ++i) visit(i);
    }
    std::sort(tmp.begin(), tmp.end(),
              [](const Tmp& a, const Tmp& b) { return a.start != b.start ? a.start < b.start : a.order < b.order; });
    out->syms_.reserve(tmp.size());
    out->max_end_.reserve(tmp.size());
    uint64_t max_end = 0;
    for (const Tmp& t : tmp) {
      out->syms_.push_back(DynamicSymbols::Sym{t.start, t.end, t.index});
      max_end = std::max(max_end, t.end);
      out->max_end_.push_back(max_end);
    }
    return true;
  }
};

DynamicSymbols DynamicSymbols::Of(uint64_t load_bias, const std::string& name) {
  DynamicSymbols out;
  out.bias_ = load_bias;
  out.loader_name_ = name;
  WithObject(load_bias, name, [&out](const dl_phdr_info* info) { DynamicSymbolsBuilder::Read(info, &out); });
  return out;
}

std::string DynamicSymbols::NameOf(uint64_t pc) const {
  // The last symbol starting at or below pc, then back while an earlier one may still reach pc.
  size_t i = size_t(std::upper_bound(syms_.begin(), syms_.end(), pc,
                                     [](uint64_t v, const Sym& s) { return v < s.start; }) -
                    syms_.begin());
  const Sym* best = nullptr;
  while (i > 0 && max_end_[i - 1] > pc) {
    const Sym& s = syms_[--i];
    if (best && s.start != best->start) break;  // a lower start loses to the one found
    if (pc < s.end) best = &s;                  // same start: the earlier visited wins
  }
  std::string result;
  if (!best) return result;
  uint32_t index = best->index;
  WithObject(bias_, loader_name_, [&result, index](const dl_phdr_info* info) {
    DynInfo d;
    if (!ReadDynamic(info, &d)) return;
    uint32_t at = d.symtab[index].st_name;
    if (at < d.strsz) result.assign(d.strtab + at, strnlen(d.strtab + at, d.strsz - at));
  });
  return result;
}

}  // namespace strata::rt
