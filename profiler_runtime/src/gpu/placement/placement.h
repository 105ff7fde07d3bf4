// Placement strategies: where a GPU activity goes when its launch's call path alone is not the
// best parent (the launch ran inside a compiled program: XLA now; torch.compile, JAX threads
// later). Given an activity and its correlation, a strategy may put it under another node, hold
// it until later launches tell, or leave it under its API call. Aggregator thread, inside the
// drain, under the CCT lock.
#pragma once

#include <cstdint>
#include <string>

#include "cct/cct.h"
#include "gpu/activity/attribution.h"
#include "gpu/activity/correlation.h"
#include "gpu/activity/gpu_activity.h"
#include "gpu/api/api_entry_queue.h"
#include "gpu/api/api_role.h"

namespace strata::rt::gpu {

// What a strategy works with: the tree, the correlations and the attribution (to emit the
// records it held).
struct PlacementContext {
  Cct::Unlocked& u;
  CorrelationTable& correlations;
  Attribution& attribution;
};

// An API call expecting activity that became a gpu_api node.
struct ApiCallNode {
  uint32_t node = 0;
  uint32_t correlation_id = 0;
  ApiRole role = ApiRole::kUnknown;
  uint32_t slot = kNoSlot;       // the launching thread's slot, kNoSlot when it is gone
  const uint32_t* frames = nullptr;  // path frame ids, root first, then the gpu_api frame
  int depth = 0;                 // path frames before the gpu_api frame
  const uint64_t* words = nullptr;   // the path words they came from (leaf first; Python words tell Python frames)
};

class Placement {
 public:
  enum class Verdict { kAsIs, kPlaced, kHeld };
  virtual ~Placement() = default;

  // Start of a drain (a strategy may arm itself here).
  virtual void BeginDrain() {}
  // Whether it takes part now; only active strategies see calls and activities.
  virtual bool Active() const = 0;
  virtual void OnApiCallNode(const ApiCallNode& call, PlacementContext& c) = 0;
  // `parent` is the record's gpu_api node (or "<unattributed>"); kPlaced changes it, kHeld
  // keeps the record (the strategy emits it later, from EndDrain).
  virtual Verdict Place(const GpuActivity& a, uint32_t* parent, PlacementContext& c) = 0;
  // End of a drain, after its activity records: held records that can be decided now (all of
  // them when `final`) are emitted.
  virtual void EndDrain(PlacementContext& c, uint64_t now, bool final) = 0;
  // Its part of meta "gpu" ("" for none).
  virtual std::string StatusPart() const = 0;
};

}  // namespace strata::rt::gpu
