#include "interpose/pthread_create.h"

#include <dlfcn.h>

#include <cstdlib>

#include "runtime_state.h"
#include "sampler/sampler.h"
#include "sampler/thread_registry.h"
#include "unwind/native_unwind.h"

namespace {
struct StartArgs {
  void* (*fn)(void*);
  void* arg;
};

void* StartWrapper(void* p) {
  StartArgs a = *static_cast<StartArgs*>(p);
  free(p);
  if (strata::rt::state::Active()) {
    strata::rt::unwind::PrepareThread();  // before its first sample
    strata::rt::registry::RegisterCurrentThread();
    strata::rt::sampler::OnThreadStart(strata::rt::registry::CurrentThreadSlot());
  }
  return a.fn(a.arg);
}

using PthreadCreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
PthreadCreateFn RealPthreadCreate() {
  static PthreadCreateFn real =
      reinterpret_cast<PthreadCreateFn>(dlsym(RTLD_NEXT, "pthread_create"));
  return real;
}
}  // namespace

namespace strata::rt {
int RealPthreadCreate(pthread_t* t, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
  return ::RealPthreadCreate()(t, attr, fn, arg);
}
}  // namespace strata::rt

extern "C" __attribute__((visibility("default"))) int pthread_create(
    pthread_t* thread, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
  PthreadCreateFn real = RealPthreadCreate();
  if (!strata::rt::state::Active()) return real(thread, attr, fn, arg);
  auto* a = static_cast<StartArgs*>(malloc(sizeof(StartArgs)));
  if (!a) return real(thread, attr, fn, arg);
  a->fn = fn;
  a->arg = arg;
  int rc = real(thread, attr, StartWrapper, a);
  if (rc != 0) free(a);
  return rc;
}
