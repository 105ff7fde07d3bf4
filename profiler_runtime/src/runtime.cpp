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
#include "children/toolchain_helper.h"
#include "collectives/collective_recorder.h"
#include "common/clock.h"
#include "common/loaded_objects.h"
#include "common/log.h"
#include "common/tls.h"
#include "end_of_run.h"
#include "gpu/gpu.h"
#include "ops/op_registry.h"
#include "ops/torch_loader.h"
#include "python/code_names.h"
#include "python/py_reader.h"
#include "ranks/rank_identity.h"
#include "runtime_state.h"
#include "sampler/sampler.h"
#include "sampler/thread_registry.h"
#include "signals/forwarded_copies.h"
#include "signals/signal_chain.h"
#include "strata/rank_list.h"
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
// Checkpoints (aggregator thread only).
uint64_t g_checkpoints = 0;
uint64_t g_last_checkpoint_ns = 0;  // its duration_ns
bool g_checkpoint_failed_told = false;

// Environment between a profiled process and the processes it starts.
constexpr const char* kChildrenEnv = "STRATA_CHILDREN";
constexpr const char* kCheckpointEnv = "STRATA_CHECKPOINT_S";
constexpr const char* kProfilePidEnv = "STRATA_PROFILE_PID";
constexpr const char* kProfilePathEnv = "STRATA_PROFILE_PATH";
constexpr const char* kParentPidEnv = "STRATA_PARENT_PID";
constexpr const char* kParentProfileEnv = "STRATA_PARENT_PROFILE";
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

std::string Env(const char* name) {
  const char* v = getenv(name);
  return v ? v : "";
}

// A child's profile: beside the first process's, named for the child's pid
// (run.strata -> run.4242.strata).
std::string ChildOutput(const std::string& first, long pid) {
  std::string stem = first;
  const std::string ext = ".strata";
  if (stem.size() > ext.size() && stem.compare(stem.size() - ext.size(), ext.size(), ext) == 0)
    stem.resize(stem.size() - ext.size());
  return stem + "." + std::to_string(pid) + ext;
}

// Which process this is and where its profile goes. The environment names the nearest
// profiled process (kProfilePidEnv, set by each profiled process to itself, so an exec'd image
// keeps its profile and a child finds its parent) and the parent of that one (for its exec'd
// image). False: stay inactive.
bool ParseConfig(state::Config* c) {
  const char* out = getenv("STRATA_OUTPUT");
  if (!out || !*out) return false;
  c->follow_children = Env(kChildrenEnv) != "0";
  const long self = long(getpid());
  const std::string target = Env("STRATA_TARGET_PID");
  const std::string profile_pid = Env(kProfilePidEnv);
  std::string first = out;
  if (out[0] != '/') {  // the program may chdir before it exits
    char cwd[4096];
    if (getcwd(cwd, sizeof(cwd))) first = std::string(cwd) + "/" + out;
  }
  c->first_output = first;
  if (!profile_pid.empty() && atol(profile_pid.c_str()) == self) {
    // Our own image before an exec: the same profile, the same parent.
    c->output = Env(kProfilePathEnv);
    c->parent_pid = atol(Env(kParentPidEnv).c_str());
    c->parent_profile = Env(kParentProfileEnv);
    c->first_process = c->parent_pid == 0;
    if (c->output.empty()) c->output = first;
  } else if (profile_pid.empty() && (target.empty() || atol(target.c_str()) == self)) {
    c->output = first;  // the process strata record started
  } else {
    // Started by a profiled process (exec'd or spawned): followed unless told otherwise. An
    // inherited STRATA_TARGET_PID without a profiled parent (an environment copied from
    // elsewhere) stays out.
    if (!c->follow_children || profile_pid.empty()) return false;
    // Compiler toolchain helpers (ptxas, cc1plus, ld ...) are not the program's work.
    if (Env("STRATA_TOOLCHAIN_CHILDREN") != "1" && children::IsToolchainHelper(children::OwnExecutableName())) return false;
    c->parent_pid = atol(profile_pid.c_str());
    c->parent_profile = Env(kProfilePathEnv);
    c->first_process = false;
    c->output = ChildOutput(first, self);
  }
  // Profiling a compiler or a build: its toolchain children are the work (unless told otherwise).
  if (c->first_process && !getenv("STRATA_TOOLCHAIN_CHILDREN") &&
      children::RunsToolchainAsItsWork(children::OwnExecutableName()))
    setenv("STRATA_TOOLCHAIN_CHILDREN", "1", 0);
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
  if (const char* k = getenv(kCheckpointEnv); k && *k) {
    char* end = nullptr;
    double sec = strtod(k, &end);
    if (end == k || *end != '\0' || !(sec == 0 || (sec >= 1 && sec <= 1e6))) {
      Log("ignoring %s=%s (want 0 or seconds in [1, 1000000]); using 60", kCheckpointEnv, k);
    } else {
      c->checkpoint_ns = uint64_t(sec * 1e9);
    }
  }
  c->identity = ranks::ReadRankIdentity();
  // Only the listed ranks: a rank not listed (and the processes it starts, which carry its
  // rank) stays unprofiled; a process without a rank (the launcher) is profiled as before.
  // A bad list is said once, by the first process, and then every rank is profiled.
  if (const char* list = getenv(rank_list::kRanksEnv); list && *list) {
    std::string why;
    if (!rank_list::Parse(list, &why)) {
      if (c->first_process) Log("ignoring STRATA_RANKS=%s (%s); profiling every rank", list, why.c_str());
    } else if (!c->identity.rank.empty() && !rank_list::Listed(list, atol(c->identity.rank.c_str()))) {
      return false;
    }
  }
  return true;
}

