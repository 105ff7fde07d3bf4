// torch.compile (Inductor): kernels launched by the generated wrapper placed under the model
// lines they were compiled from. At runtime start the process is asked for Inductor's
// provenance (INDUCTOR_PROVENANCE=1) and a structured trace log (TORCH_TRACE=<private dir>),
// unless the program set them itself (then its own log is read) or STRATA_INDUCTOR=0. A kernel
// whose launch path runs through a wrapper's kernel call (a Python frame in the generated file)
// is placed: path up to that wrapper frame ▸ the model's frames (the first source trace) ▸
// "fuses ..." naming every line a fused kernel computes ▸ the rest of the launch path (the
// launcher, native frames, gpu_api). A call Inductor recorded no trace for goes under the
// compiled function's def line instead, counted apart in the status line. See inductor_provenance.h for what is read.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpu/placement/inductor_provenance.h"
#include "gpu/placement/placement.h"
#include "python/site_shim.h"

namespace strata::rt::gpu {

class InductorPlacement : public Placement {
 public:
  // Runtime start, in the profiled process, before the program reads its environment.
  void Arm();

  bool Active() const override { return !dir_.empty(); }
  void OnApiCallNode(const ApiCallNode& call, PlacementContext& c) override;
  Verdict Place(const GpuActivity& a, uint32_t* parent, PlacementContext& c) override;
  void EndDrain(PlacementContext& c, uint64_t now, bool final) override;
  std::string StatusPart() const override;

 private:
  struct Launch {
    std::vector<uint32_t> ids;  // path frame ids, root first, ending with the gpu_api frame
    int wrapper = 0;            // index in ids of the wrapper's frame
    std::string file;           // the wrapper
    uint32_t line = 0;          // its kernel call line
  };
  // The generated wrapper's path when code id `code` is one; "" otherwise (cached per code id).
  const std::string& WrapperFile(uint32_t code);
  uint32_t NodeFor(Cct::Unlocked& u, const Launch& l, const std::vector<inductor::SourceTrace>& traces);

  std::string dir_;
  bool private_dir_ = false;
  python::SiteShim shim_;       // keeps torch/nn/modules lines in Dynamo's traces
  std::string dynamo_frames_;  // what the shim reported, read at the last drain
  inductor::Provenance provenance_;
  std::unordered_map<uint32_t, Launch> launches_;   // gpu_api node -> its wrapper call
  struct Placed {
    uint32_t node = 0;     // the node under the model line (or the compiled function)
    bool on_line = false;  // Inductor recorded the line (not only the compiled function)
  };
  std::unordered_map<uint32_t, Placed> placed_;     // gpu_api node -> where its kernels go
  std::unordered_map<uint32_t, std::string> wrapper_files_;  // code id -> wrapper path or ""
  uint64_t last_scan_ = 0;
  uint64_t kernels_on_lines_ = 0, kernels_on_function_ = 0, kernels_unplaced_ = 0;
};

}  // namespace strata::rt::gpu
