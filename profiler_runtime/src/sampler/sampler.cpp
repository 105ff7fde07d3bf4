#include "sampler/sampler.h"

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>

#include "common/clock.h"
#include "common/log.h"
#include "common/tls.h"
#include "interpose/pthread_create.h"
#include "python/py_reader.h"
#include "sampler/path_collector.h"
#include "sampler/sample.h"
#include "sampler/thread_registry.h"
#include "signals/signal_chain.h"
#include "unwind/native_unwind.h"

namespace strata::rt {
STRATA_TLS int t_in_handler = 0;
STRATA_TLS int t_internal = 0;
STRATA_TLS int t_fault_guard = 0;
STRATA_TLS sigjmp_buf* t_fault_jmp = nullptr;
}  // namespace strata::rt

namespace strata::rt::sampler {
namespace {

std::atomic<bool> g_enabled{false};
std::atomic<bool> g_wall_stop{false};
std::atomic<bool> g_wall_running{false};  // the wall thread is inside its loop
uint64_t g_period_ns = 10000000;
bool g_wall = false;
clockid_t g_clock = CLOCK_THREAD_CPUTIME_ID;

// Test hook (STRATA_DEBUG_FAULT_EVERY=N): every Nth sample reads a PROT_NONE page inside the
// fault guard, so tests can check a bad read costs one sample and not the process.
uint64_t g_fault_every = 0;
uint64_t g_fault_count = 0;
volatile const int* g_fault_page = nullptr;

std::atomic<uint64_t> g_samples{0};
std::atomic<uint64_t> g_dropped{0};
std::atomic<uint64_t> g_unwind_failures{0};

void TakeSample(ucontext_t* uc) {
  ThreadSlot* slot = registry::CurrentThreadSlot();
  if (!slot) { g_dropped.fetch_add(1, std::memory_order_relaxed); return; }
  uint64_t now = NowNs(g_clock);
  uint64_t value = slot->last_ns ? now - slot->last_ns : g_period_ns;
  slot->last_ns = now;
  SampleRecord* rec = slot->ring.Reserve();
  if (!rec) { g_dropped.fetch_add(1, std::memory_order_relaxed); return; }

  if (g_fault_every && ++g_fault_count % g_fault_every == 0) (void)*g_fault_page;
  CollectedPath path = CollectPath(uc, slot, 0, rec->frames, kMaxDepth);
  uint16_t flags = path.flags;
  if (flags & kSampleNamesDropped) { g_dropped.fetch_add(1, std::memory_order_relaxed); return; }
  rec->value = value;
  rec->flags = flags;
  rec->depth = uint16_t(path.depth);
  slot->ring.Commit();
  g_samples.fetch_add(1, std::memory_order_relaxed);
  if (flags & (kSampleUnwindFailed | kSamplePcOnly))
    g_unwind_failures.fetch_add(1, std::memory_order_relaxed);
}

void OnSigprof(int, siginfo_t*, void* ucv) {
  int saved_errno = errno;
  if (g_enabled.load(std::memory_order_relaxed) && !t_internal && !t_in_handler) {
    t_in_handler = 1;
    // A fault while reading the target's memory (a torn Python frame, bad unwind data) jumps
    // back here through the fatal-signal handler instead of killing the process.
    sigjmp_buf jb;
    if (sigsetjmp(jb, 0) == 0) {
      t_fault_jmp = &jb;
      t_fault_guard = 1;
      TakeSample(static_cast<ucontext_t*>(ucv));
    } else {
      g_unwind_failures.fetch_add(1, std::memory_order_relaxed);
    }
    t_fault_guard = 0;
    t_fault_jmp = nullptr;
    t_in_handler = 0;
  }
  errno = saved_errno;
}

void BlockSigprofHere() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPROF);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

// Wall mode: every period, signal each thread of the process (listed here, not in the handler).
void* WallThread(void*) {
  t_internal = 1;
  BlockSigprofHere();
  pid_t pid = getpid();
  pid_t self = pid_t(syscall(SYS_gettid));
  uint64_t next = NowNs(CLOCK_MONOTONIC);
  while (!g_wall_stop.load(std::memory_order_relaxed)) {
    DIR* d = opendir("/proc/self/task");
    if (d) {
      while (dirent* e = readdir(d)) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        pid_t tid = pid_t(atoi(e->d_name));
        if (tid != self) syscall(SYS_tgkill, pid, tid, SIGPROF);
      }
      closedir(d);
    }
    next += g_period_ns;
    uint64_t now = NowNs(CLOCK_MONOTONIC);
    if (next > now) SleepNs(next - now); else next = now;
  }
  g_wall_running.store(false);
  return nullptr;
}

