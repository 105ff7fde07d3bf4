#include "common/loaded_objects.h"

#include <sched.h>

#include <atomic>
#include <ctime>

#include "common/clock.h"
#include "common/tls.h"

namespace strata::rt {
namespace {

std::atomic<int> g_walks{0};
std::atomic<bool> g_fork_pending{false};
STRATA_TLS int t_forking = 0;  // this thread runs fork's handlers: its own walks go on
STRATA_TLS int t_walk_depth = 0;  // a walk's callback may walk again: the outer one counts

// A callback that blocks on something the forking thread holds would keep its walk in flight
// forever: after this long the fork goes on (the child may then inherit the loader's lock, as
// before the count existed).
constexpr uint64_t kForkWaitNs = 200'000'000;

}  // namespace

int CountedWalk(DlIterateFn real, int (*callback)(dl_phdr_info*, size_t, void*), void* data, bool in_signal_handler) {
  if (t_forking || t_walk_depth > 0) return real(callback, data);
  for (;;) {
    g_walks.fetch_add(1, std::memory_order_seq_cst);
    if (!g_fork_pending.load(std::memory_order_seq_cst)) break;
    g_walks.fetch_sub(1, std::memory_order_seq_cst);
    if (in_signal_handler) return 0;
    while (g_fork_pending.load(std::memory_order_acquire)) sched_yield();
  }
  ++t_walk_depth;
  int r = real(callback, data);
  --t_walk_depth;
  g_walks.fetch_sub(1, std::memory_order_seq_cst);
  return r;
}

int IterateLoadedObjects(int (*callback)(dl_phdr_info*, size_t, void*), void* data) {
  return ::dl_iterate_phdr(callback, data);  // the interposer (interpose/dynamic_loader.cpp)
}

void HoldWalksForFork() {
  t_forking = 1;
  g_fork_pending.store(true, std::memory_order_seq_cst);
  const uint64_t start = NowNs(CLOCK_MONOTONIC);
  while (g_walks.load(std::memory_order_seq_cst) > 0 && NowNs(CLOCK_MONOTONIC) - start < kForkWaitNs) sched_yield();
}

void ReleaseWalksAfterFork(bool in_child) {
  if (in_child) g_walks.store(0, std::memory_order_relaxed);  // the walkers were other threads
  g_fork_pending.store(false, std::memory_order_seq_cst);
  t_forking = 0;
}

}  // namespace strata::rt
