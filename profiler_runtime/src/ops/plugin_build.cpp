#include "ops/plugin_build.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <vector>

#include "common/log.h"
#include "ops/op_abi.h"

extern char** environ;

namespace strata::rt::ops {
namespace {

#include "plugin_exports_map.inc"
#include "plugin_op_abi_h.inc"
#include "plugin_source_cpp.inc"

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

bool MakeDirs(const std::string& path) {
  for (size_t at = 1; at <= path.size(); ++at) {
    if (at != path.size() && path[at] != '/') continue;
    std::string part = path.substr(0, at);
    if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

bool WriteFile(const std::string& path, const char* text) {
  FILE* f = fopen(path.c_str(), "we");
  if (!f) return false;
  size_t n = strlen(text);
  bool ok = fwrite(text, 1, n, f) == n;
  return fclose(f) == 0 && ok;
}

std::string FirstLine(const std::string& path) {
  FILE* f = fopen(path.c_str(), "re");
  if (!f) return "";
  char line[256] = {0};
  if (!fgets(line, sizeof(line), f)) line[0] = 0;
  fclose(f);
  line[strcspn(line, "\n")] = 0;
  return line;
}

std::string CacheRoot() {
  if (const char* d = getenv("STRATA_CACHE_DIR"); d && *d) return d;
  if (const char* x = getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/strata";
  if (const char* h = getenv("HOME"); h && *h) return std::string(h) + "/.cache/strata";
  return "";
}

// Release builds of torch define NDEBUG, and its headers lay classes out by it (RecordFunction has
// a debug-only member whose inline accessor asserts): the plugin must be compiled the same way.
constexpr const char* kPluginFlags[] = {"-std=c++17", "-O2", "-DNDEBUG", "-fPIC", "-shared", "-fvisibility=hidden"};

// The plugin's sources, its flags and the operator ABI: a changed plugin never reuses an old build.
std::string SourceHash() {
  uint64_t h = 1469598103934665603ull;
  for (const char* text : kPluginFlags)
    for (const char* p = text; *p; ++p) h = (h ^ uint8_t(*p)) * 1099511628211ull;
  for (const char* text : {kPluginSourceCpp, kPluginOpAbiH, kPluginExportsMap})
    for (const char* p = text; *p; ++p) h = (h ^ uint8_t(*p)) * 1099511628211ull;
  h = (h ^ STRATA_OPS_ABI_VERSION) * 1099511628211ull;
  char buf[17];
  snprintf(buf, sizeof(buf), "%08llx", static_cast<unsigned long long>(h & 0xffffffffull));
  return buf;
}

std::string CacheKey(const TorchInstall& t) {
  std::string v;
  for (char c : t.version) v += (isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-') ? c : '_';
  return v + "-cxx11abi" + std::to_string(t.cxx11_abi) + "-" + SourceHash();
}

// $CXX, else the first of c++, g++, clang++ on PATH.
std::string Compiler() {
  if (const char* cxx = getenv("CXX"); cxx && *cxx) return cxx;
  const char* path = getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (const char* name : {"c++", "g++", "clang++"}) {
    size_t start = 0;
    while (start <= dirs.size()) {
      size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      std::string candidate = (end > start ? dirs.substr(start, end - start) : ".") + "/" + name;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
      start = end + 1;
    }
  }
  return "";
}

// The compiler must not run under the profiler: no Strata runtime preloaded, no STRATA_*.
std::vector<std::string> CompilerEnvironment() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    if (strncmp(*e, "STRATA_", 7) == 0) continue;
    if (strncmp(*e, "LD_PRELOAD=", 11) != 0) {
      env.emplace_back(*e);
      continue;
    }
    std::string kept;
    const char* p = *e + 11;
    while (*p) {
      size_t n = strcspn(p, ": ");
      std::string item(p, n);
      if (!item.empty() && item.find("libstrata_runtime") == std::string::npos) kept += (kept.empty() ? "" : ":") + item;
      p += n;
      if (*p) ++p;
    }
    if (!kept.empty()) env.push_back("LD_PRELOAD=" + kept);
  }
  return env;
}

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// Runs argv with stdout and stderr into `log`; the exit status, or -1 when it could not start.
int Run(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_text = CompilerEnvironment();
  std::vector<char*> env;
  for (const std::string& e : env_text) env.push_back(const_cast<char*>(e.c_str()));
  env.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  pid_t pid;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

class DirLock {
 public:
  explicit DirLock(const std::string& dir) : fd_(open((dir + "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ < 0) return;
    if (flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
    Log("waiting for another process building the operator plugin in %s", dir.c_str());
    while (flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~DirLock() {
    if (fd_ >= 0) close(fd_);  // closing releases the lock
  }
  bool held() const { return fd_ >= 0; }

 private:
  int fd_;
};

PluginBuild Fail(std::string why) {
  PluginBuild b;
  b.why = std::move(why);
  return b;
}

PluginBuild Build(const TorchInstall& t, const std::string& dir, const std::string& plugin) {
  std::string cxx = Compiler();
  if (cxx.empty())
    return Fail("no C++ compiler to build the operator plugin (none of c++, g++, clang++ on PATH; set CXX)");
  std::string src = dir + "/src";
  if (!MakeDirs(src + "/ops") || !WriteFile(src + "/strata_torch.cpp", kPluginSourceCpp) ||
      !WriteFile(src + "/ops/op_abi.h", kPluginOpAbiH) || !WriteFile(src + "/exports.map", kPluginExportsMap))
    return Fail("cannot write the operator plugin's source into " + src + ": " + strerror(errno));
  std::string tmp = plugin + ".tmp" + std::to_string(getpid());
  std::vector<std::string> argv = {cxx};
  argv.insert(argv.end(), std::begin(kPluginFlags), std::end(kPluginFlags));
  argv.push_back("-D_GLIBCXX_USE_CXX11_ABI=" + std::to_string(t.cxx11_abi));
  if (t.include != "/usr/include") {  // never re-order the system include directories
    argv.push_back("-isystem");
    argv.push_back(t.include);
  }
  argv.push_back("-isystem");  // torch/version.h (Debian keeps it with the C++ API headers)
  argv.push_back(t.include + "/torch/csrc/api/include");
  argv.insert(argv.end(), {"-I", src, src + "/strata_torch.cpp", t.torch_cpu, t.c10,
                           "-Wl,--version-script=" + src + "/exports.map", "-o", tmp});
  std::string log = dir + "/build.log";
  Log("building the PyTorch operator plugin for %s with %s (first use of this torch; cached in %s)",
      TorchLabel(t).c_str(), cxx.c_str(), dir.c_str());
  double t0 = Now();
  int rc = Run(argv, log);
  double seconds = Now() - t0;
  if (rc != 0 || rename(tmp.c_str(), plugin.c_str()) != 0) {
    unlink(tmp.c_str());
    std::string why = rc < 0 ? "cannot run " + cxx
                             : "building the operator plugin failed (" + cxx + " exited with " + std::to_string(rc) +
                                   "; log " + log + ")";
    // A compiler error is kept so later runs do not pay for it again; a compiler that could not
    // start (not installed yet, a wrong $CXX) is tried again next time.
    if (rc >= 0) WriteFile(dir + "/failed", (why + "\n").c_str());
    Log("%s", why.c_str());
    return Fail(why);
  }
  Log("operator plugin built in %.1f s", seconds);
  PluginBuild b;
  b.ok = true;
  b.path = plugin;
  b.built_now = true;
  b.seconds = seconds;
  return b;
}

}  // namespace

PluginBuild CachedOrBuiltPlugin(const TorchInstall& t) {
  if (t.version.empty()) return Fail("no plugin can be built: the loaded torch's version is unknown");
  if (t.c10.empty() || t.cxx11_abi < 0) return Fail("no plugin can be built: cannot tell the C++ ABI of the loaded libc10");
  std::string root = CacheRoot();
  if (root.empty()) return Fail("no plugin can be built: no cache directory (set STRATA_CACHE_DIR or HOME)");
  std::string dir = root + "/torch-plugin/" + CacheKey(t);
  std::string plugin = dir + "/libstrata_torch.so";
  PluginBuild cached;
  cached.ok = true;
  cached.path = plugin;
  if (Exists(plugin)) return cached;
  if (const char* b = getenv("STRATA_TORCH_BUILD"); b && strcmp(b, "0") == 0)
    return Fail("no plugin for this torch in " + dir + " and building it is off (STRATA_TORCH_BUILD=0)");
  if (t.include.empty())
    return Fail("no plugin can be built: this torch ships no C++ headers (ATen/record_function.h)");
  if (!MakeDirs(dir)) return Fail("cannot create the plugin cache " + dir + ": " + strerror(errno));
  DirLock lock(dir);
  if (!lock.held()) return Fail("cannot lock the plugin cache " + dir + ": " + strerror(errno));
  if (Exists(plugin)) return cached;  // built by the process we waited for
  if (Exists(dir + "/failed"))
    return Fail(FirstLine(dir + "/failed") + " in an earlier run; remove " + dir + " to retry");
  return Build(t, dir, plugin);
}

}  // namespace strata::rt::ops
