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
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/clock.h"
#include "common/internal_thread.h"
#include "common/log.h"
#include "common/tls.h"
#include "interpose/pthread_create.h"
#include "python/py_reader.h"
#include "runtime_state.h"
#include "sampler/path_collector.h"
#include "sampler/sample.h"
#include "sampler/signal_choice.h"
#include "sampler/thread_timers.h"
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

// What generates the sampling signal.
enum class Source {
  kThreadTimers,  // a timer per thread on its CPU clock or, wall mode, CLOCK_MONOTONIC (thread_timers.h)
  kItimerProf,    // cpu mode fallback: setitimer(ITIMER_PROF) + SIGPROF, shared with the program
  kWallThread,    // wall mode fallback: our thread tgkills every thread with SIGPROF each period
};

std::atomic<bool> g_enabled{false};
std::atomic<bool> g_wall_stop{false};
std::atomic<bool> g_wall_running{false};  // the wall thread is inside its loop
uint64_t g_period_ns = 10000000;
bool g_wall = false;
clockid_t g_clock = CLOCK_THREAD_CPUTIME_ID;
Source g_source = Source::kThreadTimers;
std::atomic<int> g_signal{0};
// Arming a new thread's timer vs moving every timer to another signal or pausing for exec
// (normal context only; never taken in a signal handler).
std::atomic_flag g_timers_busy = ATOMIC_FLAG_INIT;
std::atomic<uint64_t> g_timer_failures{0};  // threads whose timer the kernel refused
std::string* g_status = nullptr;             // meta `sampler`

// Test hook (STRATA_DEBUG_FAULT_EVERY=N): every Nth sample reads a PROT_NONE page inside the
// fault guard, so tests can check a bad read costs one sample and not the process.
uint64_t g_fault_every = 0;
uint64_t g_fault_count = 0;
volatile const int* g_fault_page = nullptr;

std::atomic<uint64_t> g_samples{0};
std::atomic<uint64_t> g_dropped{0};
std::atomic<uint64_t> g_unwind_failures{0};
// Time inside the handler (CLOCK_MONOTONIC: a vDSO read, no system call), for meta `sampler`:
// what one sample costs the interrupted thread on this machine and program.
std::atomic<uint64_t> g_handler_ns{0};
std::atomic<uint64_t> g_handler_calls{0};
std::atomic<uint64_t> g_handler_max_ns{0};

void NoteHandlerTime(uint64_t ns) {
  g_handler_ns.fetch_add(ns, std::memory_order_relaxed);
  g_handler_calls.fetch_add(1, std::memory_order_relaxed);
  uint64_t m = g_handler_max_ns.load(std::memory_order_relaxed);
  while (ns > m && !g_handler_max_ns.compare_exchange_weak(m, ns, std::memory_order_relaxed)) {}
}

void TakeSample(ucontext_t* uc) {
  ThreadSlot* slot = registry::CurrentThreadSlot();
  if (!slot) { g_dropped.fetch_add(1, std::memory_order_relaxed); return; }
  uint64_t now = NowNs(g_clock);
  uint64_t value = slot->last_ns ? now - slot->last_ns : g_period_ns;
  slot->last_ns = now;
  // With CPU-time sampling, the wall time between a thread's samples too: a phase's wall time
  // (a training loop's steady state) is then the sum over its samples, not an estimate.
  uint64_t elapsed = 0;
  if (g_clock != CLOCK_MONOTONIC) {
    uint64_t wall = NowNs(CLOCK_MONOTONIC);
    elapsed = slot->last_wall_ns && wall > slot->last_wall_ns ? wall - slot->last_wall_ns : 0;
    slot->last_wall_ns = wall;
  }
  SampleRecord* rec = slot->ring.Reserve();
  if (!rec) { g_dropped.fetch_add(1, std::memory_order_relaxed); return; }

  if (g_fault_every && ++g_fault_count % g_fault_every == 0) (void)*g_fault_page;
  CollectedPath path = CollectPath(uc, slot, 0, rec->frames, kMaxDepth);
  uint16_t flags = path.flags;
  if (flags & kSampleNamesDropped) { g_dropped.fetch_add(1, std::memory_order_relaxed); return; }
  rec->value = value;
  rec->elapsed = elapsed;
  uint64_t own = slot->own_ns.exchange(0, std::memory_order_relaxed);
  rec->own_ns = uint32_t(own < 0xFFFFFFFFull ? own : 0xFFFFFFFFull);
  rec->flags = flags;
  rec->depth = uint16_t(path.depth);
  slot->ring.Commit();
  g_samples.fetch_add(1, std::memory_order_relaxed);
  if (flags & (kSampleUnwindFailed | kSamplePcOnly))
    g_unwind_failures.fetch_add(1, std::memory_order_relaxed);
}

void OnSampleSignal(int, siginfo_t*, void* ucv) {
  int saved_errno = errno;
  if (g_enabled.load(std::memory_order_relaxed) && !t_internal && !t_in_handler) {
    uint64_t start = NowNs(CLOCK_MONOTONIC);
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
    uint64_t spent = NowNs(CLOCK_MONOTONIC) - start;
    NoteHandlerTime(spent);
    if (ThreadSlot* slot = registry::CurrentThreadSlot()) slot->own_ns.fetch_add(spent, std::memory_order_relaxed);
  }
  errno = saved_errno;
}

