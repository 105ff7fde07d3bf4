// Entry point of libstrata_runtime.so: reads the STRATA_* configuration when the library is
// loaded, starts the parts (thread registry, unwinder, Python detection, CCT + aggregator,
// sampler), and makes sure the profile is written exactly once: at exit, on SIGINT/SIGTERM
// (when the program left them at default), or best effort on a fatal signal.
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
#include "gpu/gpu.h"
#include "python/py_reader.h"
#include "runtime_state.h"
#include "sampler/sampler.h"
#include "sampler/thread_registry.h"
#include "signals/signal_chain.h"
#include "unwind/native_unwind.h"
#include "writer/profile_output.h"

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

constexpr uint64_t kExitWaitNs = 30ull * 1000000000ull;   // normal exit: writing may take a while
constexpr uint64_t kSignalWaitNs = 3ull * 1000000000ull;  // dying: bounded best effort

Cct* g_cct = nullptr;                // never destroyed: the aggregator may outlive static dtors
Aggregator* g_agg = nullptr;
pid_t g_pid = 0;
uint64_t g_start_unix_ns = 0, g_start_mono_ns = 0;
std::string* g_command = nullptr;
std::atomic<int> g_in_fatal{0};

const int kTermSignals[] = {SIGINT, SIGTERM};
const int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

const char* EndedFor(int sig) {
  switch (sig) {
    case SIGINT: return "signal SIGINT";
    case SIGTERM: return "signal SIGTERM";
    case SIGSEGV: return "signal SIGSEGV";
    case SIGBUS: return "signal SIGBUS";
    case SIGILL: return "signal SIGILL";
    case SIGFPE: return "signal SIGFPE";
    case SIGABRT: return "signal SIGABRT";
    default: return "signal";
  }
}

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
  std::string error;
  if (!writer::WriteProfile(*g_cct, info, &error)) Log("%s", error.c_str());
}

// Stops sampling and has the aggregator write the profile; the first caller's reason wins.
void Finish(const char* ended, uint64_t wait_ns) {
  if (!state::Active() || getpid() != g_pid || !g_agg) return;
  sampler::Stop();
  g_agg->RequestFinish(ended);
  if (g_agg->IsAggregatorThread()) return;  // cannot wait for ourselves
  g_agg->WaitFinished(wait_ns);
}

void OnExit() {
  // CUPTI hands over its last activity buffers on this (normal, non-signal) path only.
  if (state::Active() && getpid() == g_pid && g_agg && !g_agg->Finished()) gpu::FlushForExit();
  Finish("exit", kExitWaitNs);
}

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
  if (t_fault_guard && t_fault_jmp && sig != SIGINT && sig != SIGTERM && sig != SIGABRT)
    siglongjmp(*t_fault_jmp, 1);
  // The program's own handler (e.g. Python's SIGINT -> KeyboardInterrupt) runs as if we were
  // not there; the profile is then written at exit.
  if (signals::ChainToProgram(sig, info, uc)) return;
  int saved_errno = errno;
  if (g_in_fatal.exchange(1) == 0) Finish(EndedFor(sig), kSignalWaitNs);
  errno = saved_errno;
  RestoreDefaultAndRaise(sig);
}

// A forked child (without exec) keeps our code but not our threads or timer: go quiet.
void AtForkChild() {
  state::g_active.store(false);
  sampler::Stop();
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
  for (int s : kTermSignals) signals::Manage(s, OnDeadlySignal, SA_RESTART | SA_ONSTACK, true);
  // SA_NODEFER on faults: after a guarded siglongjmp the signal must not stay blocked.
  for (int s : kFatalSignals) signals::Manage(s, OnDeadlySignal, SA_NODEFER | SA_ONSTACK, true);
  atexit(OnExit);
  pthread_atfork(nullptr, nullptr, AtForkChild);
  if (!g_agg->Start()) { Log("cannot start aggregator; profiling disabled"); state::g_active.store(false); return; }
  if (!sampler::Start(cfg->period_ns, wall)) { Log("cannot start sampler"); }
}

__attribute__((destructor)) void StrataRuntimeFini() { OnExit(); }

}  // namespace
}  // namespace strata::rt