// Starts generating SIGPROF: the wall thread or the ITIMER_PROF timer.
bool Arm() {
  g_enabled.store(true);
  if (g_wall) {
    pthread_t t;
    g_wall_stop.store(false);
    g_wall_running.store(true);
    if (RealPthreadCreate(&t, nullptr, WallThread, nullptr) != 0) {
      g_wall_running.store(false);
      Log("cannot start wall sampler");
      return false;
    }
    pthread_detach(t);
  } else {
    itimerval it = {};
    it.it_interval.tv_sec = time_t(g_period_ns / 1000000000ull);
    it.it_interval.tv_usec = suseconds_t((g_period_ns % 1000000000ull) / 1000);
    if (it.it_interval.tv_sec == 0 && it.it_interval.tv_usec == 0) it.it_interval.tv_usec = 1;
    it.it_value = it.it_interval;
    if (setitimer(ITIMER_PROF, &it, nullptr) != 0) { Log("setitimer failed"); return false; }
  }
  return true;
}

}  // namespace

bool Start(uint64_t period_ns, bool wall) {
  g_period_ns = period_ns;
  g_wall = wall;
  g_clock = wall ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID;
  if (const char* f = getenv("STRATA_DEBUG_FAULT_EVERY"); f && atoi(f) > 0) {
    void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page != MAP_FAILED) {
      g_fault_page = static_cast<const int*>(page);
      g_fault_every = uint64_t(atoi(f));
    }
  }

  struct sigaction sa = {};
  sa.sa_sigaction = OnSigprof;
  sa.sa_flags = SA_RESTART | SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  // Managed: a program that later sets its own SIGPROF disposition does not unhook sampling.
  if (!signals::Manage(SIGPROF, OnSigprof, SA_RESTART, /*chain=*/false) &&
      signals::RealSigaction(SIGPROF, &sa, nullptr) != 0) {
    Log("cannot install SIGPROF handler");
    return false;
  }
  return Arm();
}

void Stop() {
  if (!g_enabled.exchange(false)) return;
  if (g_wall) {
    g_wall_stop.store(true);
  } else {
    itimerval it = {};
    setitimer(ITIMER_PROF, &it, nullptr);
  }
}

bool PauseForExec() {
  if (!g_enabled.load()) return false;
  Stop();
  // The wall thread may be between readdir and tgkill; give it up to ~100 ms to leave.
  for (int i = 0; g_wall && g_wall_running.load() && i < 1000; ++i) SleepNs(100000);
  // Setting SIG_IGN discards a pending SIGPROF (POSIX); then our handler goes back in, so a
  // failed exec leaves the program as it was. Exec itself resets the handler to SIG_DFL, which
  // is safe now that nothing generates SIGPROF.
  struct sigaction ours = {}, ign = {};
  signals::RealSigaction(SIGPROF, nullptr, &ours);
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  signals::RealSigaction(SIGPROF, &ign, nullptr);
  signals::RealSigaction(SIGPROF, &ours, nullptr);
  return true;
}

void ResumeAfterFailedExec() { Arm(); }

Counters GetCounters() {
  return Counters{g_samples.load(), g_dropped.load(), g_unwind_failures.load()};
}

}  // namespace strata::rt::sampler
