// dlopen()s a bare library name that only its own DT_RUNPATH ($ORIGIN/runpath_sub) resolves:
// checks the runtime's dlopen interposer keeps the caller's search path. Exit 0 on success.
#include <dlfcn.h>

#include <cstdio>

int main() {
  void* h = dlopen("libstrata_rt_answer.so", RTLD_NOW);
  if (!h) { fprintf(stderr, "dlopen failed: %s\n", dlerror()); return 1; }
  auto fn = reinterpret_cast<int (*)()>(dlsym(h, "strata_answer"));
  return fn && fn() == 42 ? 0 : 2;
}
