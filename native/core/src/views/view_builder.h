// The view algorithms work on plain arrays (no strings): the stored tree, dense exclusive
// statistics and a function id per stored node. profile.cpp turns their output into a View.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../stats.h"
#include "strata/format/layout.h"

namespace strata::core::detail {

struct ViewInput {
  size_t node_count = 0;
  const format::NodeRecord* nodes = nullptr;  // parent < id, node 0 = root
  size_t metric_count = 0;
  const Stats* excl = nullptr;                // [node * metric_count + metric]
  const uint32_t* sampled = nullptr;          // nodes with at least one metric record, ascending
  size_t sampled_count = 0;
  const uint32_t* node_func = nullptr;        // function id per stored node (frames merged by
  size_t func_count = 0;                      //   function for bottom-up and flat)
  const uint32_t* node_site = nullptr;        // call-site id per stored node (kind, function,
                                              //   file, line): top-down merges sibling nodes
                                              //   of one site (different PCs on one line)
  const uint32_t* line_site = nullptr;        // top-down by function: the call-site id per stored
                                              //   node, to list a view node's lines (else null)
  const uint8_t* fold = nullptr;              // per stored node, 1: shown as part of its parent
                                              //   (the Python view; top-down and bottom-up)
  size_t primary = 0;                         // metric ordering children (< metric_count or 0)
};

struct ViewOutput {
  // In creation order (parent < id, parent[0] = -1):
  std::vector<int32_t> parent;
  std::vector<uint32_t> frame;   // stored frame index shown for the node
  std::vector<double> incl;      // [node * metric_count + metric]
  // Exclusive statistics: excl[slot * metric_count + metric] where slot = excl_slot[node]
  // (kNoSlot: none) or slot = node when excl_slot is empty. `excl` points either into
  // excl_storage or into the ViewInput (top-down).
  const Stats* excl = nullptr;
  std::vector<Stats> excl_storage;
  std::vector<uint32_t> excl_slot;
  // Filled by SortPreorder: order[i] = creation index of preorder node i; sorted_parent in
  // preorder ids.
  std::vector<uint32_t> order;
  std::vector<int32_t> sorted_parent;
  // With ViewInput::line_site: the lines merged into each view node (creation index), each with
  // its stored frame (the heaviest of the line) and inclusive value of the primary metric.
  struct Line { uint32_t node, frame; double value; };
  std::vector<Line> lines;
  // Why the view is partial (a bound on its size was reached), one line; empty when complete.
  std::string partial;
  // Top-down and bottom-up: per stored node, the view node (creation index) whose exclusive
  // statistics took its values (kNoSlot: none; bottom-up, a node without values).
  std::vector<uint32_t> landing;

  static constexpr uint32_t kNoSlot = 0xFFFFFFFFu;
  const Stats* ExclOf(uint32_t node, size_t metric_count) const {
    uint32_t slot = excl_slot.empty() ? node : excl_slot[node];
    return slot == kNoSlot ? nullptr : excl + size_t(slot) * metric_count;
  }
};

ViewOutput BuildTopDown(const ViewInput& in);
// The top-down view's tree in creation order, before SortPreorder (order and sorted_parent
// empty). `tree_children`: its children lists when they were built on the way (left empty
// otherwise).
struct Children;
ViewOutput BuildTopDownTree(const ViewInput& in, Children* tree_children);
ViewOutput BuildBottomUp(const ViewInput& in);
ViewOutput BuildFlat(const ViewInput& in);

// Inclusive values of the stored tree: [node * metric_count + metric].
std::vector<double> StoredInclusive(const ViewInput& in);

// Children lists of a tree given by parent[] (parent < id): CSR, children in ascending id.
struct Children {
  std::vector<uint32_t> offset;  // size n + 1
  std::vector<uint32_t> child;
};
Children BuildChildren(const int32_t* parent, size_t n);
Children BuildChildren(const format::NodeRecord* nodes, size_t n);

// Sorts `node`'s children in the view's order: descending inclusive value of `primary` (NaN
// last), ties in creation order. `keyed`: scratch.
void SortChildrenOf(Children& c, size_t node, const double* incl, size_t metric_count, size_t primary,
                    std::vector<std::pair<double, uint32_t>>& keyed);

// Computes out.order / out.sorted_parent: preorder with children in descending inclusive
// value of `primary` (ties: creation order). `children`: out.parent's children lists when the
// caller has them (they are sorted in place), else built here.
void SortPreorder(ViewOutput& out, size_t metric_count, size_t primary, Children* children = nullptr);

}  // namespace strata::core::detail
