// A program that uses CUDA if it can, without linking it: dlopens libcudart and asks for the
// device count (which initializes the driver), else libcuda and cuInit. Prints what happened.
// Exit code: 0 = no CUDA library found, 1 = CUDA present but no usable device, 2 = a device.
#include <dlfcn.h>

#include <cstdio>
#include <initializer_list>

int main() {
  for (const char* rt : {"libcudart.so.13", "libcudart.so.12", "libcudart.so"}) {
    void* h = dlopen(rt, RTLD_NOW);
    if (!h) continue;
    auto count = reinterpret_cast<int (*)(int*)>(dlsym(h, "cudaGetDeviceCount"));
    int n = 0;
    int rc = count ? count(&n) : -1;
    printf("%s: cudaGetDeviceCount rc=%d devices=%d\n", rt, rc, n);
    return rc == 0 && n > 0 ? 2 : 1;
  }
  if (void* h = dlopen("libcuda.so.1", RTLD_NOW)) {
    auto init = reinterpret_cast<int (*)(unsigned)>(dlsym(h, "cuInit"));
    int rc = init ? init(0) : -1;
    printf("libcuda.so.1: cuInit rc=%d\n", rc);
    return rc == 0 ? 2 : 1;
  }
  printf("no CUDA library\n");
  return 0;
}
