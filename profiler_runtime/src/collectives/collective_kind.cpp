#include "collectives/collective_kind.h"

#include <cctype>

namespace strata::rt::collectives {
namespace fmt = strata::format;
namespace {

// Lower case without '_' and digits: "all_reduce", "allreduce", "AllReduce" agree.
std::string Squash(std::string_view s) {
  std::string out;
  for (char c : s)
    if (std::isalpha(static_cast<unsigned char>(c))) out += char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool StartsWith(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

}  // namespace

fmt::CollectiveOp OpOfName(std::string_view name) {
  std::string s = Squash(name);
  // Order matters: "reducescatter" before "reduce", "allgather" before "gather".
  if (StartsWith(s, "allreduce")) return fmt::CollectiveOp::kAllReduce;
  if (StartsWith(s, "reducescatter")) return fmt::CollectiveOp::kReduceScatter;
  if (StartsWith(s, "allgather")) return fmt::CollectiveOp::kAllGather;
  if (StartsWith(s, "alltoall")) return fmt::CollectiveOp::kAllToAll;
  if (StartsWith(s, "broadcast")) return fmt::CollectiveOp::kBroadcast;
  if (StartsWith(s, "reduce")) return fmt::CollectiveOp::kReduce;
  if (StartsWith(s, "gather")) return fmt::CollectiveOp::kGather;
  if (StartsWith(s, "scatter")) return fmt::CollectiveOp::kScatter;
  if (StartsWith(s, "barrier")) return fmt::CollectiveOp::kBarrier;
  if (StartsWith(s, "send")) return fmt::CollectiveOp::kSend;
  if (StartsWith(s, "recv")) return fmt::CollectiveOp::kRecv;
  return fmt::CollectiveOp::kOther;
}

bool ParseWorkTitle(std::string_view title, WorkTitle* out) {
  static const char* const kBackends[] = {"gloo", "nccl", "mpi", "ucc", "xccl", "hccl"};
  size_t colon = title.find(':');
  if (colon == std::string_view::npos || colon + 1 >= title.size()) return false;
  std::string_view backend = title.substr(0, colon);
  for (const char* b : kBackends) {
    if (backend != b) continue;
    out->backend = std::string(backend);
    out->collective = std::string(title.substr(colon + 1));
    return true;
  }
  return false;
}

fmt::CollectiveOp OpOfNcclKernel(std::string_view kernel) {
  // ncclKernel_<Coll>_..., ncclDevKernel_<Coll>_..., and the mangled forms of both.
  for (const char* prefix : {"ncclDevKernel_", "ncclKernel_"}) {
    size_t at = kernel.find(prefix);
    if (at == std::string_view::npos) continue;
    std::string_view rest = kernel.substr(at + std::char_traits<char>::length(prefix));
    std::string_view coll = rest.substr(0, rest.find('_'));
    if (coll == "SendRecv") return fmt::CollectiveOp::kSend;  // p2p: send and recv in one kernel
    return OpOfName(coll);
  }
  return fmt::CollectiveOp::kOther;
}

}  // namespace strata::rt::collectives
