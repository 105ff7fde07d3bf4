// DynamicSymbols names every PC as dladdr1 does (plus the st_size check the aggregator applies):
// PCs at a stride over the executable segments of libc, libstdc++, the vDSO (its dynamic
// section is not relocated) and (when present) libpython.
#include <dlfcn.h>
#include <elf.h>
#include <gtest/gtest.h>
#include <link.h>

#include <string>
#include <vector>

#include "aggregator/dynamic_symbols.h"

namespace {

using strata::rt::DynamicSymbols;

// The aggregator's former naming: dladdr1, rejected unless pc lies inside a sized symbol.
std::string ByDladdr(uint64_t pc) {
  Dl_info info;
  void* symv = nullptr;
  if (!dladdr1(reinterpret_cast<void*>(pc), &info, &symv, RTLD_DL_SYMENT)) return "";
  auto* sym = static_cast<const ElfW(Sym)*>(symv);
  if (!info.dli_sname || !info.dli_saddr) return "";
  uint64_t start = reinterpret_cast<uint64_t>(info.dli_saddr);
  if (sym && sym->st_size && (pc < start || pc >= start + sym->st_size)) return "";
  return info.dli_sname;
}

struct Object {
  uint64_t bias = 0;
  std::string name;
  std::vector<std::pair<uint64_t, uint64_t>> text;
};

std::vector<Object> Loaded() {
  std::vector<Object> out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        Object o;
        o.bias = info->dlpi_addr;
        o.name = info->dlpi_name ? info->dlpi_name : "";
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
            o.text.emplace_back(info->dlpi_addr + ph.p_vaddr, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
        }
        static_cast<std::vector<Object>*>(data)->push_back(o);
        return 0;
      },
      &out);
  return out;
}

TEST(DynamicSymbols, NamesPcsAsDladdrDoes) {
  // A large exported table, loaded for the test when the system has one.
  void* py = dlopen("libpython3.11.so.1.0", RTLD_NOW | RTLD_LOCAL);
  int checked_objects = 0;
  for (const Object& o : Loaded()) {
    bool wanted = o.name.find("libc.so") != std::string::npos || o.name.find("libstdc++") != std::string::npos ||
                  o.name.find("libpython") != std::string::npos || o.name.find("vdso") != std::string::npos;
    if (!wanted) continue;
    SCOPED_TRACE(o.name);
    DynamicSymbols syms = DynamicSymbols::Of(o.bias, o.name);
    EXPECT_GT(syms.size(), o.name.find("vdso") != std::string::npos ? 2u : 100u);
    int named = 0, checked = 0;
    for (const auto& [b, e] : o.text) {
      for (uint64_t pc = b; pc < e; pc += 61) {
        std::string want = ByDladdr(pc);
        ASSERT_EQ(syms.NameOf(pc), want) << std::hex << "pc 0x" << pc << " (+0x" << pc - o.bias << ")";
        named += !want.empty();
        ++checked;
      }
    }
    EXPECT_GT(named, checked / 20) << named << " of " << checked;
    ++checked_objects;
  }
  EXPECT_GE(checked_objects, 3);
  EXPECT_EQ(DynamicSymbols::Of(1, "not loaded").size(), 0u);
  if (py) dlclose(py);
}

}  // namespace
