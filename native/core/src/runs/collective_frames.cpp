#include "collective_frames.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace strata::core::detail {
namespace {

bool EndsWith(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// torch.distributed's collective and point-to-point calls (distributed_c10d.py).
constexpr std::string_view kTorchCollectives[] = {
    "all_reduce", "all_reduce_coalesced", "all_gather", "all_gather_into_tensor", "_all_gather_base",
    "all_gather_object", "all_gather_coalesced", "reduce_scatter", "reduce_scatter_tensor",
    "_reduce_scatter_base", "broadcast", "broadcast_object_list", "reduce", "all_to_all",
    "all_to_all_single", "barrier", "monitored_barrier", "gather", "gather_object", "scatter",
    "scatter_object_list", "send", "recv", "isend", "irecv", "batch_isend_irecv"};

}  // namespace

bool IsCollectiveKernelName(std::string_view name) {
  std::string lower(name.substr(0, std::min<size_t>(name.size(), 64)));
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return lower.find("nccl") != std::string::npos;
}

bool IsCollectiveFrameInfo(const FrameInfo& f) {
  if (f.kind == "collective") return true;  // a typed collective record of the runtime
  if (f.kind == "python") {
    if (!EndsWith(f.file, "distributed_c10d.py")) return false;
    return std::find(std::begin(kTorchCollectives), std::end(kTorchCollectives), f.name) != std::end(kTorchCollectives);
  }
  if (f.kind == "operator") return f.name.rfind("c10d::", 0) == 0 || f.name.rfind("nccl:", 0) == 0 || f.name.rfind("gloo:", 0) == 0;
  if (f.kind == "native") return f.name.find("c10d::Work::wait") != std::string::npos || f.name.find("WorkNCCL::wait") != std::string::npos;
  if (f.kind == "kernel") return IsCollectiveKernelName(f.name);
  return false;
}

}  // namespace strata::core::detail
