// Per-thread sample buffers. A fixed pool of slots is mapped once at start (MAP_NORESERVE:
// pages are touched only by threads that use them). Threads claim a slot when created through
// our pthread_create wrapper, or lazily on their first sample (lock-free CAS, safe in the
// handler). The aggregator drains slots and recycles those of exited threads.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>

#include "python/code_cache.h"
#include "python/name_ring.h"
#include "sampler/ring.h"
#include "sampler/sample.h"

namespace strata::rt {

enum SlotState : int { kSlotFree = 0, kSlotActive = 1, kSlotDead = 2 };

struct ThreadSlot {
  std::atomic<int> state{kSlotFree};
  pid_t tid = 0;
  uint32_t generation = 0;     // bumped on recycle: invalidates aggregator-side caches
  uint64_t last_ns = 0;        // handler-private: clock at this thread's previous sample
  uint64_t last_wall_ns = 0;   // handler-private: CLOCK_MONOTONIC at that sample (CPU-time mode)
  std::atomic<int> timer_id_plus1{0};  // cpu mode: the thread's sampling timer + 1 (thread_timers.h)
  // The profiler's own work on this thread (launch callbacks, operator contexts and entry traces,
  // the sample handler) since the last sample: that sample carries it, so analyses can take the
  // profiler's cost out of the program's time where it was spent. Added by the thread, taken by
  // its own signal handler: atomic against that interruption, never shared between threads.
  std::atomic<uint64_t> own_ns{0};
  SpscRing<SampleRecord, 32> ring;
  python::CodeCache code_cache;  // code identity -> name (python/code_cache.h)
  python::NameRing names;        // new names, handler -> aggregator (python/name_ring.h)
};

namespace registry {

inline constexpr uint32_t kMaxSlots = 512;

bool Init();                   // maps the pool; normal context
ThreadSlot* Slots();           // kMaxSlots entries
// One past the highest slot ever claimed: loops over the slots stop there, so the pages of
// slots never used are not touched (a pass over all 512 faulted in a page each, ~25 ms at the
// start of every profiled process). A slot claimed after a loop read it is seen by the next.
uint32_t SlotsInUse();
// Slot of the calling thread, claiming one if needed (async-signal-safe). nullptr when the
// pool is exhausted or the thread is past its exit.
ThreadSlot* CurrentThreadSlot();
// Normal context: claim now and arrange release at thread exit (pthread key destructor).
void RegisterCurrentThread();
// Aggregator: a dead slot, fully drained, goes back to the pool.
void Recycle(ThreadSlot* slot);
// In a forked child (only the forking thread lives): every other slot goes back to the pool,
// the calling thread's slot is emptied (its samples and names belong to the parent's profile).
void ResetInForkChild();
uint64_t ThreadsSeen();
uint64_t SlotExhausted();

}  // namespace registry
}  // namespace strata::rt
