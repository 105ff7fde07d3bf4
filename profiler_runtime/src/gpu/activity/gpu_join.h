// The join, on the aggregator thread at every drain (under the CCT lock it holds anyway): API
// entries become gpu_api nodes (their path words resolved exactly like samples), correlation
// ids map activity records to those nodes, placement strategies may move kernels elsewhere,
// and attribution adds them to the tree. The final drain adds PC-sample and region frames.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cct/cct.h"
#include "gpu/activity/attribution.h"
#include "gpu/activity/correlation.h"
#include "gpu/api/api_entry_queue.h"
#include "gpu/placement/inductor_placement.h"
#include "gpu/placement/xla_placement.h"

namespace strata::rt {
class Aggregator;
}

namespace strata::rt::gpu {

class CuptiSession;

class GpuJoin {
 public:
  explicit GpuJoin(CuptiSession* session);
  void Drain(Aggregator* agg, Cct::Unlocked& u, bool final);

  const Attribution& attribution() const { return attribution_; }
  XlaPlacement& xla() { return xla_; }
  InductorPlacement& inductor() { return inductor_; }
  // The placements' parts of meta "gpu", each after "; ".
  std::string PlacementStatus() const;
  // "decoder issues: ..." of the captured region buffers, or "".
  const std::string& region_issues() const { return region_issues_; }

 private:
  void TakeApiEntries(Aggregator* agg, Cct::Unlocked& u, uint64_t now);
  void TakeActivity(Cct::Unlocked& u, uint64_t now, bool final);
  // A record to its parent: the placements first (in order; the first that places it wins),
  // then attribution.
  void Deliver(Cct::Unlocked& u, const GpuActivity& a, uint32_t parent);
  // The tracer's clock read between two readings of the host's (all zero when it cannot be read).
  strata::format::GpuClockReading ClockReading() const;

  CuptiSession* session_;
  Attribution attribution_;
  CorrelationTable correlations_;
  XlaPlacement xla_;
  InductorPlacement inductor_;
  std::vector<Placement*> placements_;
  ApiEntryBatch batch_;
  std::vector<uint32_t> ids_;
  std::string region_issues_;
};

}  // namespace strata::rt::gpu
