// Helpers shared by the core test suites.
#pragma once

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "strata/format/writer.h"

namespace strata::test {

inline format::MetricStats StatsOf(std::initializer_list<double> values) {
  format::MetricStats s;
  for (double v : values) s.Add(v);
  return s;
}

// A small valid profile: root > main > work (native, python), a few metrics and meta.
inline std::vector<unsigned char> SmallProfile() {
  format::ProfileWriter w;
  w.Meta("command", "python train.py");
  w.Meta("samples", "6");
  uint32_t cpu = w.Metric("cpu_time", "ns");
  uint32_t mod = w.Module("/nonexistent/libwork.so", "abcd", 0x1000);
  uint32_t main_f = w.Frame(format::FrameKind::kPython, format::kNone, 0, "main", "/src/train.py", 10);
  uint32_t work_f = w.Frame(format::FrameKind::kNative, mod, 0x1234, "_Z4workv", "", 0);
  uint32_t main_n = w.Child(0, main_f);
  uint32_t work_n = w.Child(main_n, work_f);
  w.AddStats(main_n, cpu, StatsOf({10, 20}));
  w.AddStats(work_n, cpu, StatsOf({30, 40, 50, 60}));
  return w.Serialize();
}

inline std::string TempDir() {
  char tmpl[] = "/tmp/strata-core-test-XXXXXX";
  char* d = ::mkdtemp(tmpl);
  return d ? d : "/tmp";
}

inline void WriteFile(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

inline std::string ReadText(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) { if (c == '\'') q += "'\\''"; else q += c; }
  return q + "'";
}

struct RunResult {
  int status = -1;  // exit code, or 128 + signal
  std::string out, err;
};

// Runs a command line through /bin/sh, capturing stdout and stderr.
inline RunResult RunShell(const std::string& command) {
  std::string dir = TempDir();
  std::string line = "{ " + command + "\n} >" + dir + "/out 2>" + dir + "/err";
  int st = std::system(line.c_str());
  RunResult r;
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.out = ReadText(dir + "/out");
  r.err = ReadText(dir + "/err");
  std::system(("rm -rf " + dir).c_str());
  return r;
}

inline size_t CountLines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace strata::test
