#include "sampler/thread_registry.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <new>

#include "common/tls.h"
#include "runtime_state.h"

namespace strata::rt {
namespace registry {
namespace {

ThreadSlot* g_slots = nullptr;
std::atomic<uint64_t> g_threads_seen{0};
std::atomic<uint64_t> g_exhausted{0};
pthread_key_t g_exit_key;

STRATA_TLS ThreadSlot* t_slot = nullptr;
STRATA_TLS int t_exited = 0;

ThreadSlot* Claim() {
  for (uint32_t i = 0; i < kMaxSlots; ++i) {
    int expected = kSlotFree;
    if (g_slots[i].state.load(std::memory_order_relaxed) == kSlotFree &&
        g_slots[i].state.compare_exchange_strong(expected, kSlotActive, std::memory_order_acq_rel)) {
      g_slots[i].tid = pid_t(syscall(SYS_gettid));
      g_slots[i].last_ns = 0;
      g_threads_seen.fetch_add(1, std::memory_order_relaxed);
      return &g_slots[i];
    }
  }
  g_exhausted.fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

void OnThreadExit(void*) {
  ThreadSlot* s = t_slot;
  t_exited = 1;  // signals arriving during the rest of the teardown do not re-claim
  t_slot = nullptr;
  if (s) s->state.store(kSlotDead, std::memory_order_release);
}

}  // namespace

bool Init() {
  size_t bytes = sizeof(ThreadSlot) * kMaxSlots;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  // Zeroed anonymous memory is a valid initial state for ThreadSlot (all atomics 0 = free,
  // empty rings, empty code caches), so no page is touched here.
  g_slots = static_cast<ThreadSlot*>(p);
  pthread_key_create(&g_exit_key, OnThreadExit);
  return true;
}

ThreadSlot* Slots() { return g_slots; }

ThreadSlot* CurrentThreadSlot() {
  if (t_slot) return t_slot;
  if (t_exited || !g_slots) return nullptr;
  t_slot = Claim();
  return t_slot;
}

void RegisterCurrentThread() {
  if (!g_slots || t_slot) return;
  t_slot = Claim();
  if (t_slot) pthread_setspecific(g_exit_key, t_slot);
}

void Recycle(ThreadSlot* slot) {
  slot->ring.Reset();
  slot->code_cache.Clear();
  slot->names.Clear();
  slot->generation++;
  slot->tid = 0;
  slot->state.store(kSlotFree, std::memory_order_release);
}

uint64_t ThreadsSeen() { return g_threads_seen.load(); }
uint64_t SlotExhausted() { return g_exhausted.load(); }

}  // namespace registry
}  // namespace strata::rt

// ---- pthread_create interposer: registers new threads before they run user code. ----
namespace {
struct StartArgs {
  void* (*fn)(void*);
  void* arg;
};

void* StartWrapper(void* p) {
  StartArgs a = *static_cast<StartArgs*>(p);
  free(p);
  if (strata::rt::state::Active()) strata::rt::registry::RegisterCurrentThread();
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