// What this process's children (exec'd or spawned, and an exec of itself) read in ParseConfig.
// All four are always set (empty: no parent), so that a forked child, which sets them again,
// only replaces values: adding a variable makes glibc realloc the environ array, and a program
// that kept a pointer to it (strace's child, any fork-then-execve(path, argv, saved_envp))
// then execs with freed memory for an environment (EFAULT, or garbage passed on).
void ExportForChildren(const state::Config& c, pid_t self) {
  setenv(kProfilePidEnv, std::to_string(self).c_str(), 1);
  setenv(kProfilePathEnv, c.output.c_str(), 1);
  setenv(kParentPidEnv, c.parent_pid ? std::to_string(c.parent_pid).c_str() : "", 1);
  setenv(kParentProfileEnv, c.parent_pid ? c.parent_profile.c_str() : "", 1);
}

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

writer::RunInfo MakeRunInfo(const char* ended) {
  const state::Config& cfg = state::GetConfig();
  sampler::Counters c = sampler::GetCounters();
  writer::RunInfo info;
  info.output = cfg.output;
  info.command = *g_command;
  info.pid = int(g_pid);
  info.mode = cfg.mode == state::Mode::kWall ? "wall" : "cpu";
  info.period_ns = cfg.period_ns;
  info.start_unix_ns = g_start_unix_ns;
  info.start_monotonic_ns = g_start_mono_ns;
  info.duration_ns = NowNs(CLOCK_MONOTONIC) - g_start_mono_ns;
  info.samples = g_agg->SamplesAggregated();
  info.samples_dropped = c.dropped + registry::SlotExhausted();
  info.unwind_failures = c.unwind_failures;
  info.python = python::VersionString();
  info.threads_seen = registry::ThreadsSeen();
  info.ended = ended;
  gpu::GpuStatus gpu = gpu::StatusNow();
  info.gpu = std::move(gpu.line);
  info.gpu_sampling = std::move(gpu.sampled.meta);
  for (auto& [name, factor] : gpu.sampled.metric_factors) info.metric_factors.push_back(Cct::MetricFactor{name, factor});
  info.pc_sampling = gpu::PcSamplingStatusLine();
  info.regions = gpu::RegionsStatusLine();
  info.sampler = sampler::StatusLine();
  info.checkpoint_period_ns = cfg.checkpoint_ns;
  info.checkpoints = g_checkpoints;
  info.parent_pid = cfg.parent_pid;
  info.parent_profile = BaseName(cfg.parent_profile);
  info.identity = ranks::RankMeta(cfg.identity);
  info.collectives = collectives::StatusLine();
  return info;
}

