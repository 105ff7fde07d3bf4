// Which rank of a distributed job this process is, read from the environment its launcher set
// before exec (torchrun / torch.distributed, Open MPI, MPICH/PMI, Slurm), and the run id shared
// by every process of one recording. Written to meta (`rank`, `local_rank`, `world_size`,
// `node_rank`, `rank_source`, `host`, `run_id`) so per-rank profiles can be merged.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace strata::rt::ranks {

struct RankIdentity {
  // Decimal strings as the launcher gave them; "" when that launcher does not say.
  std::string rank, local_rank, world_size, node_rank;
  std::string source;  // "torch", "openmpi", "pmi", "slurm"; "" when no rank is known
  std::string host;    // gethostname
  std::string run_id;  // STRATA_RUN_ID (given by strata record, else made by the first process)
};

// Reads the launcher's variables (the first launcher that gives a rank wins, all keys from it),
// the host name, and STRATA_RUN_ID; a process without STRATA_RUN_ID makes a random one and
// exports it, so the processes it starts share it.
RankIdentity ReadRankIdentity();

// The meta entries for the identity: keys absent when unknown.
std::vector<std::pair<std::string, std::string>> RankMeta(const RankIdentity& id);

}  // namespace strata::rt::ranks
