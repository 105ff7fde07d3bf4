#include "sampler/thread_registry.h"

#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <new>

#include "common/tls.h"
#include "runtime_state.h"
#include "sampler/sampler.h"

namespace strata::rt {
namespace registry {
namespace {

ThreadSlot* g_slots = nullptr;
std::atomic<uint64_t> g_threads_seen{0};
std::atomic<uint64_t> g_exhausted{0};
std::atomic<uint32_t> g_in_use{0};
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
      g_slots[i].last_wall_ns = 0;
      g_slots[i].own_ns.store(0, std::memory_order_relaxed);
      g_threads_seen.fetch_add(1, std::memory_order_relaxed);
      uint32_t in_use = g_in_use.load(std::memory_order_relaxed);
      while (in_use < i + 1 && !g_in_use.compare_exchange_weak(in_use, i + 1, std::memory_order_acq_rel)) {}
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
  if (s) {
    sampler::OnThreadExit(s);  // its timer first: the slot may be recycled once dead
    s->state.store(kSlotDead, std::memory_order_release);
  }
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

uint32_t SlotsInUse() { return g_in_use.load(std::memory_order_acquire); }

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

void ResetInForkChild() {
  if (!g_slots) return;
  for (uint32_t i = 0, n = SlotsInUse(); i < n; ++i) {
    ThreadSlot& s = g_slots[i];
    if (s.state.load(std::memory_order_relaxed) == kSlotFree) continue;  // untouched pages stay so
    bool mine = &s == t_slot;
    Recycle(&s);
    if (mine) {
      s.tid = pid_t(syscall(SYS_gettid));
      s.last_ns = 0;
      s.last_wall_ns = 0;
      s.own_ns.store(0, std::memory_order_relaxed);
      s.state.store(kSlotActive, std::memory_order_release);
    }
  }
  g_threads_seen.store(t_slot ? 1 : 0);
  g_exhausted.store(0);
}

uint64_t ThreadsSeen() { return g_threads_seen.load(); }
uint64_t SlotExhausted() { return g_exhausted.load(); }

}  // namespace registry
}  // namespace strata::rt
