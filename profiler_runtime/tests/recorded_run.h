// Runs a target program the way a user would — in its own process group, or in a terminal of
// its own (a pty, so Ctrl-C is the kernel's SIGINT to the foreground group) — once plain and
// once under `strata record`, and collects what can be compared: its output, its exit status,
// the profile's presence and meta, and strata's own lines.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "profile_reader.h"

extern char** environ;

namespace strata::rt::test {

struct RecordedRun {
  int status = 0;                 // waitpid status of the process we started
  std::string output;             // the program's lines (strata's own lines removed)
  std::string strata_lines;       // lines starting "strata: " / "strata_runtime: "
  bool has_profile = false;
  std::map<std::string, std::string> meta;
  std::string profile_name;       // the first process's profile (file name)
  // The profiles of the processes it started (<stem>.<pid>.strata beside it): their meta.
  std::vector<std::map<std::string, std::string>> children;
  std::string Describe() const {
    std::ostringstream s;
    if (WIFEXITED(status)) s << "exit " << WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) s << "signal " << WTERMSIG(status);
    return s.str();
  }
};

// How the run is driven: `after_ready` runs once the program printed "ready" (or at once when
// `wait_ready` is false), with the pid of the process group leader and the terminal's master
// fd (-1 without a terminal).
struct RunOptions {
  bool under_strata = false;
  bool terminal = false;
  bool wait_ready = false;
  std::vector<std::string> record_args;  // extra `strata record` options
  std::function<void(pid_t leader, int master)> after_ready;
  int deadline_s = 60;  // the run is killed (and the test fails) past this
};

