// strata record: runs the target with the runtime preloaded (env contract: LD_PRELOAD,
// STRATA_OUTPUT, STRATA_PERIOD_MS, STRATA_MODE, STRATA_TARGET_PID), forwards signals, waits,
// then records how the target ended in the profile's meta (atomic rewrite).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include <fstream>

#include "commands.h"
#include "launch_rate_advice.h"
#include "left_processes.h"
#include "strata/core/api.h"
#include "strata/core/gpu_sampling.h"
#include "strata/core/run_family.h"
#include "strata/rank_list.h"
#include "strata/record_protocol.h"

extern char** environ;

namespace strata::cli {

namespace {

volatile sig_atomic_t g_child = 0;
// How long the target's leftover processes get to end (multiprocessing's helpers end within
// milliseconds of it); a daemon that outlives this is left to write its profile on its own.
constexpr double kLeftProcessesWaitSeconds = 5;

// Signals sent to strata itself (kill, VS Code's stop button) go on to the target. A signal
// from the terminal (Ctrl-C: si_code SI_KERNEL) already reached the target, which shares our
// process group, so it is not sent twice. A kill to the whole group cannot be told from a kill
// of strata alone: the copy is tagged with the original sender so the runtime drops it when
// the target got the original too (strata/record_protocol.h).
void Forward(int sig, siginfo_t* info, void*) {
  if (info && info->si_code == SI_KERNEL) return;
  pid_t child = g_child;
  if (child <= 0) {  // the target has ended: a stop request ends the wait for what it left
    StopWaitingForLeftProcesses();
    return;
  }
  uint64_t sender = info ? uint64_t(uint32_t(info->si_pid)) : 0;
  union sigval value;
  value.sival_ptr = reinterpret_cast<void*>(uintptr_t(record_protocol::kForwardedSignalTag << 32 | sender));
  if (::sigqueue(child, sig, value) != 0) ::kill(child, sig);
}

std::string AbsolutePath(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (!::getcwd(cwd, sizeof cwd)) return path;
  std::string base = cwd;
  std::string p = path;
  while (p.rfind("./", 0) == 0) p = p.substr(2);
  return base == "/" ? "/" + p : base + "/" + p;
}

std::string DirName(const std::string& abs) {
  size_t slash = abs.rfind('/');
  return slash == 0 ? "/" : abs.substr(0, slash);
}

std::string DefaultOutput() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::localtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "strata-%Y%m%d-%H%M%S.strata", &tm);
  return buf;
}

// 64 random bits in hex.
std::string NewRunId() {
  unsigned char bytes[8] = {};
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  bool ok = fd >= 0 && ::read(fd, bytes, sizeof bytes) == ssize_t(sizeof bytes);
  if (fd >= 0) ::close(fd);
  if (!ok) {  // no /dev/urandom: the time and pid still tell runs apart
    struct timespec ts;
    ::clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t v = uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec) ^ (uint64_t(::getpid()) << 40);
    for (int i = 0; i < 8; ++i) bytes[i] = (unsigned char)(v >> (8 * i));
  }
  char hex[17];
  for (int i = 0; i < 8; ++i) std::snprintf(hex + 2 * i, 3, "%02x", bytes[i]);
  return hex;
}

