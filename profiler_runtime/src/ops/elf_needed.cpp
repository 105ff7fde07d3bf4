#include "ops/elf_needed.h"

#include <elf.h>

#include <cstdio>
#include <cstring>

namespace strata::rt::ops {
namespace {

bool ReadAt(FILE* f, long off, void* out, size_t n) {
  return fseek(f, off, SEEK_SET) == 0 && fread(out, 1, n, f) == n;
}

}  // namespace

std::vector<std::string> NeededLibraries(const std::string& path) {
  std::vector<std::string> needed;
  FILE* f = fopen(path.c_str(), "rbe");
  if (!f) return needed;
  Elf64_Ehdr eh;
  if (!ReadAt(f, 0, &eh, sizeof(eh)) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum > 4096) {
    fclose(f);
    return needed;
  }
  for (unsigned i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr dyn;
    if (!ReadAt(f, long(eh.e_shoff + i * sizeof(Elf64_Shdr)), &dyn, sizeof(dyn))) break;
    if (dyn.sh_type != SHT_DYNAMIC || dyn.sh_link >= eh.e_shnum) continue;
    Elf64_Shdr str;
    if (!ReadAt(f, long(eh.e_shoff + dyn.sh_link * sizeof(Elf64_Shdr)), &str, sizeof(str))) break;
    size_t count = dyn.sh_size / sizeof(Elf64_Dyn);
    for (size_t k = 0; k < count && k < 4096; ++k) {
      Elf64_Dyn d;
      if (!ReadAt(f, long(dyn.sh_offset + k * sizeof(Elf64_Dyn)), &d, sizeof(d)) || d.d_tag == DT_NULL) break;
      if (d.d_tag != DT_NEEDED || d.d_un.d_val >= str.sh_size) continue;
      char name[256] = {0};
      long at = long(str.sh_offset + d.d_un.d_val);
      if (fseek(f, at, SEEK_SET) != 0) continue;
      size_t got = fread(name, 1, sizeof(name) - 1, f);
      needed.emplace_back(name, strnlen(name, got));
    }
    break;
  }
  fclose(f);
  return needed;
}

}  // namespace strata::rt::ops