inline std::string TempProfilePath(const std::string& name) {
  return std::string(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp") + "/strata_end_" + name + "_" +
         std::to_string(getpid()) + ".strata";
}

inline RecordedRun RunProgram(const std::vector<std::string>& argv, const RunOptions& opt,
                              const std::string& name = "run") {
  std::string profile = TempProfilePath(name);
  std::remove(profile.c_str());
  std::vector<std::string> args;
  if (opt.under_strata) {
    args = {STRATA_CLI, "record", "-o", profile};
    args.insert(args.end(), opt.record_args.begin(), opt.record_args.end());
    args.push_back("--");
  }
  args.insert(args.end(), argv.begin(), argv.end());
  std::vector<std::string> envs;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    if (kv.rfind("STRATA_", 0) == 0 || kv.rfind("LD_PRELOAD=", 0) == 0) continue;
    envs.push_back(kv);
  }
  envs.push_back("STRATA_RUNTIME_LIB=" STRATA_RUNTIME_SO);
  std::vector<char*> a, e;
  for (auto& s : args) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  for (auto& s : envs) e.push_back(const_cast<char*>(s.c_str()));
  e.push_back(nullptr);

  int master = -1, out_r = -1, out_w = -1;
  std::string slave_name;
  if (opt.terminal) {
    master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    grantpt(master);
    unlockpt(master);
    slave_name = ptsname(master);
  } else {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return {};
    out_r = p[0];
    out_w = p[1];
  }
  pid_t pid = fork();
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGPROF, SIGUSR1}) signal(s, SIG_DFL);
    rlimit no_core{0, 0};  // SIGQUIT and aborts: no core files from either run
    setrlimit(RLIMIT_CORE, &no_core);
    if (opt.terminal) {
      setsid();
      int slave = open(slave_name.c_str(), O_RDWR);  // the session's controlling terminal
      ioctl(slave, TIOCSCTTY, 0);
      termios t;
      tcgetattr(slave, &t);
      t.c_lflag &= ~(ECHO | ECHOCTL);  // ^C not echoed: output compares alike
      t.c_oflag &= ~ONLCR;
      tcsetattr(slave, TCSANOW, &t);
      dup2(slave, 0);
      dup2(slave, 1);
      dup2(slave, 2);
      if (slave > 2) close(slave);
    } else {
      setpgid(0, 0);
      int null = open("/dev/null", O_RDONLY);
      dup2(null, 0);
      dup2(out_w, 1);
      dup2(out_w, 2);
    }
    execve(a[0], a.data(), e.data());
    _exit(127);
  }
  if (!opt.terminal) {
    setpgid(pid, pid);
    close(out_w);
  }
  int fd = opt.terminal ? master : out_r;
  std::string all;
  bool ready = !opt.wait_ready, acted = false;
  int status = 0;
  bool exited = false;
  // A run that outlives this is a failure (e.g. a target orphaned by a dead strata record):
  // the group is killed so the test ends.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(opt.deadline_s);
  for (;;) {
    if (!exited && std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "run of " << args.back() << " did not end within " << opt.deadline_s << " s";
      kill(-pid, SIGKILL);
      deadline = std::chrono::steady_clock::now() + std::chrono::hours(1);
    }
    if (ready && !acted) {
      acted = true;
      if (opt.after_ready) opt.after_ready(pid, master);
    }
    pollfd pfd{fd, POLLIN, 0};
    int r = poll(&pfd, 1, 50);
    if (r > 0) {
      char buf[4096];
      ssize_t n = read(fd, buf, sizeof buf);
      if (n > 0) {
        all.append(buf, size_t(n));
        if (!ready && all.find("ready\n") != std::string::npos) ready = true;
        continue;
      }
      if (!exited) { waitpid(pid, &status, 0); exited = true; }  // EOF or EIO: all closed
      break;
    }
    if (!exited && waitpid(pid, &status, WNOHANG) == pid) exited = true;
    if (exited && opt.terminal) {
      // Drain what is left; a pty reports EIO once the last slave fd closed.
      while (poll(&pfd, 1, 100) > 0) {
        char buf[4096];
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0) break;
        all.append(buf, size_t(n));
      }
      break;
    }
  }
  close(fd);
  RecordedRun run;
  run.status = status;
  std::istringstream lines(all);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("strata: ", 0) == 0 || line.rfind("strata_runtime: ", 0) == 0) run.strata_lines += line + "\n";
    else run.output += line + "\n";
  }
  Profile p;
  std::string err;
  if (access(profile.c_str(), F_OK) == 0 && ReadProfile(profile, &p, &err)) {
    run.has_profile = true;
    run.meta = p.meta;
  }
  std::remove(profile.c_str());
  // Children's profiles: <stem>.<pid>.strata in the same folder.
  size_t slash = profile.rfind('/');
  std::string dir = profile.substr(0, slash);
  run.profile_name = profile.substr(slash + 1);
  std::string prefix = run.profile_name.substr(0, run.profile_name.size() - 7) + ".";
  if (DIR* d = opendir(dir.c_str())) {
    std::vector<std::string> found;
    while (dirent* ent = readdir(d)) {
      std::string n = ent->d_name;
      if (n.rfind(prefix, 0) == 0 && n.size() > prefix.size() + 7 && n.compare(n.size() - 7, 7, ".strata") == 0)
        found.push_back(dir + "/" + n);
    }
    closedir(d);
    for (const std::string& f : found) {
      Profile c;
      if (ReadProfile(f, &c, &err)) run.children.push_back(c.meta);
      else run.children.push_back({{"unreadable", err}});
      std::remove(f.c_str());
    }
  }
  return run;
}

// Exit status as the user sees it: `strata record` exits 128+N when its target died of signal N.
inline int UserCode(const RecordedRun& r) {
  if (WIFEXITED(r.status)) return WEXITSTATUS(r.status);
  if (WIFSIGNALED(r.status)) return 128 + WTERMSIG(r.status);
  return -1;
}

// Runs `argv` plain, then recorded with the same driving; checks that output and status agree
// and that the plain run wrote no profile; returns the recorded run.
inline RecordedRun CompareWithPlain(const std::vector<std::string>& argv, RunOptions opt, const std::string& name) {
  opt.under_strata = false;
  RecordedRun plain = RunProgram(argv, opt, name + "_plain");
  opt.under_strata = true;
  RecordedRun recorded = RunProgram(argv, opt, name);
  EXPECT_EQ(plain.output, recorded.output) << name;
  EXPECT_EQ(UserCode(plain), UserCode(recorded)) << name << ": plain " << plain.Describe()
                                                 << ", recorded " << recorded.Describe() << "\n"
                                                 << recorded.strata_lines;
  EXPECT_FALSE(plain.has_profile) << name;
  EXPECT_TRUE(plain.children.empty()) << name;
  return recorded;
}

}  // namespace strata::rt::test
