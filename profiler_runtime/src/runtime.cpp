// Entry point of libstrata_runtime.so: reads the STRATA_* configuration when the library is
// loaded, starts the parts (thread registry, unwinder, Python detection, CCT + aggregator,
// sampler), and makes sure the profile is written exactly once: at exit or _exit, on a
// terminating signal (SIGINT, SIGTERM, SIGHUP, ... when the program left it at default), or best
// effort on a fatal signal.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "aggregator/aggregator.h"
#include "cct/cct.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/tls.h"
#include "end_of_run.h"
#include "gpu/gpu.h"
#include "python/py_reader.h"
#include "runtime_state.h"
#include "sampler/sampler.h"
#include "sampler/thread_registry.h"
#include "signals/forwarded_copies.h"
#include "signals/signal_chain.h"
#include "unwind/native_unwind.h"
#include "writer/profile_output.h"
#include "writer/run_status.h"

namespace strata::rt {

void Log(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  fprintf(stderr, "strata_runtime: %s\n", buf);
}

namespace state {
namespace {
std::atomic<bool> g_active{false};
Config* g_config = nullptr;
pid_t g_profiled_pid = 0;
}  // namespace
bool Active() { return g_active.load(std::memory_order_relaxed); }
pid_t ProfiledPid() { return g_profiled_pid; }
const Config& GetConfig() { return *g_config; }
}  // namespace state

namespace {

// Exit and terminating signals (Ctrl-C, a scheduler's SIGTERM): the profile is the point of
// the run and writing a large one may take a while. Faults: the process may be corrupt, so a
// bounded best effort.
constexpr uint64_t kEndWaitNs = 30ull * 1000000000ull;
constexpr uint64_t kFaultWaitNs = 3ull * 1000000000ull;

Cct* g_cct = nullptr;                // never destroyed: the aggregator may outlive static dtors
Aggregator* g_agg = nullptr;
pid_t g_pid = 0;
uint64_t g_start_unix_ns = 0, g_start_mono_ns = 0;
std::string* g_command = nullptr;
std::atomic<int> g_in_fatal{0};
std::atomic<int> g_ending_told{0};
STRATA_TLS int t_finishing = 0;  // this thread runs the fatal path's Finish

// Signals whose default action ends the process: each is handled so that the profile is
// written first (then the default action runs), and chained when the program sets a handler.
const int kTermSignals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGPIPE,
                            SIGALRM, SIGXCPU, SIGXFSZ, SIGVTALRM};
const int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

bool IsFault(int sig) {
  for (int s : kFatalSignals) if (s == sig) return true;
  return false;
}

// "signal SIGINT", ... for meta `ended`: filled at start, read in handlers.
char g_ended_names[NSIG][24];

void NameSignals() {
  for (int sig = 1; sig < NSIG; ++sig) {
    const char* abbrev = sigabbrev_np(sig);
    if (abbrev) snprintf(g_ended_names[sig], sizeof g_ended_names[sig], "signal SIG%s", abbrev);
    else snprintf(g_ended_names[sig], sizeof g_ended_names[sig], "signal %d", sig);
  }
}

const char* EndedFor(int sig) { return sig > 0 && sig < NSIG ? g_ended_names[sig] : "signal"; }

bool ParseConfig(state::Config* c) {
  const char* out = getenv("STRATA_OUTPUT");
  if (!out || !*out) return false;
  const char* target = getenv("STRATA_TARGET_PID");
  if (target && *target && atol(target) != long(getpid())) return false;  // a child: stay out
  c->output = out;
  if (out[0] != '/') {  // the program may chdir before it exits
    char cwd[4096];
    if (getcwd(cwd, sizeof(cwd))) c->output = std::string(cwd) + "/" + out;
  }
  if (const char* p = getenv("STRATA_PERIOD_MS"); p && *p) {
    char* end = nullptr;
    double ms = strtod(p, &end);
    if (end == p || *end != '\0' || !(ms >= 0.01 && ms <= 10000)) {
      Log("ignoring STRATA_PERIOD_MS=%s (want a number of ms in [0.01, 10000]); using 10", p);
    } else {
      c->period_ns = uint64_t(ms * 1e6);
    }
    c->period_text = p;
  }
  if (const char* m = getenv("STRATA_MODE"); m && *m) {
    if (strcmp(m, "wall") == 0) c->mode = state::Mode::kWall;
    else if (strcmp(m, "cpu") != 0) Log("unknown STRATA_MODE=%s; using cpu", m);
  }
  return true;
}

// Runs on the aggregator thread after its final drain.
void OnFinish(const char* ended) {
  const state::Config& cfg = state::GetConfig();
  sampler::Counters c = sampler::GetCounters();
  writer::RunInfo info;
  info.output = cfg.output;
  info.command = *g_command;
  info.pid = int(g_pid);
  info.mode = cfg.mode == state::Mode::kWall ? "wall" : "cpu";
  info.period_ns = cfg.period_ns;
  info.start_unix_ns = g_start_unix_ns;
  info.duration_ns = NowNs(CLOCK_MONOTONIC) - g_start_mono_ns;
  info.samples = g_agg->SamplesAggregated();
  info.samples_dropped = c.dropped + registry::SlotExhausted();
  info.unwind_failures = c.unwind_failures;
  info.python = python::VersionString();
  info.threads_seen = registry::ThreadsSeen();
  info.ended = ended;
  info.gpu = gpu::StatusLine();
  info.pc_sampling = gpu::PcSamplingStatusLine();
  info.regions = gpu::RegionsStatusLine();
  info.sampler = sampler::StatusLine();
  std::string error;
  if (writer::WriteProfile(*g_cct, info, &error)) {
    run_status::Written();
  } else {
    Log("%s", error.c_str());
    run_status::NotWritten(error.c_str());
  }
}

// Stops sampling and has the aggregator write the profile; the first caller's reason wins.
void Finish(const char* ended, uint64_t wait_ns) {
  if (!state::Active() || getpid() != g_pid || !g_agg) return;
  sampler::Stop();
  if (g_ending_told.exchange(1) == 0) run_status::Ending(ended);
  g_agg->RequestFinish(ended);
  if (g_agg->IsAggregatorThread()) return;  // cannot wait for ourselves
  g_agg->WaitFinished(wait_ns);
}

void EndNormally(const char* ended) {
  // CUPTI hands over its last activity buffers on this (normal, non-signal) path only.
  if (state::Active() && getpid() == g_pid && g_agg && !g_agg->Finished()) gpu::FlushForExit();
  Finish(ended, kEndWaitNs);
}

void OnExit() { EndNormally("exit"); }

void RestoreDefaultAndRaise(int sig) {
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  signals::RealSigaction(sig, &dfl, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
}

void OnDeadlySignal(int sig, siginfo_t* info, void* uc) {
  // A fault inside the sampler's own memory reads: abandon that sample, keep the program.
  if (t_fault_guard && t_fault_jmp && IsFault(sig) && sig != SIGABRT) siglongjmp(*t_fault_jmp, 1);
  // The second delivery of one kill to strata record's process group (direct + forwarded).
  if (signals::IsForwardedDuplicate(sig, info)) return;
  // The program's own handler (e.g. Python's SIGINT -> KeyboardInterrupt) runs as if we were
  // not there; the profile is then written at exit.
  if (signals::ChainToProgram(sig, info, uc)) return;
  int saved_errno = errno;
  uint64_t wait_ns = IsFault(sig) ? kFaultWaitNs : kEndWaitNs;
  if (g_in_fatal.exchange(1) == 0) {
    t_finishing = 1;
    Finish(EndedFor(sig), wait_ns);
  } else if (!t_finishing && g_agg && !g_agg->IsAggregatorThread()) {
    // Another thread is writing the profile (a second signal landed on another thread, or the
    // program's exit is under way): dying now would lose it.
    g_agg->WaitFinished(wait_ns);
  }
  errno = saved_errno;
  RestoreDefaultAndRaise(sig);
}

// A forked child (without exec) keeps our code but not our threads or timer: go quiet.
void AtForkChild() {
  state::g_active.store(false);
  sampler::OnForkChild();
  gpu::OnForkChild();
}

__attribute__((constructor)) void StrataRuntimeInit() {
  auto* cfg = new state::Config();
  if (!ParseConfig(cfg)) { delete cfg; return; }
  state::g_config = cfg;
  g_pid = getpid();
  state::g_profiled_pid = g_pid;
  // Children that inherit LD_PRELOAD (exec'd subprocesses) see a different pid and stay out.
  if (!getenv("STRATA_TARGET_PID")) setenv("STRATA_TARGET_PID", std::to_string(g_pid).c_str(), 1);
  g_start_unix_ns = NowNs(CLOCK_REALTIME);
  g_start_mono_ns = NowNs(CLOCK_MONOTONIC);
  g_command = new std::string(writer::ReadCommandLine());
  NameSignals();
  run_status::Open();

  if (!registry::Init()) { Log("cannot map sample buffers; profiling disabled"); return; }
  unwind::Init();
  python::Detect();
  g_cct = new Cct();
  bool wall = cfg->mode == state::Mode::kWall;
  uint32_t metric = g_cct->Metric(wall ? "wall_time" : "cpu_time", "ns");
  g_agg = new Aggregator(g_cct, metric, OnFinish);
  gpu::OnRuntimeStart(g_agg);  // before the aggregator starts: it installs a drain hook

  state::g_active.store(true);
  registry::RegisterCurrentThread();
  // No SA_RESTART of our own: the program's flags are mirrored once it sets a handler.
  for (int s : kTermSignals) signals::Manage(s, OnDeadlySignal, SA_ONSTACK, true);
  // SA_NODEFER on faults: after a guarded siglongjmp the signal must not stay blocked.
  for (int s : kFatalSignals) signals::Manage(s, OnDeadlySignal, SA_NODEFER | SA_ONSTACK, true);
  atexit(OnExit);
  pthread_atfork(nullptr, nullptr, AtForkChild);
  if (!g_agg->Start()) { Log("cannot start aggregator; profiling disabled"); state::g_active.store(false); return; }
  if (!sampler::Start(cfg->period_ns, wall)) { Log("cannot start sampler"); }
}

__attribute__((destructor)) void StrataRuntimeFini() { OnExit(); }

}  // namespace

void EndBeforeProcessExit(const char* ended) { EndNormally(ended); }

}  // namespace strata::rt
