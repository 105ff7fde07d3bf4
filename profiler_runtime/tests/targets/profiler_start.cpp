// Loads the plugin (argv[1]: "global" or "local", the dlopen scope; a Python extension and its
// libraries are loaded RTLD_LOCAL) and calls cudaProfilerStart twice through it. Exit 0 when
// both calls reached the stand-in libcudart and returned its value, 1 otherwise.
#include <dlfcn.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  int scope = strcmp(argv[1], "global") == 0 ? RTLD_GLOBAL : RTLD_LOCAL;
  void* h = dlopen(argv[2], RTLD_NOW | scope);
  if (!h) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 2;
  }
  auto start = reinterpret_cast<int (*)()>(dlsym(h, "plugin_profiler_start"));
  auto calls = reinterpret_cast<int (*)()>(dlsym(h, "plugin_profiler_start_calls"));
  if (!start || !calls) return 2;
  int a = start(), b = start();
  printf("returned %d %d, calls %d\n", a, b, calls());
  return a == 42 && b == 42 && calls() == 2 ? 0 : 1;
}
