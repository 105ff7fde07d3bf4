#include "ops/torch_install.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/loaded_objects.h"

namespace strata::rt::ops {
namespace {

const char* Base(const char* path) {
  const char* s = strrchr(path, '/');
  return s ? s + 1 : path;
}

std::string Dir(const std::string& path) {
  size_t s = path.rfind('/');
  return s == std::string::npos ? "." : path.substr(0, s);
}

int CountTorch(dl_phdr_info* info, size_t, void* data) {
  auto* t = static_cast<TorchInstall*>(data);
  const char* name = info->dlpi_name;
  if (!name || !*name) return 0;
  const char* base = Base(name);
  if (strncmp(base, "libtorch_cpu.so", 15) == 0) {
    ++t->count;
    if (t->torch_cpu.empty()) t->torch_cpu = name;
  } else if (strncmp(base, "libc10.so", 9) == 0) {
    ++t->count;
    if (t->c10.empty()) t->c10 = name;
  }
  return 0;
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

// python: torch/_C.cpython-*.so beside version.py; pip: torch/lib/../version.py; Debian: the
// soname's numbers (libtorch_cpu.so.1.13).
std::string Version(const char* opened, const std::string& torch_cpu) {
  std::string v;
  if (opened && strstr(opened, "/torch/_C.")) v = VersionFromPy(Dir(opened) + "/version.py");
  if (v.empty() && !torch_cpu.empty()) v = VersionFromPy(Dir(torch_cpu) + "/../version.py");
  if (v.empty() && !torch_cpu.empty()) {
    size_t at = torch_cpu.find("libtorch_cpu.so.");
    if (at != std::string::npos) v = torch_cpu.substr(at + 16);
  }
  return v;
}

bool Readable(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

// pip ships headers in torch/include; Debian's libtorch-dev in /usr/include.
std::string Headers(const std::string& torch_cpu) {
  const char* probe = "/ATen/record_function.h";
  std::string pip = Dir(Dir(torch_cpu)) + "/include";
  if (Readable(pip + probe)) return pip;
  bool system = torch_cpu.rfind("/usr/lib/", 0) == 0 || torch_cpu.rfind("/lib/", 0) == 0;
  if (system && Readable(std::string("/usr/include") + probe)) return "/usr/include";
  return "";
}

// The ABI the loaded c10 was compiled with, from the symbol it exports for
// c10::detail::torchCheckFail(const char*, const char*, unsigned, const std::string&): the new
// ABI mangles std::string as std::__cxx11::basic_string.
int Cxx11Abi(const std::string& c10) {
  void* h = dlopen(c10.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (!h) return -1;
  int abi = -1;
  if (dlsym(h, "_ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"))
    abi = 1;
  else if (dlsym(h, "_ZN3c106detail14torchCheckFailEPKcS2_jRKSs"))
    abi = 0;
  dlclose(h);
  return abi;
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

}  // namespace

TorchInstall LoadedTorchLibraries() {
  TorchInstall t;
  IterateLoadedObjects(CountTorch, &t);
  return t;
}

TorchInstall DescribeLoadedTorch(const char* opened) {
  TorchInstall t = LoadedTorchLibraries();
  if (t.torch_cpu.empty()) return t;
  t.version = Version(opened, t.torch_cpu);
  t.include = Headers(t.torch_cpu);
  if (!t.c10.empty()) t.cxx11_abi = Cxx11Abi(t.c10);
  return t;
}

std::string TorchLabel(const TorchInstall& t) {
  return "torch " + (t.version.empty() ? std::string("(version unknown)") : t.version);
}

bool SameVersion(const std::string& a, const std::string& b) {
  long x[3], y[3];
  int nx = Numbers(a, x), ny = Numbers(b, y);
  int n = nx < ny ? nx : ny;
  if (n < 2) return false;
  for (int i = 0; i < n; ++i)
    if (x[i] != y[i]) return false;
  return true;
}

}  // namespace strata::rt::ops
