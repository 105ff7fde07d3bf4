// strata trace: one warp of a snapshot's kernel single-stepped by cuda-gdb on `strata replay`
// (docs/async-copies.md "Trace"); the log becomes a typed trace file (core::SassTrace).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "cuda_gdb_script.h"
#include "strata/core/api.h"
#include "strata/core/sass_deps.h"
#include "strata/core/sass_trace.h"
#include "strata/format/writer.h"
#include "strata/snapshot/reader.h"

namespace strata::cli {
namespace {

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

bool Executable(const std::string& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; }

std::string FindCudaGdb(const std::string& given) {
  if (!given.empty()) return Executable(given) ? given : "";
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':'))
      if (Executable(dir + "/cuda-gdb")) return dir + "/cuda-gdb";
  }
  for (const char* p : {"/usr/local/cuda/bin/cuda-gdb", "/opt/cuda/bin/cuda-gdb"})
    if (Executable(p)) return p;
  return "";
}

// The command's stdout and stderr together (popen through the shell: the arguments are quoted).
std::string Capture(const std::string& command, int* status) {
  std::string out;
  FILE* f = popen((command + " 2>&1").c_str(), "r");
  if (!f) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  int st = pclose(f);
  if (status) *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool ParseTriple(const std::string& s, unsigned v[3]) {
  return std::sscanf(s.c_str(), "%u,%u,%u", &v[0], &v[1], &v[2]) == 3;
}

std::string SelfExe() {
  char b[4096];
  ssize_t n = readlink("/proc/self/exe", b, sizeof b - 1);
  return n > 0 ? std::string(b, size_t(n)) : "strata";
}

int WriteTrace(const core::SassTrace& t, const std::string& output) {
  const std::string text = core::WriteSassTrace(t);
  std::string error;
  if (!format::WriteFileAtomically(output, std::vector<unsigned char>(text.begin(), text.end()), &error)) {
    std::fprintf(stderr, "strata trace: %s: %s\n", output.c_str(), error.c_str());
    return kExitError;
  }
  const auto loops = core::TraceLoops(t);
  std::printf("trace    %zu instructions of %s, block (%s) thread (%s): stopped: %s (%.1f s)\n", t.steps.size(), t.kernel.c_str(),
              t.block.c_str(), t.thread.c_str(), t.stop_reason.c_str(), t.seconds);
  for (const auto& l : loops)
    std::printf("loop     0x%04llx -> 0x%04llx: %llu iterations\n", static_cast<unsigned long long>(l.back_edge),
                static_cast<unsigned long long>(l.head), static_cast<unsigned long long>(l.iterations));
  for (const auto& n : t.notes) std::printf("note     %s\n", n.c_str());
  std::printf("written  %s\n", output.c_str());
  return 0;
}

}  // namespace

