// Walking a kernel's code backward along its steady-state path: within a block, the instruction
// before; at a block's start, its fall-through predecessor, except at a loop head, which is
// entered from its back edge (the loop's previous iteration) up to `laps` times and then from
// outside the loop. What pairing and the dependency edges read "executed before" as.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "strata/core/sass_deps.h"

namespace strata::core::sass {

class SteadyWalk {
 public:
  SteadyWalk(const SassDependencyGraph& g, size_t start, int laps) : g_(g), at_(start), laps_(laps) {}
  // Steps to the previous instruction; false at the entry (or past a bound of 64 blocks' worth).
  bool Back();
  size_t at() const { return at_; }
  int back_edges() const { return back_edges_; }  // crossed so far
  uint64_t steps() const { return steps_; }
  // Back edges crossed so far of loops that hold both instructions (a retry loop around a wait,
  // an elect loop around a copy: their laps are no iterations between copy and wait).
  int back_edges_around(size_t i, size_t j) const;

 private:
  const SassDependencyGraph& g_;
  size_t at_;
  int laps_;
  int back_edges_ = 0;
  uint64_t steps_ = 0;
  std::map<size_t, int> laps_taken_;  // per loop head
  std::vector<std::pair<size_t, size_t>> crossed_;  // (head, tail) blocks of each back edge taken
};

// Fills blocks and block_of from the instructions and their branch targets (`label_offsets`:
// label -> offset).
void BuildBlocks(SassDependencyGraph& g, const std::map<std::string, uint64_t>& label_offsets);

}  // namespace strata::core::sass
