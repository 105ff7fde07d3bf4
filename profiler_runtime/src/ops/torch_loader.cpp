// Loads the PyTorch operator plugin (libstrata_torch.so) when torch is loaded into the profiled
// process. Called by the dlopen interposer after each successful dlopen, in normal context,
// outside the loader lock. The plugin is compiled against one torch version's headers: it is
// only started when that version equals the loaded torch, and when loading it did not pull in a
// second libtorch (a plugin linked against another torch's sonames); otherwise meta
// "operators" says why and the program runs on unprofiled at the operator level.
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ops/op_abi.h"
#include "ops/op_registry.h"
#include "ops/op_stack.h"
#include "runtime_state.h"

namespace strata::rt::ops {
namespace {

std::atomic<int> g_tried{0};

struct TorchLibs {
  std::string torch_cpu;  // path of the loaded libtorch_cpu
  int count = 0;          // loaded objects that are libtorch_cpu / libc10
};

int CountTorch(dl_phdr_info* info, size_t, void* data) {
  auto* t = static_cast<TorchLibs*>(data);
  const char* name = info->dlpi_name;
  if (!name || !*name) return 0;
  const char* base = strrchr(name, '/');
  base = base ? base + 1 : name;
  if (strncmp(base, "libtorch_cpu.so", 15) == 0) {
    ++t->count;
    if (t->torch_cpu.empty()) t->torch_cpu = name;
  } else if (strncmp(base, "libc10.so", 9) == 0) {
    ++t->count;
  }
  return 0;
}

TorchLibs LoadedTorch() {
  TorchLibs t;
  dl_iterate_phdr(CountTorch, &t);
  return t;
}

std::string Dir(const std::string& path) {
  size_t s = path.rfind('/');
  return s == std::string::npos ? "." : path.substr(0, s);
}

// `__version__ = '2.11.0+cu130'` from torch/version.py.
std::string VersionFromPy(const std::string& file) {
  FILE* f = fopen(file.c_str(), "re");
  if (!f) return "";
  char line[512];
  std::string v;
  while (fgets(line, sizeof(line), f)) {
    if (strncmp(line, "__version__", 11) != 0) continue;
    const char* q = strpbrk(line, "'\"");
    if (!q) break;
    const char* e = strchr(q + 1, *q);
    if (e) v.assign(q + 1, size_t(e - q - 1));
    break;
  }
  fclose(f);
  return v;
}

// Version of the loaded torch: torch/version.py beside the extension module that was opened
// (python: torch/_C.cpython-*.so), beside libtorch (pip: torch/lib/../version.py), else the
// soname's numbers (Debian: libtorch_cpu.so.1.13).
std::string LoadedVersion(const char* opened, const std::string& torch_cpu) {
  std::string v;
  if (opened && strstr(opened, "/torch/_C.")) v = VersionFromPy(Dir(opened) + "/version.py");
  if (v.empty() && !torch_cpu.empty()) v = VersionFromPy(Dir(torch_cpu) + "/../version.py");
  if (v.empty() && !torch_cpu.empty()) {
    size_t at = torch_cpu.find("libtorch_cpu.so.");
    if (at != std::string::npos) v = torch_cpu.substr(at + 16);
  }
  return v;
}

// Leading numeric components: "2.11.0+cu130" -> {2, 11, 0}; "1.13.0a0" -> {1, 13, 0}.
int Numbers(const std::string& v, long out[3]) {
  int n = 0;
  const char* p = v.c_str();
  while (n < 3 && isdigit(static_cast<unsigned char>(*p))) {
    char* end;
    out[n++] = strtol(p, &end, 10);
    p = end;
    if (*p != '.') break;
    ++p;
  }
  return n;
}

bool SameVersion(const std::string& plugin, const std::string& loaded) {
  long a[3], b[3];
  int na = Numbers(plugin, a), nb = Numbers(loaded, b);
  int n = na < nb ? na : nb;
  if (n < 2) return false;
  for (int i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

std::string PluginPath() {
  if (const char* p = getenv("STRATA_TORCH_PLUGIN"); p && *p) return p;
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&PluginPath), &info) && info.dli_fname)
    return Dir(info.dli_fname) + "/libstrata_torch.so";
  return "libstrata_torch.so";
}

const StrataOpsApi kApi = {
    STRATA_OPS_ABI_VERSION,
    &strata_op_intern,
    &strata_op_push,
    &strata_op_pop,
    &strata_op_active,
};

void LoadPlugin(const char* opened, const TorchLibs& before) {
  std::string path = PluginPath();
  std::string loaded = LoadedVersion(opened, before.torch_cpu);
  std::string torch = "torch " + (loaded.empty() ? std::string("(version unknown)") : loaded);
  if (access(path.c_str(), R_OK) != 0) {
    SetPluginStatus("not recorded: " + torch + " loaded, no plugin at " + path +
                    " (build strata_torch against this torch, or set STRATA_TORCH_PLUGIN)", false);
    return;
  }
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    SetPluginStatus("not recorded: " + torch + " loaded, cannot load " + path + ": " + (e ? e : "?"), false);
    return;
  }
  auto version = reinterpret_cast<const char* (*)()>(dlsym(h, "strata_plugin_framework_version"));
  auto start = reinterpret_cast<int (*)(const StrataOpsApi*, const char*, char*, size_t)>(
      dlsym(h, "strata_plugin_start"));
  if (!version || !start) {
    SetPluginStatus("not recorded: " + path + " is not a Strata operator plugin", false);
    return;
  }
  std::string built = version();
  if (LoadedTorch().count > before.count) {
    // Its DT_NEEDED named another torch's libraries: never start it against two torches.
    SetPluginStatus("not recorded: " + path + " is built for torch " + built + " and loaded a second libtorch next to " +
                    torch, false);
    return;
  }
  if (!SameVersion(built, loaded)) {
    SetPluginStatus("not recorded: " + path + " is built for torch " + built + ", the program loaded " + torch, false);
    return;
  }
  char why[256] = {0};
  if (start(&kApi, loaded.c_str(), why, sizeof(why)) != 0) {
    SetPluginStatus("not recorded: " + torch + ": plugin refused: " + why, false);
    return;
  }
  SetPluginStatus("recorded: " + torch + " (RecordFunction callbacks, plugin built for " + built + ")", true);
}

}  // namespace

void AfterDlopen(const char* file) {
  if (g_tried.load(std::memory_order_relaxed)) return;
  if (!file || !strstr(file, "torch")) return;  // cheap filter: torch/_C..., libtorch*
  if (!state::Active() || getpid() != state::ProfiledPid()) return;
  TorchLibs t = LoadedTorch();
  if (t.torch_cpu.empty()) return;  // not yet: libtorch_global_deps and friends come first
  int expected = 0;
  if (!g_tried.compare_exchange_strong(expected, 1)) return;
  LoadPlugin(file, t);
}

}  // namespace strata::rt::ops
