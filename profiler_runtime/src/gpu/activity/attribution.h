// GPU work into the calling context tree: API calls as gpu_api nodes (metric api_time), and
// under them kernel / memcpy / memset frames with the metrics of docs/gpu-metrics.md
// (occupancy included); syncs add sync_time to the API node. Aggregator thread, under the CCT
// lock (inside a drain).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "cct/cct.h"
#include "gpu/activity/gpu_activity.h"
#include "gpu/activity/gpu_timeline.h"
#include "gpu/activity/occupancy.h"
#include "gpu/collection_options.h"

namespace strata::rt::gpu {

struct GpuMetrics {
  uint32_t api_time = 0, gpu_time = 0, grid = 0, block = 0, regs = 0, sshm = 0, dshm = 0, occ = 0,
           copy_bytes = 0, set_bytes = 0, sync_time = 0;
};

struct GpuCounts {
  uint64_t kernels = 0, copies = 0, sets = 0, syncs = 0, api_calls = 0, unattributed = 0;
};

class Attribution {
 public:
  explicit Attribution(const CollectionOptions* options) : options_(options) {}

  // The GPU metrics, once, in this order (the profile's metric order follows it).
  void EnsureMetrics(Cct::Unlocked& u);
  // An API call: `ids` holds its path (n frame ids, root first) and room for one more, the
  // gpu_api frame of `api_name`. Returns the call's node.
  uint32_t AddApiCall(Cct::Unlocked& u, uint32_t* ids, int n, const char* api_name, uint64_t api_ns);
  // One activity record under `parent` (a gpu_api node, or where a placement put it).
  void Emit(Cct::Unlocked& u, const GpuActivity& a, uint32_t parent);

  uint32_t ChildNode(Cct::Unlocked& u, uint32_t parent, uint32_t frame);
  uint32_t KernelFrame(Cct::Unlocked& u, const std::string& mangled);  // demangled name
  // "<unattributed>" at the root: records whose API call never arrived.
  uint32_t UnattributedNode(Cct::Unlocked& u);

  GpuCounts counts;
  // Each kernel, copy and set as Emit places it, with its node (bounded).
  GpuTimeline timeline;
  // Where kernels went, for the PC-sample and region frames of the final drain: per mangled
  // function its nodes and their GPU time (+1 per kernel); per launch (only serialized PC
  // sampling and region captures) its node.
  std::unordered_map<std::string, std::unordered_map<uint32_t, double>> kernel_nodes;
  std::unordered_map<uint32_t, uint32_t> kernel_of_corr;

 private:
  const CollectionOptions* options_;
  bool metrics_ready_ = false;
  GpuMetrics m_;
  std::unordered_map<const char*, uint32_t> api_frames_;
  std::unordered_map<std::string, uint32_t> kernel_frames_;
  std::unordered_map<uint64_t, uint32_t> child_nodes_;  // parent << 32 | frame -> node
  uint32_t unattributed_node_ = 0;
  OccupancyCalculator occupancy_;
};

}  // namespace strata::rt::gpu