std::string RuntimeLibrary() {
  if (const char* env = std::getenv("STRATA_RUNTIME_LIB"); env && *env) return env;
  char exe[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return "libstrata_runtime.so";
  exe[n] = 0;
  std::string lib = DirName(DirName(exe)) + "/lib/libstrata_runtime.so";
  char real[PATH_MAX];
  if (::realpath(lib.c_str(), real)) return real;
  return lib;
}

std::string SignalName(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

struct FileId {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  struct timespec mtime{};
};

FileId Identify(const std::string& path) {
  FileId id;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    id.exists = true;
    id.dev = st.st_dev;
    id.ino = st.st_ino;
    id.mtime = st.st_mtim;
  }
  return id;
}

bool SameFile(const FileId& a, const FileId& b) {
  return a.exists == b.exists && a.dev == b.dev && a.ino == b.ino &&
         a.mtime.tv_sec == b.mtime.tv_sec && a.mtime.tv_nsec == b.mtime.tv_nsec;
}

// Checks that a file can be created beside `abs` (the runtime writes a temporary file there
// and renames it). Returns "" or the strerror text.
std::string CheckWritable(const std::string& abs) {
  struct stat st;
  if (::stat(abs.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return std::strerror(EISDIR);
  std::string probe = DirName(abs) + "/.strata-probe-XXXXXX";
  std::vector<char> buf(probe.begin(), probe.end());
  buf.push_back(0);
  int fd = ::mkostemp(buf.data(), O_CLOEXEC);
  if (fd < 0) return std::strerror(errno);
  ::close(fd);
  ::unlink(buf.data());
  return "";
}

// A private file the runtime appends its status lines to (strata/record_protocol.h).
std::string CreateStatusFile() {
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/strata-status-XXXXXX";
  std::vector<char> buf(path.begin(), path.end());
  buf.push_back(0);
  int fd = ::mkostemp(buf.data(), O_CLOEXEC);
  if (fd < 0) return "";
  ::close(fd);
  return buf.data();
}

// What the runtime said about the profile, from its status lines.
struct RuntimeStatus {
  bool loaded = false;
  std::string ending;       // reason of the final write, "" if it never began
  bool written = false;
  std::string not_written;  // the runtime's error when the write failed
  std::vector<std::string> snap;  // what became of --snap, in every process
  std::vector<std::pair<long, int>> reaped;  // (pid, wait status) of children a profiled process reaped
};

RuntimeStatus ReadStatus(const std::string& path) {
  RuntimeStatus st;
  std::ifstream in(path);
  std::string line;
  auto starts = [&](const char* prefix) { return line.rfind(prefix, 0) == 0; };
  std::vector<std::string> snap;
  std::vector<std::pair<long, int>> reaped;
  while (std::getline(in, line)) {
    if (starts(record_protocol::kStatusReaped)) {
      long pid = 0;
      int status = 0;
      if (std::sscanf(line.c_str() + std::strlen(record_protocol::kStatusReaped), "%ld %d", &pid, &status) == 2)
        reaped.emplace_back(pid, status);
    } else if (starts(record_protocol::kStatusSnap)) {
      snap.push_back(line.substr(std::strlen(record_protocol::kStatusSnap)));
    } else if (starts(record_protocol::kStatusLoaded)) {
      st = RuntimeStatus{};  // an exec'd image starts over
      st.loaded = true;
    } else if (starts(record_protocol::kStatusEnding)) {
      st.ending = line.substr(std::strlen(record_protocol::kStatusEnding));
    } else if (line == record_protocol::kStatusWritten) {
      st.written = true;
    } else if (starts(record_protocol::kStatusNotWritten)) {
      st.not_written = line.substr(std::strlen(record_protocol::kStatusNotWritten));
    }
  }
  st.snap = std::move(snap);
  st.reaped = std::move(reaped);
  return st;
}

// Why no profile appeared, as far as the runtime's status lines and the exit status tell.
std::string NoProfileReason(const RuntimeStatus& st, const std::string& runtime, int status,
                            const std::string& how) {
  if (::access(runtime.c_str(), R_OK) != 0) return "the runtime library " + runtime + " does not exist";
  if (!st.not_written.empty()) return "the runtime could not write it: " + st.not_written;
  if (!st.loaded)
    return std::string("the target ") + (WIFSIGNALED(status) ? "was " : "") + how +
           " without having loaded the Strata runtime (statically linked, setuid, or LD_PRELOAD removed?)";
  bool killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
  if (!st.ending.empty())
    return std::string("the target ") + (WIFSIGNALED(status) ? "was " : "") + how +
           " while the runtime was writing it (after " + st.ending + ")" +
           (killed ? "" : "; the write did not finish in time");
  if (killed) return "the target was " + how + ", which no program can intercept";
  if (WIFSIGNALED(status))
    return "the target was " + how + " before the Strata runtime wrote it (the signal's handler was not the runtime's)";
  return "the target " + how + " by a way the runtime does not see (a direct exit_group system call?)";
}

// Meta `exit`, `exit_code` / `exit_signal` for a wait status (the first process's and, from
// what their parents reaped, the other processes').
std::vector<std::pair<std::string, std::string>> ExitMeta(int status, std::string* how) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    *how = "killed by signal " + std::to_string(sig) + " (" + SignalName(sig) + ")";
    return {{"exit", *how}, {"exit_signal", std::to_string(sig)}};
  }
  *how = "exited with code " + std::to_string(WEXITSTATUS(status));
  return {{"exit", *how}, {"exit_code", std::to_string(WEXITSTATUS(status))}};
}

// A process the target started ended as its parent saw it (a rank killed by SIGKILL leaves
// only its last checkpoint, which cannot say so itself): its profile's meta gets the same
// `exit` keys as the first process's.
void RecordChildExits(const std::string& output, const std::vector<std::pair<long, int>>& reaped) {
  std::string stem = output;
  if (stem.size() > 7 && stem.compare(stem.size() - 7, 7, ".strata") == 0) stem.resize(stem.size() - 7);
  for (const auto& [pid, status] : reaped) {
    const std::string path = stem + "." + std::to_string(pid) + ".strata";
    if (::access(path.c_str(), F_OK) != 0) continue;  // not profiled (a helper that left nothing)
    std::string how;
    try {
      core::RewriteProfileMeta(path, ExitMeta(status, &how));
    } catch (const core::Error& e) {
      std::fprintf(stderr, "strata: %s: %s\n", path.c_str(), e.what());
    }
  }
}

// The processes the target started, each with its profile beside the first one's.
void ListChildren(const std::string& output, const std::string& shown) {
  std::vector<core::RunMember> members;
  try {
    members = core::RunFamily(output);
  } catch (const core::Error&) {
    return;
  }
  if (members.size() <= 1) return;
  const size_t n = members.size() - 1;
  std::fprintf(stderr, "strata: %zu %s started by the target %s profiled too (strata report %s)\n", n,
               n == 1 ? "process" : "processes", n == 1 ? "was" : "were",
               DirName(shown.find('/') == std::string::npos ? "./" + shown : shown).c_str());
  // One line only: a launcher (pyenv's shims, a shell wrapper) can start dozens of helper
  // processes, and the program's own last lines must stay in view; `strata report` lists them.
}

}  // namespace

