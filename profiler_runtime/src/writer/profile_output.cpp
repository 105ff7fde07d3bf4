#include "writer/profile_output.h"
#include "ops/op_registry.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <utility>
#include <vector>

namespace strata::rt::writer {
namespace {

// Cores this process may run on (its affinity mask), what oversubscription is measured against.
int CpuCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? int(n) : 1;
}

}  // namespace

bool WriteProfile(Cct& cct, const RunInfo& info, std::string* error,
                  const std::vector<Cct::TransientValue>& transient) {
  std::vector<std::pair<std::string, std::string>> meta = {
      {"format_producer", "strata_runtime 0.1"},
      {"command", info.command},
      {"pid", std::to_string(info.pid)},
      {"mode", info.mode},
      {"sampler", info.sampler},
      {"period_ns", std::to_string(info.period_ns)},
      {"start_unix_ns", std::to_string(info.start_unix_ns)},
      {"start_monotonic_ns", std::to_string(info.start_monotonic_ns)},
      {"duration_ns", std::to_string(info.duration_ns)},
      {"samples", std::to_string(info.samples)},
      {"samples_dropped", std::to_string(info.samples_dropped)},
      {"unwind_failures", std::to_string(info.unwind_failures)},
      {"python", info.python},
      {"threads_seen", std::to_string(info.threads_seen)},
      {"cpu_cores", std::to_string(CpuCores())},
      {"ended", info.ended},
      {"gpu", info.gpu},
      {"pc_sampling", info.pc_sampling},
      {"regions", info.regions},
      {"operators", ops::StatusLine()},
      {"collectives", info.collectives},
      {"checkpoint_period_ns", std::to_string(info.checkpoint_period_ns)},
      {"checkpoints", std::to_string(info.checkpoints)},
  };
  meta.insert(meta.end(), info.gpu_sampling.begin(), info.gpu_sampling.end());
  if (info.parent_pid) {
    meta.emplace_back("parent_pid", std::to_string(info.parent_pid));
    meta.emplace_back("parent_profile", info.parent_profile);
  }
  meta.insert(meta.end(), info.identity.begin(), info.identity.end());
  return cct.Write(info.output, meta, error, transient, info.metric_factors);
}

std::string ReadCommandLine() {
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string raw;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) raw.append(buf, size_t(n));
  close(fd);
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  for (char& c : raw) if (c == '\0') c = ' ';
  return raw;
}

}  // namespace strata::rt::writer
