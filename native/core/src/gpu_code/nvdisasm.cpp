// nvdisasm as a child process: its output goes to temporary files (no pipes to drain, so a large
// listing cannot deadlock us), and the program is exec'ed directly (arguments are never parsed
// by a shell).
#include "nvdisasm.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace strata::core::gpu {

namespace {

bool Executable(const std::string& path) {
  struct stat st;
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string FirstLine(const std::string& s) {
  size_t start = s.find_first_not_of(" \t\r\n");
  if (start == std::string::npos) return {};
  size_t end = s.find_first_of("\r\n", start);
  return s.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

ToolRun Run(const std::vector<std::string>& argv) {
  ToolRun r;
  const char* tmp = std::getenv("TMPDIR");
  std::string dir_tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/strata-nvdisasm-XXXXXX";
  std::vector<char> dir(dir_tmpl.begin(), dir_tmpl.end());
  dir.push_back('\0');
  if (!::mkdtemp(dir.data())) { r.error = std::string("cannot create a temporary folder: ") + std::strerror(errno); return r; }
  const std::string out_path = std::string(dir.data()) + "/out", err_path = std::string(dir.data()) + "/err";
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int in = ::open("/dev/null", O_RDONLY);
    if (out < 0 || err < 0 || in < 0) ::_exit(126);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    if (argv[0].find('/') != std::string::npos) ::execv(args[0], args.data());
    else ::execvp(args[0], args.data());
    const char msg[] = "cannot execute\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  int status = 0;
  if (pid < 0) {
    r.error = std::string("cannot start ") + argv[0] + ": " + std::strerror(errno);
  } else {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    r.out = ReadFile(out_path);
    std::string err = FirstLine(ReadFile(err_path));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      r.ok = true;
    } else {
      r.error = WIFEXITED(status) ? "exited with code " + std::to_string(WEXITSTATUS(status))
                                  : "killed by signal " + std::to_string(WTERMSIG(status));
      if (!err.empty()) r.error += ": " + err;
    }
  }
  ::unlink(out_path.c_str());
  ::unlink(err_path.c_str());
  ::rmdir(dir.data());
  return r;
}

}  // namespace

std::string FindNvdisasm() {
  if (const char* env = std::getenv("STRATA_NVDISASM"); env && *env) return Executable(env) ? env : "";
  if (const char* path = std::getenv("PATH")) {
    std::string p = path;
    size_t start = 0;
    while (start <= p.size()) {
      size_t end = p.find(':', start);
      std::string dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (!dir.empty() && Executable(dir + "/nvdisasm")) return dir + "/nvdisasm";
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  if (const char* cuda = std::getenv("CUDA_HOME"); cuda && *cuda && Executable(std::string(cuda) + "/bin/nvdisasm"))
    return std::string(cuda) + "/bin/nvdisasm";
  if (Executable("/usr/local/cuda/bin/nvdisasm")) return "/usr/local/cuda/bin/nvdisasm";
  return {};
}

ToolRun RunNvdisasm(const std::string& nvdisasm, const std::string& cubin_path) {
  return Run({nvdisasm, "-c", "-gi", cubin_path});
}

std::string NvdisasmVersion(const std::string& nvdisasm) {
  ToolRun r = Run({nvdisasm, "--version"});
  // "Cuda compilation tools, release 13.0, V13.0.88": the last token that looks like V<digit>.
  std::string version;
  std::istringstream words(r.out);
  for (std::string w; words >> w;)
    if (w.size() > 1 && w[0] == 'V' && w[1] >= '0' && w[1] <= '9') version = w;
  return version;
}

}  // namespace strata::core::gpu
