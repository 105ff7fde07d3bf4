#include "ranks/rank_identity.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "common/clock.h"

namespace strata::rt::ranks {
namespace {

constexpr const char* kRunIdEnv = "STRATA_RUN_ID";

std::string Env(const char* name) {
  const char* v = getenv(name);
  return v ? v : "";
}

// Launchers' variables, in the order they are trusted: torchrun sets RANK for its workers even
// when it runs under srun or mpirun (whose own variables then name the launcher's task).
struct Source {
  const char* name;
  const char* rank;
  const char* local_rank;
  const char* world_size;
  const char* node_rank;
};
constexpr Source kSources[] = {
    {"torch", "RANK", "LOCAL_RANK", "WORLD_SIZE", "GROUP_RANK"},
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE", nullptr},
    {"pmi", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE", nullptr},
    {"slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS", "SLURM_NODEID"},
};

bool IsDecimal(const std::string& s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s) if (c < '0' || c > '9') return false;
  return true;
}

std::string Decimal(const char* var) {
  if (!var) return "";
  std::string v = Env(var);
  return IsDecimal(v) ? v : "";
}

std::string NewRunId() {
  unsigned char bytes[8] = {};
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  bool ok = fd >= 0 && read(fd, bytes, sizeof bytes) == ssize_t(sizeof bytes);
  if (fd >= 0) close(fd);
  if (!ok) {  // no /dev/urandom (a chroot): time and pid still tell runs apart
    uint64_t v = NowNs(CLOCK_REALTIME) ^ (uint64_t(getpid()) << 40);
    for (int i = 0; i < 8; ++i) bytes[i] = (unsigned char)(v >> (8 * i));
  }
  char hex[17];
  for (int i = 0; i < 8; ++i) snprintf(hex + 2 * i, 3, "%02x", bytes[i]);
  return hex;
}

}  // namespace

RankIdentity ReadRankIdentity() {
  RankIdentity id;
  for (const Source& s : kSources) {
    std::string rank = Decimal(s.rank);
    if (rank.empty()) continue;
    id.rank = rank;
    id.local_rank = Decimal(s.local_rank);
    id.world_size = Decimal(s.world_size);
    id.node_rank = Decimal(s.node_rank);
    id.source = s.name;
    break;
  }
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) id.host = host;
  id.run_id = Env(kRunIdEnv);
  if (id.run_id.empty()) {
    id.run_id = NewRunId();
    setenv(kRunIdEnv, id.run_id.c_str(), 1);
  }
  return id;
}

std::vector<std::pair<std::string, std::string>> RankMeta(const RankIdentity& id) {
  std::vector<std::pair<std::string, std::string>> meta;
  auto add = [&](const char* key, const std::string& v) {
    if (!v.empty()) meta.emplace_back(key, v);
  };
  add("rank", id.rank);
  add("local_rank", id.local_rank);
  add("world_size", id.world_size);
  add("node_rank", id.node_rank);
  add("rank_source", id.source);
  add("host", id.host);
  add("run_id", id.run_id);
  return meta;
}

}  // namespace strata::rt::ranks
