// XLA (JAX): kernels mapped to HLO ops and the Python lines XLA recorded. When a jaxlib / JAX
// plugin library is dlopened, XLA_FLAGS gets --xla_dump_to=<private dir> --xla_dump_hlo_as_text
// (XLA reads it later, when its backend initializes); the placement reads the
// after-optimizations module texts of that dir (lazily, when a kernel name is unknown and the
// dir changed) and places each XLA kernel under the op's Python call path ▸ op_name ▸ gpu_api.
// Library kernels (cuBLAS) of custom-calls are placed by launch order: held until the thread's
// next launch with an HLO kernel says which call came before it.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpu/placement/placement.h"
#include "gpu/placement/xla_hlo_map.h"

namespace strata::rt::gpu {

class XlaPlacement : public Placement {
 public:
  // dlopen interposer (any thread), after a successful dlopen: the first jaxlib / JAX plugin
  // library arms the HLO dump (or turns it off for good: STRATA_XLA_HLO=0, inactive process).
  void OnLibraryLoaded(const char* file);

  void BeginDrain() override { Arm(); }
  bool Active() const override { return hlo_ != nullptr; }
  void OnApiCallNode(const ApiCallNode& call, PlacementContext& c) override;
  Verdict Place(const GpuActivity& a, uint32_t* parent, PlacementContext& c) override;
  void EndDrain(PlacementContext& c, uint64_t now, bool final) override;
  std::string StatusPart() const override;

 private:
  struct ApiPath {
    std::vector<uint32_t> ids;  // path frame ids, root first, ending with the gpu_api frame
    bool python = false;
  };
  struct Held {
    GpuActivity activity;
    uint64_t since = 0;
  };
  void Arm();
  const std::vector<uint32_t>& HloIds(Cct::Unlocked& u, uint32_t index);
  uint32_t NodeFor(Cct::Unlocked& u, uint32_t api_node, uint32_t index);
  std::vector<uint32_t> Find(const GpuActivity& a);
  void ReleaseHeld(PlacementContext& c, uint64_t now, bool final);

  // Armed by OnLibraryLoaded: 0 not seen, 1 dumping (dir_ set), 2 off.
  std::atomic<int> state_{0};
  std::string dir_;
  bool private_dir_ = false;  // our temp dir: removed after the final drain

  xla::HloMap* hlo_ = nullptr;  // from the first drain after arming
  std::unordered_map<uint32_t, ApiPath> api_paths_;   // gpu_api node -> its path
  std::unordered_map<uint64_t, uint32_t> nodes_;      // api node << 32 | hlo index -> node
  std::vector<std::vector<uint32_t>> hlo_ids_;        // hlo index -> Python frame ids + op frame
  std::vector<uint32_t> last_launch_;                 // thread slot -> its last launch corr
  std::vector<Held> held_;                            // unmapped kernels waiting for the next launch
  int64_t dir_mtime_ = -1;
  bool more_files_ = false;                           // the last scan left files for later
  uint64_t last_scan_ = 0;
  uint64_t kernels_by_name_ = 0, library_kernels_ = 0;
};

}  // namespace strata::rt::gpu
