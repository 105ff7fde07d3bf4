#include "left_processes.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace strata::cli {
namespace {

volatile sig_atomic_t g_stop = 0;

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

// Our living children: the adopted descendants (the target is reaped already).
int CountChildren() {
  const std::string self = std::to_string(::getpid());
  int n = 0;
  DIR* proc = ::opendir("/proc");
  if (!proc) return 0;
  while (dirent* e = ::readdir(proc)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    std::ifstream stat(std::string("/proc/") + e->d_name + "/stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
    size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    char ppid[32] = {0};
    if (std::sscanf(line.c_str() + close + 1, " %c %31s", &state, ppid) == 2 && self == ppid && state != 'Z') ++n;
  }
  ::closedir(proc);
  return n;
}

}  // namespace

void AdoptLeftProcesses() { ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

void StopWaitingForLeftProcesses() { g_stop = 1; }

std::vector<std::pair<long, int>> WaitForLeftProcesses(double max_seconds) {
  std::vector<std::pair<long, int>> reaped;
  const double start = Now();
  bool told = false;
  while (!g_stop) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      reaped.emplace_back(long(pid), status);
      continue;
    }
    if (pid < 0 && errno == ECHILD) return reaped;  // none left
    if (pid < 0 && errno != EINTR) break;
    const double waited = Now() - start;
    if (waited >= max_seconds) break;
    if (!told && waited >= 0.5) {
      const int n = CountChildren();
      std::fprintf(stderr, "strata: waiting up to %.0f s for %d process%s the target left running\n", max_seconds, n,
                   n == 1 ? "" : "es");
      told = true;
    }
    ::usleep(10000);
  }
  if (int left = CountChildren())
    std::fprintf(stderr, "strata: %d process%s the target started %s still running; %s its profile when it ends\n", left,
                 left == 1 ? "" : "es", left == 1 ? "is" : "are", left == 1 ? "it writes" : "each writes");
  return reaped;
}

}  // namespace strata::cli
