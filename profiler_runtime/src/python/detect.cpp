#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstring>

#include "common/loaded_objects.h"
#include "python/py_reader.h"

namespace strata::rt::python {
namespace {

Runtime g_storage;
std::atomic<const Runtime*> g_runtime{nullptr};
bool g_found = false;
char g_version[96] = "none";

struct FindLibpython {
  char path[512] = {0};
};

int FindLibpythonCb(dl_phdr_info* info, size_t, void* data) {
  auto* f = static_cast<FindLibpython*>(data);
  if (info->dlpi_name && strstr(info->dlpi_name, "libpython3")) {
    snprintf(f->path, sizeof(f->path), "%s", info->dlpi_name);
    return 1;
  }
  return 0;
}

// "3.9.18 (main, ...)" -> 3, 9, 18.
bool ParseVersion(const char* v, int* major, int* minor, int* micro) {
  *micro = 0;
  return sscanf(v, "%d.%d.%d", major, minor, micro) >= 2;
}

}  // namespace

const Runtime* Current() { return g_runtime.load(std::memory_order_acquire); }
const char* VersionString() { return g_version; }

bool LooksFreeThreaded(uintptr_t static_type, uintptr_t type_type) {
  if (!static_type || !type_type) return false;
  const uintptr_t* words = reinterpret_cast<const uintptr_t*>(static_type);
  return words[1] != type_type && words[3] == type_type;
}

bool Detect() {
  if (g_found) return true;
  void* handle = nullptr;
  void* ver = dlsym(RTLD_DEFAULT, "Py_GetVersion");
  if (!ver) {
    // libpython loaded RTLD_LOCAL (embedding, plugins): look it up by object name.
    FindLibpython f;
    IterateLoadedObjects(FindLibpythonCb, &f);
    if (f.path[0]) handle = dlopen(f.path, RTLD_LAZY | RTLD_NOLOAD);
    if (!handle) return false;
    ver = dlsym(handle, "Py_GetVersion");
    if (!ver) { dlclose(handle); return false; }
  }
  auto sym = [handle](const char* n) { return handle ? dlsym(handle, n) : dlsym(RTLD_DEFAULT, n); };
  g_found = true;
  // Py_GetVersion only formats a static string: safe from this thread at any time.
  const char* v = reinterpret_cast<const char* (*)()>(ver)();
  int major = 0, minor = 0, micro = 0;
  Runtime& rt = g_storage;
  if (!ParseVersion(v, &major, &minor, &micro)) {
    snprintf(g_version, sizeof(g_version), "%.20s (unsupported: version not recognised)", v);
    return true;
  }
  snprintf(rt.version, sizeof(rt.version), "%d.%d.%d", major, minor, micro);
  rt.off = OffsetsFor(major, minor);
  rt.get_this_thread_state = reinterpret_cast<void* (*)()>(sym("PyGILState_GetThisThreadState"));
  rt.code_type = reinterpret_cast<uintptr_t>(sym("PyCode_Type"));
  rt.unicode_type = reinterpret_cast<uintptr_t>(sym("PyUnicode_Type"));
  uintptr_t type_type = reinterpret_cast<uintptr_t>(sym("PyType_Type"));
  void* eval = sym("_PyEval_EvalFrameDefault");
  if (eval) {
    Dl_info info;
    const ElfW(Sym)* es = nullptr;
    void* esv = nullptr;
    if (dladdr1(eval, &info, &esv, RTLD_DL_SYMENT) && (es = static_cast<const ElfW(Sym)*>(esv))) {
      rt.eval_begin = reinterpret_cast<uintptr_t>(eval);
      rt.eval_end = rt.eval_begin + (es->st_size ? es->st_size : 1);
    }
  }
  // The tables describe the default build; a free-threaded one lays out every object differently.
  if (LooksFreeThreaded(rt.code_type, type_type)) {
    snprintf(g_version, sizeof(g_version), "%s (free-threaded build, unsupported)", rt.version);
    return true;
  }
  if (!rt.off) {
    snprintf(g_version, sizeof(g_version), "%s (unsupported: CPython 3.9-3.13 are read)", rt.version);
    return true;
  }
  if (!rt.get_this_thread_state || !rt.code_type || !rt.unicode_type) {
    snprintf(g_version, sizeof(g_version), "%s (unsupported: %s not found)", rt.version,
             !rt.get_this_thread_state ? "PyGILState_GetThisThreadState"
             : !rt.code_type           ? "PyCode_Type"
                                       : "PyUnicode_Type");
    return true;
  }
  snprintf(g_version, sizeof(g_version), "%s", rt.version);
  g_runtime.store(&rt, std::memory_order_release);
  return true;
}

}  // namespace strata::rt::python