int RunTrace(const TraceOptions& o) {
  if (!o.from_log.empty()) {  // a log already made (here or on another machine): no snapshot needed
    if (o.output.empty()) {
      std::fprintf(stderr, "strata trace: --from-log needs -o TRACE\n");
      return kExitUsage;
    }
    try {
      return WriteTrace(core::ParseCudaGdbLog(ReadAll(o.from_log), ""), o.output);
    } catch (const core::Error& e) {
      std::fprintf(stderr, "strata trace: %s: %s\n", o.from_log.c_str(), e.what());
      return kExitError;
    }
  }
  if (o.file.empty()) {
    std::fprintf(stderr, "strata trace: give a snapshot file (or --from-log LOG -o TRACE)\n");
    return kExitUsage;
  }
  snapshot::Snapshot s;
  try {
    s = snapshot::Read(o.file);
  } catch (const snapshot::Error& e) {
    std::fprintf(stderr, "strata trace: %s\n", e.what());
    return kExitError;
  }
  const std::string output = o.output.empty() ? o.file + ".trace.json" : o.output;
  unsigned block[3];
  if (!ParseTriple(o.block, block)) {
    std::fprintf(stderr, "strata trace: --block wants x,y,z (got '%s')\n", o.block.c_str());
    return kExitUsage;
  }
  for (int d = 0; d < 3; ++d)
    if (block[d] >= s.launch.grid[d]) {
      std::fprintf(stderr, "strata trace: block (%s) is outside the grid (%u,%u,%u)\n", o.block.c_str(), s.launch.grid[0],
                   s.launch.grid[1], s.launch.grid[2]);
      return kExitUsage;
    }
  const unsigned bx = s.launch.block[0], by = s.launch.block[1], threads = bx * by * s.launch.block[2];
  const unsigned warps = (threads + 31) / 32;
  if (o.warp < 0 || unsigned(o.warp) >= warps) {
    std::fprintf(stderr, "strata trace: --warp %ld: the block has %u warps\n", o.warp, warps);
    return kExitUsage;
  }
  const unsigned tid = unsigned(o.warp) * 32;
  const std::string thread = std::to_string(tid % bx) + "," + std::to_string(tid / bx % by) + "," + std::to_string(tid / (bx * by));
  const std::string gdb = FindCudaGdb(o.cuda_gdb);
  if (gdb.empty()) {
    std::fprintf(stderr, "strata trace: no cuda-gdb %s\n", o.cuda_gdb.empty() ? "on PATH or in /usr/local/cuda/bin" : ("at " + o.cuda_gdb).c_str());
    return kExitError;
  }
  char dir_template[] = "/tmp/strata-trace-XXXXXX";
  if (!mkdtemp(dir_template)) {
    std::fprintf(stderr, "strata trace: cannot make a temporary folder\n");
    return kExitError;
  }
  const std::string dir = dir_template;
  struct RemoveDir {  // the script, the table and an unkept log go with the folder
    std::string dir;
    ~RemoveDir() {
      for (const char* f : {"/trace.py", "/trace.gdb", "/operands.json", "/cuda-gdb.log", "/cuda-gdb.log.out"}) unlink((dir + f).c_str());
      rmdir(dir.c_str());
    }
  } remove_dir{dir};
  const std::string log = o.log.empty() ? dir + "/cuda-gdb.log" : o.log;
  // The operand table (registers read and written, guards, load addresses) from nvdisasm's listing of
  // the snapshot's image: cuda-gdb's own disassembly cannot be split reliably.
  std::string operands;
  try {
    const std::string table = core::TraceOperandTable(snapshot::ReadData(o.file, s.image), s.kernel, o.nvdisasm);
    operands = dir + "/operands.json";
    std::ofstream(operands) << table;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "strata trace: no operand table (%s): registers read as cuda-gdb's disassembly shows them\n", e.what());
  }
  const std::string raw = log + ".out";  // cuda-gdb's own output beside the Python script's log
  const std::string replay = Quote(SelfExe()) + " replay " + Quote(o.file) + " --repeat 0";
  int st = 0;
  const std::string probe = Capture(Quote(gdb) + " -nx -batch -ex " + Quote("python print('strata-python-' + 'ok')"), &st);
  const bool python = probe.find("strata-python-ok") != std::string::npos;
  std::string command;
  if (python) {
    std::ofstream(dir + "/trace.py") << CudaGdbPythonScript();
    command = (operands.empty() ? std::string() : "STRATA_TRACE_OPERANDS=" + Quote(operands) + " ") +
              "STRATA_TRACE_LOG=" + Quote(log) + " STRATA_TRACE_KERNEL=" + Quote(s.kernel) + " STRATA_TRACE_BLOCK=" + Quote(o.block) +
              " STRATA_TRACE_THREAD=" + Quote(thread) + " STRATA_TRACE_MAX=" + std::to_string(o.max_instructions) + " " + Quote(gdb) +
              " -nx -batch -x " + Quote(dir + "/trace.py") + " --args " + replay + " > " + Quote(raw) + " 2>&1";
  } else {
    std::fprintf(stderr, "strata trace: cuda-gdb has no Python (%s): instructions only\n",
                 probe.substr(0, probe.find('\n')).c_str());
    std::ofstream(dir + "/trace.gdb") << CudaGdbCommandFile(s.kernel, o.block, thread, o.max_instructions);
    command = Quote(gdb) + " -nx -batch -x " + Quote(dir + "/trace.gdb") + " --args " + replay + " > " + Quote(log) + " 2>&1";
  }
  std::printf("cuda-gdb %s (%s); block (%s) thread (%s); log %s\n", gdb.c_str(), python ? "python" : "no python", o.block.c_str(),
              thread.c_str(), log.c_str());
  std::fflush(stdout);
  const int rc = std::system(command.c_str());
  try {
    core::SassTrace t = core::ParseCudaGdbLog(ReadAll(log), s.kernel);
    return WriteTrace(t, output);
  } catch (const core::Error& e) {
    std::string tail = python ? ReadAll(raw) : ReadAll(log);
    if (tail.size() > 2000) tail = tail.substr(tail.size() - 2000);
    std::fprintf(stderr, "strata trace: %s (cuda-gdb exit %d); its output ends:\n%s\n", e.what(), rc, tail.c_str());
    return kExitError;
  }
}

}  // namespace strata::cli
