// Which PC samples get a pc frame of their own under their kernel node, and which are counted on
// the kernel node itself. A ResNet-50 training run samples about 250k (kernel call path,
// instruction) pairs; as one pc node each, with a node-metric record per stall reason, they
// were 56 MB of a 63 MB profile. `budget` pairs are itemized: first the 16 heaviest of every
// kernel node holding 2% of the samples or more (so a kernel the stall rule can name keeps its
// stalling lines), then the heaviest of the rest by samples, originals before copies (below);
// the others' samples and stall reasons go on their kernel node (exclusive), so every kernel node's
// totals stay exact and only the instruction-level detail of its lightest instructions is gone.
// Plain C++ (no CUPTI): pc_sample_frames.cpp feeds it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace strata::rt::gpu {

// A PC's samples as they land on one kernel node (the whole PC's in serialized mode, its
// GPU-time share of them in continuous mode). Several may name the same (node, site): one PC
// of several launches of one call path.
struct PcShare {
  uint32_t kernel_node = 0;
  uint32_t site = 0;     // the instruction: one per (cubin, function, PC offset)
  double samples = 0;
  // A proportional copy: continuous mode splits a PC's samples among the function's kernel
  // nodes by GPU time, so every node but the function's heaviest shows the same spread over the
  // instructions, scaled. Copies get pc frames after every original has had its turn.
  bool copy = false;
};

struct PcDetailPlan {
  std::vector<bool> itemized;  // per share: under a pc node (else on its kernel node)
  size_t pairs = 0;            // distinct (kernel node, site) pairs
  size_t pairs_itemized = 0;   // at most the budget
  size_t sites = 0, sites_itemized = 0;  // instructions, and those with at least one pc frame
  double samples = 0, samples_itemized = 0;
  double site_samples_itemized = 0;  // all samples of the instructions with a pc frame
};

// budget 0: every pair itemized. Ties in weight go to the pair seen first, so the plan is a
// function of the shares' order alone.
PcDetailPlan PlanPcDetail(const std::vector<PcShare>& shares, size_t budget);

}  // namespace strata::rt::gpu