int RunRecord(const RecordOptions& options) {
  const std::string shown = options.output.empty() ? DefaultOutput() : options.output;
  const std::string output = AbsolutePath(shown);
  if (std::string err = CheckWritable(output); !err.empty()) {
    std::fprintf(stderr, "strata: cannot write profile to %s: %s\n", shown.c_str(), err.c_str());
    return kExitUsage;
  }
  std::string ranks = options.ranks;
  if (ranks.empty()) if (const char* e = std::getenv(rank_list::kRanksEnv)) ranks = e;
  if (std::string why; !ranks.empty() && !rank_list::Parse(ranks, &why)) {
    std::fprintf(stderr, "strata: --ranks %s: %s\n", ranks.c_str(), why.c_str());
    return kExitUsage;
  }
  const std::string runtime = RuntimeLibrary();

  // The target's environment.
  std::vector<std::string> env;
  std::string preload = runtime;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    if (kv.rfind("LD_PRELOAD=", 0) == 0) {
      std::string old = kv.substr(11);
      if (!old.empty()) preload += ":" + old;
      continue;
    }
    if (kv.rfind("STRATA_OUTPUT=", 0) == 0 || kv.rfind("STRATA_PERIOD_MS=", 0) == 0 ||
        kv.rfind("STRATA_MODE=", 0) == 0 || kv.rfind("STRATA_TARGET_PID=", 0) == 0 ||
        kv.rfind("STRATA_CHECKPOINT_S=", 0) == 0 || kv.rfind("STRATA_CHILDREN=", 0) == 0 ||
        // a profiled process's own links, when strata record runs inside a recorded run
        kv.rfind("STRATA_PROFILE_PID=", 0) == 0 || kv.rfind("STRATA_PROFILE_PATH=", 0) == 0 ||
        kv.rfind("STRATA_PARENT_PID=", 0) == 0 || kv.rfind("STRATA_PARENT_PROFILE=", 0) == 0 ||
        kv.rfind(std::string(record_protocol::kStatusFileEnv) + "=", 0) == 0 ||
        (!options.pc_sampling.empty() && (kv.rfind("STRATA_PC_SAMPLING=", 0) == 0 ||
                                          (options.pc_sampling_period >= 0 && kv.rfind("STRATA_PC_SAMPLING_PERIOD=", 0) == 0))) ||
        (!options.regions.empty() && (kv.rfind("STRATA_REGIONS=", 0) == 0 || kv.rfind("STRATA_REGIONS_EVERY=", 0) == 0)) ||
        (!options.gpu_sampling.empty() && kv.rfind("STRATA_GPU_SAMPLING=", 0) == 0) ||
        (!options.capture_range.empty() && kv.rfind("STRATA_CAPTURE_RANGE=", 0) == 0) ||
        (!options.operators.empty() && kv.rfind("STRATA_OPERATORS=", 0) == 0) ||
        kv.rfind("STRATA_SNAP=", 0) == 0 || kv.rfind("STRATA_SNAP_OUTPUT=", 0) == 0 ||
        kv.rfind("STRATA_SNAP_MAX_BYTES=", 0) == 0 || kv.rfind("STRATA_RUN_ID=", 0) == 0 ||
        kv.rfind(std::string(rank_list::kRanksEnv) + "=", 0) == 0)
      continue;
    env.push_back(std::move(kv));
  }
  env.push_back("LD_PRELOAD=" + preload);
  env.push_back("STRATA_OUTPUT=" + output);
  env.push_back("STRATA_PERIOD_MS=" + std::to_string(options.period_ms));
  env.push_back(std::string("STRATA_MODE=") + (options.wall ? "wall" : "cpu"));
  env.push_back("STRATA_CHECKPOINT_S=" + std::to_string(options.checkpoint_s));
  env.push_back(std::string("STRATA_CHILDREN=") + (options.no_children ? "0" : "1"));
  // One id for every process of this recording (meta run_id): a folder holding profiles of
  // two runs is told apart by it.
  env.push_back("STRATA_RUN_ID=" + NewRunId());
  if (!ranks.empty()) env.push_back(std::string(rank_list::kRanksEnv) + "=" + ranks);
  if (!options.regions.empty()) {
    env.push_back("STRATA_REGIONS=" + options.regions);
    env.push_back("STRATA_REGIONS_EVERY=" + std::to_string(options.regions_every));
  }
  if (!options.gpu_sampling.empty()) env.push_back("STRATA_GPU_SAMPLING=" + options.gpu_sampling);
  std::string snap_shown;
  if (!options.snap.empty()) {
    snap_shown = options.snap_output;
    if (snap_shown.empty()) {
      snap_shown = shown;
      if (snap_shown.size() > 7 && snap_shown.compare(snap_shown.size() - 7, 7, ".strata") == 0) snap_shown.resize(snap_shown.size() - 7);
      snap_shown += ".snap";
    }
    const std::string snap_path = AbsolutePath(snap_shown);
    if (std::string err = CheckWritable(snap_path); !err.empty()) {
      std::fprintf(stderr, "strata: cannot write snapshot to %s: %s\n", snap_shown.c_str(), err.c_str());
      return kExitUsage;
    }
    ::unlink(snap_path.c_str());  // a snapshot left by an earlier run is not this run's
    env.push_back("STRATA_SNAP=" + options.snap);
    env.push_back("STRATA_SNAP_OUTPUT=" + snap_path);
    if (options.snap_max_bytes) env.push_back("STRATA_SNAP_MAX_BYTES=" + std::to_string(options.snap_max_bytes));
    if (options.snap_preludes) env.push_back("STRATA_SNAP_PRELUDES=" + std::to_string(options.snap_preludes));
  }
  if (!options.capture_range.empty()) env.push_back("STRATA_CAPTURE_RANGE=" + options.capture_range);
  if (!options.operators.empty()) env.push_back("STRATA_OPERATORS=" + options.operators);
  if (!options.pc_sampling.empty()) {
    env.push_back("STRATA_PC_SAMPLING=" + options.pc_sampling);
    if (options.pc_sampling_period >= 0)
      env.push_back("STRATA_PC_SAMPLING_PERIOD=" + std::to_string(options.pc_sampling_period));
  }
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(s.data());
  const std::string status_file = CreateStatusFile();
  std::string status_var = std::string(record_protocol::kStatusFileEnv) + "=" + status_file;
  if (!status_file.empty()) envp.push_back(status_var.data());
  char pid_var[64] = "STRATA_TARGET_PID=";  // the digits are filled in by the child
  envp.push_back(pid_var);
  envp.push_back(nullptr);
  std::vector<char*> argv;
  for (const auto& a : options.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  const FileId before = Identify(output);

  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) {
    std::fprintf(stderr, "strata: pipe: %s\n", std::strerror(errno));
    return kExitError;
  }
  struct sigaction sa {};
  sa.sa_sigaction = Forward;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  // Every signal that would otherwise end strata record and orphan the target goes on to it.
  const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
  struct sigaction old_actions[sizeof forwarded / sizeof forwarded[0]];
  for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; ++i)
    ::sigaction(forwarded[i], &sa, &old_actions[i]);
  // A closed terminal or log pipe must not kill strata record while the target still runs.
  struct sigaction ignore_pipe {}, old_pipe;
  ignore_pipe.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore_pipe, &old_pipe);

  AdoptLeftProcesses();
  pid_t pid = ::fork();
  if (pid < 0) {
    std::fprintf(stderr, "strata: fork: %s\n", std::strerror(errno));
    return kExitError;
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls from here on.
    ::close(pipefd[0]);
    for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; ++i)
      ::sigaction(forwarded[i], &old_actions[i], nullptr);
    ::sigaction(SIGPIPE, &old_pipe, nullptr);
    char digits[24];
    int n = 0;
    for (unsigned long v = (unsigned long)::getpid(); v; v /= 10) digits[n++] = char('0' + v % 10);
    char* p = pid_var + 18;
    while (n) *p++ = digits[--n];
    *p = 0;
    ::execvpe(argv[0], argv.data(), envp.data());
    int err = errno;
    ssize_t ignored = ::write(pipefd[1], &err, sizeof err);
    (void)ignored;
    ::_exit(err == ENOENT ? 127 : 126);
  }
  g_child = pid;
  ::close(pipefd[1]);
  int exec_errno = 0;
  ssize_t got;
  do { got = ::read(pipefd[0], &exec_errno, sizeof exec_errno); } while (got < 0 && errno == EINTR);
  ::close(pipefd[0]);

  int status = 0;
  // Adopted descendants that end while the target runs are reaped here too (no zombies pile
  // up in a long run that leaves many).
  std::vector<std::pair<long, int>> adopted;
  for (;;) {
    int st = 0;
    pid_t ended = ::waitpid(-1, &st, 0);
    if (ended < 0 && errno == EINTR) continue;
    if (ended < 0) break;  // ECHILD: cannot happen before the target is reaped
    if (ended == pid) {
      status = st;
      break;
    }
    adopted.emplace_back(long(ended), st);
  }
  g_child = 0;
  // Before the status file is read: what they reaped in turn is written there as they end.
  const std::vector<std::pair<long, int>> left = WaitForLeftProcesses(kLeftProcessesWaitSeconds);
  RuntimeStatus runtime_status = ReadStatus(status_file);
  runtime_status.reaped.insert(runtime_status.reaped.end(), adopted.begin(), adopted.end());
  runtime_status.reaped.insert(runtime_status.reaped.end(), left.begin(), left.end());
  if (!status_file.empty()) ::unlink(status_file.c_str());
  if (!options.snap.empty()) {
    for (const auto& line : runtime_status.snap) std::fprintf(stderr, "strata: %s\n", line.c_str());
    if (runtime_status.snap.empty())
      std::fprintf(stderr, "strata: no snapshot: the runtime saw no CUDA kernel launch to snap (no GPU collection in the target; see the profile's meta gpu)\n");
  }
  if (got == sizeof exec_errno) {
    std::fprintf(stderr, "strata: cannot run '%s': %s\n", options.command[0].c_str(),
                 std::strerror(exec_errno));
    return exec_errno == ENOENT ? 127 : 126;
  }

  std::string how;
  std::vector<std::pair<std::string, std::string>> meta = ExitMeta(status, &how);
  int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
  RecordChildExits(output, runtime_status.reaped);

  const FileId after = Identify(output);
  if (!runtime_status.not_written.empty() && after.exists && !SameFile(before, after)) {
    // The final write failed (disk full, ...) after a checkpoint: the checkpoint stays.
    std::fprintf(stderr, "strata: the final profile was not written: %s\n", runtime_status.not_written.c_str());
  }
  if (!after.exists || SameFile(before, after)) {
    std::string reason = NoProfileReason(runtime_status, runtime, status, how);
    std::fprintf(stderr, "strata: no profile was written to %s: %s\n", shown.c_str(), reason.c_str());
    return code != 0 ? code : kExitError;
  }
  try {
    core::RewriteProfileMeta(output, meta);
    // GPU code sampled by PC sampling: its SASS listing goes into the profile now, while the
    // CUDA toolkit is at hand (meta `sass` says what happened).
    if (core::ProfileHasCubins(output))
      std::fprintf(stderr, "strata: sass %s\n", EmbedSass(output, "").c_str());
    auto profile = core::Profile::Open(output);
    std::string samples;
    if (auto s = profile->meta("samples")) samples = *s;
    else samples = std::to_string(profile->total_count(0));
    std::fprintf(stderr, "strata: target %s\nstrata: profile written to %s (%s samples)\n", how.c_str(),
                 shown.c_str(), samples.c_str());
    if (profile->meta("ended").value_or("") == "checkpoint") {
      // SIGKILL, a crashed node: what remains is the last periodic checkpoint.
      double at = std::atof(profile->meta("duration_ns").value_or("0").c_str()) / 1e9;
      std::fprintf(stderr, "strata: the profile is the last checkpoint, written %.1f s into the run\n", at);
    }
    bool sampled = !options.gpu_sampling.empty() || !options.capture_range.empty() ||
                   (getenv("STRATA_GPU_SAMPLING") && *getenv("STRATA_GPU_SAMPLING")) ||
                   (getenv("STRATA_CAPTURE_RANGE") && *getenv("STRATA_CAPTURE_RANGE"));
    if (!sampled) {
      if (auto advice = LaunchRateAdvice(*profile)) std::fprintf(stderr, "strata: %s\n", advice->c_str());
    } else if (auto s = core::ReadGpuSampling(*profile); s && s->few_windows) {
      std::fprintf(stderr,
                   "strata: sampled GPU tracing opened %llu window%s: a line's share of GPU time can be several "
                   "points off with so few; run longer for steadier shares\n",
                   static_cast<unsigned long long>(s->windows_opened), s->windows_opened == 1 ? "" : "s");
    }
    // A Python the runtime cannot read (meta "python": "3.8.18 (unsupported: ...)", a
    // free-threaded build) leaves its samples without Python frames: say so, last.
    if (auto py = profile->meta("python"); py && py->find("unsupported") != std::string::npos)
      std::fprintf(stderr, "strata: warning: Python frames not recorded: python %s\n", py->c_str());
  } catch (const core::Error& e) {
    std::fprintf(stderr, "strata: %s: %s\n", shown.c_str(), e.what());
    return code != 0 ? code : kExitError;
  }
  ListChildren(output, shown);
  return code;
}

}  // namespace strata::cli
