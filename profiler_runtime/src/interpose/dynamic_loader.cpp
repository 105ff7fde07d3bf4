// dlopen, dlclose and dl_iterate_phdr, interposed. Every walk is counted for fork()
// (common/loaded_objects.h). They mark "this thread is inside the dynamic loader": libunwind looks up unwind tables through dl_iterate_phdr; if the handler interrupted
// a thread inside dlopen/dlclose (loader lists mid-update, loader lock held) we take only the PC
// for that sample. After a successful dlopen the GPU collection (JAX) and the operator plugin
// (torch) look at the library's name.
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "common/loaded_objects.h"
#include "common/tls.h"
#include "ops/torch_loader.h"
#include "gpu/gpu.h"
#include "unwind/native_unwind.h"

namespace strata::rt {
STRATA_TLS int t_loader_busy = 0;
}

namespace {
template <typename Fn>
Fn Real(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

struct BusyScope {
  BusyScope() { ++strata::rt::t_loader_busy; }
  ~BusyScope() { --strata::rt::t_loader_busy; }
};

// Around a dlopen or dlclose: the TLS generation it may raise (unwind/native_unwind.h).
struct LoaderChangeScope {
  LoaderChangeScope() { strata::rt::unwind::BeforeLoaderChange(); }
  ~LoaderChangeScope() { strata::rt::unwind::AfterLoaderChange(); }
};

strata::rt::DlIterateFn g_real_dl_iterate_phdr = nullptr;
}  // namespace

namespace {
using DlopenFn = void* (*)(const char*, int);

bool FileExists(const std::string& dir, const char* file) {
  std::string p = dir + "/" + file;
  return access(p.c_str(), F_OK) == 0;
}

// glibc searches a bare dlopen() name in the DT_RPATH/DT_RUNPATH of the *calling* object, and
// once dlopen is interposed the caller is this library. So for bare names we repeat that part
// of the search for the real caller (its own RPATH or RUNPATH, $ORIGIN expanded), keeping
// glibc's order: RPATH before LD_LIBRARY_PATH, RUNPATH after it. Everything else (already
// loaded sonames, LD_LIBRARY_PATH, ld.so.cache, default dirs) is left to the real dlopen.
void* OpenLikeCaller(DlopenFn real, const void* caller, const char* file, int mode) {
  Dl_info info;
  void* lmv = nullptr;
  if (!dladdr1(caller, &info, &lmv, RTLD_DL_LINKMAP) || !lmv) return nullptr;
  auto* lm = static_cast<link_map*>(lmv);
  const char* strtab = nullptr;
  long rpath = -1, runpath = -1;
  for (const ElfW(Dyn)* d = lm->l_ld; d && d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(d->d_un.d_ptr);
    else if (d->d_tag == DT_RPATH) rpath = long(d->d_un.d_val);
    else if (d->d_tag == DT_RUNPATH) runpath = long(d->d_un.d_val);
  }
  if (!strtab || (rpath < 0 && runpath < 0)) return nullptr;
  if (reinterpret_cast<uintptr_t>(strtab) < lm->l_addr) strtab += lm->l_addr;  // not relocated
  if (void* h = real(file, RTLD_LAZY | RTLD_NOLOAD)) {  // already loaded: the real one finds it
    dlclose(h);
    return nullptr;
  }
  bool is_runpath = runpath >= 0;
  if (is_runpath) {
    if (const char* llp = getenv("LD_LIBRARY_PATH")) {
      std::string dirs = llp;
      for (size_t b = 0; b <= dirs.size();) {
        size_t e = dirs.find(':', b);
        if (e == std::string::npos) e = dirs.size();
        if (e > b && FileExists(dirs.substr(b, e - b), file)) return nullptr;
        b = e + 1;
      }
    }
  }
  std::string origin;
  if (lm->l_name && lm->l_name[0]) {
    origin = lm->l_name;
  } else {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n > 0) origin.assign(buf, size_t(n));
  }
  origin = origin.substr(0, origin.rfind('/'));
  std::string dirs = strtab + (is_runpath ? runpath : rpath);
  for (size_t b = 0; b <= dirs.size();) {
    size_t e = dirs.find(':', b);
    if (e == std::string::npos) e = dirs.size();
    std::string dir = dirs.substr(b, e - b);
    b = e + 1;
    for (const char* tok : {"${ORIGIN}", "$ORIGIN"}) {
      for (size_t at; (at = dir.find(tok)) != std::string::npos;) dir.replace(at, strlen(tok), origin);
    }
    if (dir.empty() || !FileExists(dir, file)) continue;
    std::string path = dir + "/" + file;
    if (void* h = real(path.c_str(), mode)) return h;
  }
  return nullptr;
}
}  // namespace

extern "C" __attribute__((visibility("default"))) void* dlopen(const char* file, int mode) {
  static auto real = Real<DlopenFn>("dlopen");
  const void* caller = __builtin_return_address(0);
  BusyScope busy;
  void* h = nullptr;
  {
    LoaderChangeScope change;  // ends before the hooks below (a plugin build takes seconds)
    if (file && *file && !strchr(file, '/')) {
      if ((h = OpenLikeCaller(real, caller, file, mode))) return h;
    }
    h = real(file, mode);
  }
  if (h && file) strata::rt::gpu::OnLibraryLoaded(file);  // JAX: arm XLA's HLO dump
  if (h && file) strata::rt::ops::AfterDlopen(file);      // torch: operator plugin (once)
  return h;
}

extern "C" __attribute__((visibility("default"))) int dlclose(void* handle) {
  static auto real = Real<int (*)(void*)>("dlclose");
  LoaderChangeScope change;
  BusyScope busy;
  return real(handle);
}

extern "C" __attribute__((visibility("default"))) int dl_iterate_phdr(
    int (*cb)(dl_phdr_info*, size_t, void*), void* data) {
  // Resolved at first use from normal context (runtime init calls it before arming signals).
  strata::rt::DlIterateFn real = __atomic_load_n(&g_real_dl_iterate_phdr, __ATOMIC_ACQUIRE);
  if (!real) {
    real = Real<strata::rt::DlIterateFn>("dl_iterate_phdr");
    __atomic_store_n(&g_real_dl_iterate_phdr, real, __ATOMIC_RELEASE);
  }
  // libunwind, from our own handler: counted for fork, never waiting.
  if (strata::rt::t_in_handler) return strata::rt::CountedWalk(real, cb, data, true);
  // C++ exception unwinding and others walk the loader lists under its lock: mark busy.
  BusyScope busy;
  return strata::rt::CountedWalk(real, cb, data, false);
}
