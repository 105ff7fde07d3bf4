#include "sampler/thread_timers.h"

#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sampler/thread_registry.h"

namespace strata::rt::thread_timers {
namespace {

// The CPU clock of any thread of this process by tid (the kernel's encoding, as glibc's
// pthread_getcpuclockid builds it): lets one thread arm another's timer.
clockid_t ThreadCpuClock(pid_t tid) { return clockid_t((~clockid_t(tid) << 3) | 4 | 2); }

}  // namespace

bool Arm(ThreadSlot* slot, int sig, uint64_t period_ns, bool wall) {
  struct sigevent sev = {};
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = sig;
  sev._sigev_un._tid = slot->tid;
  int id = -1;
  clockid_t clock = wall ? CLOCK_MONOTONIC : ThreadCpuClock(slot->tid);
  if (syscall(SYS_timer_create, clock, &sev, &id) != 0) return false;
  struct itimerspec its = {};
  its.it_interval.tv_sec = time_t(period_ns / 1000000000ull);
  its.it_interval.tv_nsec = long(period_ns % 1000000000ull);
  its.it_value = its.it_interval;
  if (syscall(SYS_timer_settime, id, 0, &its, nullptr) != 0) {
    syscall(SYS_timer_delete, id);
    return false;
  }
  int previous = slot->timer_id_plus1.exchange(id + 1, std::memory_order_acq_rel);
  if (previous) syscall(SYS_timer_delete, previous - 1);
  return true;
}

void Disarm(ThreadSlot* slot) {
  // Read first: a write to a slot that never had a timer touched (and, in a forked child, copied)
  // its page, and the end of a run disarms every slot.
  if (slot->timer_id_plus1.load(std::memory_order_acquire) == 0) return;
  int id_plus1 = slot->timer_id_plus1.exchange(0, std::memory_order_acq_rel);
  if (id_plus1) syscall(SYS_timer_delete, id_plus1 - 1);
}

bool Armed(const ThreadSlot* slot) { return slot->timer_id_plus1.load(std::memory_order_acquire) != 0; }

}  // namespace strata::rt::thread_timers