// The start as a pair of clocks read together (monotonic between two real-time readings, their
// midpoint): the merged view of a run maps each rank's monotonic times to one wall clock.
void ReadStartClocks() {
  uint64_t a = NowNs(CLOCK_REALTIME);
  g_start_mono_ns = NowNs(CLOCK_MONOTONIC);
  uint64_t b = NowNs(CLOCK_REALTIME);
  g_start_unix_ns = a + (b - a) / 2;
}

// Runs on the aggregator thread every checkpoint period: the profile so far, meta `ended`
// "checkpoint". A failed write leaves the previous file; said once on stderr.
void OnCheckpoint(const std::vector<Cct::TransientValue>& transient) {
  writer::RunInfo info = MakeRunInfo("checkpoint");
  info.checkpoints = g_checkpoints + 1;
  std::string error;
  if (writer::WriteProfile(*g_cct, info, &error, transient)) {
    ++g_checkpoints;
    g_last_checkpoint_ns = info.duration_ns;
    g_checkpoint_failed_told = false;
  } else if (!g_checkpoint_failed_told) {
    g_checkpoint_failed_told = true;
    Log("checkpoint not written (%s)%s", error.c_str(),
        g_checkpoints ? "; the previous checkpoint is kept" : "");
  }
}

// Runs on the aggregator thread after its final drain.
void OnFinish(const char* ended) {
  writer::RunInfo info = MakeRunInfo(ended);
  // A child that left nothing (no sample, no GPU work, no checkpoint) writes no file: launchers'
  // helper processes (pyenv's shims start dozens) would bury the program's own profiles.
  if (info.parent_pid && info.samples == 0 && g_checkpoints == 0 && info.gpu.rfind("collected", 0) != 0) return;
  std::string error;
  if (writer::WriteProfile(*g_cct, info, &error)) {
    run_status::Written();
  } else {
    if (g_checkpoints) {
      char kept[128];
      snprintf(kept, sizeof kept, "; the checkpoint written %.1f s into the run is kept",
               double(g_last_checkpoint_ns) / 1e9);
      error += kept;
    }
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

// fork() copies one thread: the locks the aggregator and the program's threads take are held
// across it (this order: the CCT, then the two name tables it calls into), so the child never
// inherits one held by a thread that does not exist there. Last, every thread's walks over the
// loaded objects are drained (they hold the loader's lock, which the child would inherit held).
std::atomic<bool> g_fork_locked{false};

void AtForkPrepare() {
  if (!state::Active() || getpid() != g_pid || !g_cct) return;
  g_cct->LockForFork();
  ops::LockForFork();
  python::LockForFork();
  HoldWalksForFork();
  g_fork_locked.store(true);
}

void UnlockForkLocks(bool in_child) {
  if (!g_fork_locked.exchange(false)) return;
  ReleaseWalksAfterFork(in_child);
  python::UnlockAfterFork();
  ops::UnlockAfterFork();
  g_cct->UnlockAfterFork();
}

void AtForkParent() { UnlockForkLocks(false); }

// A forked child (without exec: multiprocessing's fork start method, DataLoader workers, a
// server's workers) keeps our code but not our threads or timers. Followed, it profiles itself
// from here into a profile of its own (a new CCT: the parent's samples stay the parent's);
// otherwise it goes quiet.
void AtForkChild() {
  UnlockForkLocks(true);
  unwind::OnForkChild();
  sampler::OnForkChild();
  gpu::OnForkChild();  // CUDA does not survive fork
  auto* cfg = state::g_config;
  if (!state::Active() || !cfg || !cfg->follow_children || !g_agg) {
    state::g_active.store(false);
    return;
  }
  if (g_agg->Finished() || g_in_fatal.load()) {  // forked while ending: nothing to follow
    state::g_active.store(false);
    return;
  }
  pid_t parent = g_pid;
  cfg->parent_pid = long(parent);
  cfg->parent_profile = cfg->output;
  cfg->first_process = false;
  g_pid = getpid();
  state::g_profiled_pid = g_pid;
  cfg->output = ChildOutput(cfg->first_output, long(g_pid));
  ExportForChildren(*cfg, g_pid);
  run_status::Close();
  ReadStartClocks();
  cfg->identity = ranks::ReadRankIdentity();  // the parent's env: the same rank, run id
  g_checkpoints = 0;
  g_last_checkpoint_ns = 0;
  g_checkpoint_failed_told = false;
  g_ending_told.store(0);
  registry::ResetInForkChild();
  // The parent's CCT and aggregator are left as they are (their pages are the parent's copy;
  // the aggregator thread does not exist here).
  g_cct = new Cct();
  bool wall = cfg->mode == state::Mode::kWall;
  uint32_t metric = g_cct->Metric(wall ? "wall_time" : "cpu_time", "ns");
  g_agg = new Aggregator(g_cct, metric, OnFinish);
  g_agg->SetCheckpoint(cfg->checkpoint_ns, OnCheckpoint);
  collectives::ResetInForkChild();
  collectives::Install(g_agg);
  if (!g_agg->Start()) { state::g_active.store(false); return; }
  sampler::RestartInForkChild();
}

__attribute__((constructor)) void StrataRuntimeInit() {
  auto* cfg = new state::Config();
  if (!ParseConfig(cfg)) { delete cfg; return; }
  state::g_config = cfg;
  g_pid = getpid();
  state::g_profiled_pid = g_pid;
  // A process started without strata record: its children must not take it for their parent
  // image, nor profile when children are not followed.
  if (!getenv("STRATA_TARGET_PID")) setenv("STRATA_TARGET_PID", std::to_string(g_pid).c_str(), 1);
  ExportForChildren(*cfg, g_pid);
  ReadStartClocks();
  g_command = new std::string(writer::ReadCommandLine());
  NameSignals();
  // The status file speaks of the first process only (strata record waits for that one).
  if (cfg->first_process) run_status::Open();
  run_status::OpenForReaping();

  if (!registry::Init()) { Log("cannot map sample buffers; profiling disabled"); return; }
  unwind::Init();
  python::Detect();
  g_cct = new Cct();
  bool wall = cfg->mode == state::Mode::kWall;
  uint32_t metric = g_cct->Metric(wall ? "wall_time" : "cpu_time", "ns");
  g_agg = new Aggregator(g_cct, metric, OnFinish);
  g_agg->SetCheckpoint(cfg->checkpoint_ns, OnCheckpoint);
  gpu::OnRuntimeStart(g_agg);  // before the aggregator starts: it installs a drain hook
  collectives::Install(g_agg);

  state::g_active.store(true);
  registry::RegisterCurrentThread();
  // No SA_RESTART of our own: the program's flags are mirrored once it sets a handler.
  for (int s : kTermSignals) signals::Manage(s, OnDeadlySignal, SA_ONSTACK, true);
  // SA_NODEFER on faults: after a guarded siglongjmp the signal must not stay blocked.
  for (int s : kFatalSignals) signals::Manage(s, OnDeadlySignal, SA_NODEFER | SA_ONSTACK, true);
  atexit(OnExit);
  pthread_atfork(AtForkPrepare, AtForkParent, AtForkChild);
  if (!g_agg->Start()) { Log("cannot start aggregator; profiling disabled"); state::g_active.store(false); return; }
  if (!sampler::Start(cfg->period_ns, wall)) { Log("cannot start sampler"); }
  ops::AtRuntimeStart();
}

__attribute__((destructor)) void StrataRuntimeFini() { OnExit(); }

}  // namespace

void EndBeforeProcessExit(const char* ended) { EndNormally(ended); }

}  // namespace strata::rt
