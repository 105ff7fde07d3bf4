#include "aggregator/module_map.h"

#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <cstring>

#include "common/loaded_objects.h"

namespace strata::rt {
namespace {

std::string ExePath() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, size_t(n)) : std::string("<exe>");
}

std::string BuildId(const dl_phdr_info* info) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    const char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      auto* nh = reinterpret_cast<const ElfW(Nhdr)*>(p);
      const char* name = p + sizeof(ElfW(Nhdr));
      const char* desc = name + ((nh->n_namesz + 3) & ~3u);
      if (desc + nh->n_descsz > end) break;
      if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
        static const char kHex[] = "0123456789abcdef";
        std::string hex;
        for (uint32_t k = 0; k < nh->n_descsz; ++k) {
          unsigned char c = static_cast<unsigned char>(desc[k]);
          hex += kHex[c >> 4];
          hex += kHex[c & 15];
        }
        return hex;
      }
      p = desc + ((nh->n_descsz + 3) & ~3u);
    }
  }
  return "";
}

int Collect(dl_phdr_info* info, size_t, void* data) {
  auto* out = static_cast<std::vector<ModuleInfo>*>(data);
  ModuleInfo m;
  m.loader_name = info->dlpi_name ? info->dlpi_name : "";
  m.path = m.loader_name.empty() ? ExePath() : m.loader_name;
  m.load_bias = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
      m.ranges.emplace_back(info->dlpi_addr + ph.p_vaddr, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
  }
  if (m.ranges.empty()) return 0;
  m.build_id = BuildId(info);
  out->push_back(std::move(m));
  return 0;
}

}  // namespace

void ModuleMap::Refresh() {
  std::vector<ModuleInfo> fresh;
  IterateLoadedObjects(Collect, &fresh);
  modules_ = std::move(fresh);
}

int ModuleMap::Lookup(uint64_t pc) const {
  for (size_t i = 0; i < modules_.size(); ++i)
    for (const auto& [b, e] : modules_[i].ranges)
      if (pc >= b && pc < e) return int(i);
  return -1;
}

int ModuleMap::Find(uint64_t pc) {
  int i = Lookup(pc);
  if (i >= 0) return i;
  Refresh();
  return Lookup(pc);
}

std::string ModuleMap::SymbolName(int module, uint64_t pc) {
  if (module < 0 || size_t(module) >= modules_.size()) return "";
  const ModuleInfo& m = modules_[size_t(module)];
  auto key = std::make_pair(m.load_bias, m.loader_name);
  auto it = symbols_.find(key);
  if (it == symbols_.end()) it = symbols_.emplace(key, DynamicSymbols::Of(m.load_bias, m.loader_name)).first;
  return it->second.NameOf(pc);
}

}  // namespace strata::rt