class TimersBusy {
 public:
  TimersBusy() { while (g_timers_busy.test_and_set(std::memory_order_acquire)) SleepNs(50000); }
  ~TimersBusy() { g_timers_busy.clear(std::memory_order_release); }
};

std::string SignalName(int sig) {
  char name[32];
  signal_choice::Name(sig, name, sizeof name);
  return name;
}

// Wall mode: every period, signal each thread of the process (listed here, not in the handler).
void* WallThread(void*) {
  t_internal = 1;
  BlockAsyncSignalsHere();
  pid_t pid = getpid();
  pid_t self = pid_t(syscall(SYS_gettid));
  uint64_t next = NowNs(CLOCK_MONOTONIC);
  while (!g_wall_stop.load(std::memory_order_relaxed)) {
    DIR* d = opendir("/proc/self/task");
    if (d) {
      int sig = g_signal.load(std::memory_order_relaxed);
      while (dirent* e = readdir(d)) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        pid_t tid = pid_t(atoi(e->d_name));
        if (tid != self) syscall(SYS_tgkill, pid, tid, sig);
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

// Our handler on `sig`; managed without chaining, so a program's later disposition for it is
// seen first by GiveSignalBack.
bool InstallHandler(int sig) {
  struct sigaction sa = {};
  sa.sa_sigaction = OnSampleSignal;
  sa.sa_flags = SA_RESTART | SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  return signals::Manage(sig, OnSampleSignal, SA_RESTART, /*chain=*/false) ||
         signals::RealSigaction(sig, &sa, nullptr) == 0;
}

void ArmThread(ThreadSlot* slot) {
  if (!thread_timers::Arm(slot, g_signal.load(), g_period_ns, g_wall))
    g_timer_failures.fetch_add(1, std::memory_order_relaxed);
}

// Every live thread's timer, from this thread (slots carry the tids).
void ArmAllThreads() {
  ThreadSlot* slots = registry::Slots();
  for (uint32_t i = 0, n = registry::SlotsInUse(); i < n; ++i)
    if (slots[i].state.load(std::memory_order_acquire) == kSlotActive && slots[i].tid) ArmThread(&slots[i]);
}

void DisarmAllThreads() {  // async-signal-safe
  ThreadSlot* slots = registry::Slots();
  for (uint32_t i = 0, n = registry::SlotsInUse(); i < n; ++i) thread_timers::Disarm(&slots[i]);
}

// Starts generating the sampling signal.
bool Arm() {
  g_enabled.store(true);
  switch (g_source) {
    case Source::kWallThread: {
      pthread_t t;
      g_wall_stop.store(false);
      g_wall_running.store(true);
      if (RealPthreadCreate(&t, nullptr, WallThread, nullptr) != 0) {
        g_wall_running.store(false);
        Log("cannot start wall sampler");
        return false;
      }
      pthread_detach(t);
      return true;
    }
    case Source::kThreadTimers: {
      TimersBusy busy;
      ArmAllThreads();
      return true;
    }
    case Source::kItimerProf: {
      itimerval it = {};
      it.it_interval.tv_sec = time_t(g_period_ns / 1000000000ull);
      it.it_interval.tv_usec = suseconds_t((g_period_ns % 1000000000ull) / 1000);
      if (it.it_interval.tv_sec == 0 && it.it_interval.tv_usec == 0) it.it_interval.tv_usec = 1;
      it.it_value = it.it_interval;
      if (setitimer(ITIMER_PROF, &it, nullptr) != 0) { Log("setitimer failed"); return false; }
      return true;
    }
  }
  return false;
}

// Per-thread timers when the kernel gives us a free real-time signal and a timer for this
// thread; otherwise ITIMER_PROF (cpu) or the tgkill thread (wall) on SIGPROF — a standard
// signal, so undelivered ones merge instead of queueing — said at start and in meta `sampler`.
void ChooseSource() {
  std::string why;
  int sig = signal_choice::Pick();
  if (!sig) {
    why = "no free real-time signal";
  } else if (!InstallHandler(sig)) {
    why = "cannot install a handler for " + SignalName(sig);
  } else {
    ThreadSlot* self = registry::CurrentThreadSlot();
    g_signal.store(sig);
    if (self && thread_timers::Arm(self, sig, g_period_ns, g_wall)) {
      thread_timers::Disarm(self);  // Arm() arms every thread, this one included
      g_source = Source::kThreadTimers;
      *g_status = std::string(g_wall ? "thread wall-clock timers" : "thread CPU timers") +
                  " (timer_create), " + SignalName(sig);
      return;
    }
    why = std::string("timer_create: ") + strerror(errno);
    signals::Release(sig);
  }
  g_source = g_wall ? Source::kWallThread : Source::kItimerProf;
  g_signal.store(SIGPROF);
  InstallHandler(SIGPROF);
  const char* how = g_wall ? "wall thread (tgkill)" : "setitimer(ITIMER_PROF)";
  *g_status = std::string(how) + ", SIGPROF (" + why + "): a program's own SIGPROF" +
              (g_wall ? "" : " or ITIMER_PROF") + " is not honoured";
  Log("sampling with %s and SIGPROF: %s; the program's own SIGPROF handler is overridden", how, why.c_str());
}

}  // namespace

bool Start(uint64_t period_ns, bool wall) {
  g_period_ns = period_ns;
  g_wall = wall;
  g_clock = wall ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID;
  g_status = new std::string();
  if (const char* f = getenv("STRATA_DEBUG_FAULT_EVERY"); f && atoi(f) > 0) {
    void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page != MAP_FAILED) {
      g_fault_page = static_cast<const int*>(page);
      g_fault_every = uint64_t(atoi(f));
    }
  }
  ChooseSource();
  return Arm();
}

void Stop() {
  if (!g_enabled.exchange(false)) return;
  switch (g_source) {
    case Source::kWallThread: g_wall_stop.store(true); break;
    case Source::kThreadTimers: DisarmAllThreads(); break;
    case Source::kItimerProf: {
      itimerval it = {};
      setitimer(ITIMER_PROF, &it, nullptr);
      break;
    }
  }
}

void OnThreadStart(ThreadSlot* slot) {
  if (!slot || g_source != Source::kThreadTimers || !g_enabled.load()) return;
  TimersBusy busy;
  if (g_enabled.load()) ArmThread(slot);
}

void OnThreadExit(ThreadSlot* slot) { thread_timers::Disarm(slot); }

void OnForkChild() {
  // The child has none of our timers (fork does not copy them): forget their ids unused. Only
  // where one is set: a store to every slot copied a page per slot in each forked child (a
  // shell's command substitution cost ~4 ms).
  ThreadSlot* slots = registry::Slots();
  for (uint32_t i = 0, n = registry::SlotsInUse(); slots && i < n; ++i)
    if (slots[i].timer_id_plus1.load(std::memory_order_relaxed) != 0) slots[i].timer_id_plus1.store(0);
  g_enabled.store(false);
}

bool RestartInForkChild() {
  g_samples.store(0);
  g_dropped.store(0);
  g_unwind_failures.store(0);
  g_handler_ns.store(0);
  g_handler_calls.store(0);
  g_handler_max_ns.store(0);
  return Arm();
}

bool IsSamplingSignal(int sig) {
  return state::Active() && sig != SIGPROF && sig == g_signal.load();
}

void GiveSignalBack(int sig) {
  TimersBusy busy;
  if (sig != g_signal.load() || sig == SIGPROF) return;
  signal_choice::MarkTaken(sig);
  int next = signal_choice::Pick();
  std::string note;
  if (next && InstallHandler(next)) {
    g_signal.store(next);
    if (g_source == Source::kThreadTimers && g_enabled.load()) ArmAllThreads();  // replaces each timer
    note = "; moved to " + SignalName(next) + " when the program set a handler for " + SignalName(sig);
  } else {
    Stop();
    note = "; stopped when the program set a handler for " + SignalName(sig) + " (no other real-time signal free)";
    Log("sampling stopped: the program took %s and no other real-time signal is free", SignalName(sig).c_str());
  }
  if (g_status) *g_status += note;
  signals::Release(sig);
}

std::string StatusLine() {
  std::string s = g_status ? *g_status : "not started";
  if (uint64_t f = g_timer_failures.load()) s += "; " + std::to_string(f) + " threads without a timer (timer_create refused)";
  if (uint64_t n = g_handler_calls.load()) {
    char cost[128];
    snprintf(cost, sizeof cost, "; handler %.1f us a sample (max %.1f us)", double(g_handler_ns.load()) / 1e3 / double(n),
             double(g_handler_max_ns.load()) / 1e3);
    s += cost;
  }
  if (!unwind::CachePerThread()) s += "; libunwind without a per-thread cache (one lock per frame)";
  return s;
}

bool PauseForExec() {
  if (!g_enabled.load()) return false;
  {
    TimersBusy busy;
    Stop();
  }
  // The wall thread may be between readdir and tgkill; give it up to ~100 ms to leave.
  for (int i = 0; g_wall && g_wall_running.load() && i < 1000; ++i) SleepNs(100000);
  // Setting SIG_IGN discards a pending sampling signal (POSIX); then our handler goes back in,
  // so a failed exec leaves the program as it was. Exec itself resets the handler to SIG_DFL
  // (a real-time signal's default kills), which is safe now that nothing generates it.
  int sig = g_signal.load();
  struct sigaction ours = {}, ign = {};
  signals::RealSigaction(sig, nullptr, &ours);
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  signals::RealSigaction(sig, &ign, nullptr);
  signals::RealSigaction(sig, &ours, nullptr);
  return true;
}

void ResumeAfterFailedExec() { Arm(); }

Counters GetCounters() {
  return Counters{g_samples.load(), g_dropped.load(), g_unwind_failures.load()};
}

}  // namespace strata::rt::sampler
