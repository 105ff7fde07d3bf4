// The parts of a top-down view before the view: slices cut from the view's tree in creation
// order (BuildTopDownTree), each node's preorder id computed from the subtree sizes of the
// siblings before it, children sorted only where a part goes. What SortPreorder and the preorder
// arrays cost for every node (most of a large view's build) is paid only when the whole view is
// asked for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "strata/core/api.h"
#include "view_builder.h"

namespace strata::core::detail {

class TopDownTreeParts {
 public:
  // `out`: BuildTopDownTree's output; `children`: its children lists when it made them (else
  // empty); metric_count and primary as in its ViewInput.
  TopDownTreeParts(ViewOutput out, Children children, size_t metric_count, size_t primary);

  size_t size() const { return out_.parent.size(); }
  // SliceView of the sorted view, with frames and values; `root` a preorder id: 0 or a node of
  // an earlier part. Throws Error otherwise.
  ViewPart Part(size_t root, const SliceBound& bound);
  // A copy of the tree to sort (SortPreorder with `children`) while parts are still cut from
  // this one: its exclusive statistics are read from here (keep this alive while it is used).
  ViewOutput CopyTree(Children* children) const;
  size_t metric_count() const { return m_; }
  size_t primary() const { return p_; }

 private:
  double Value(uint32_t v) const { return out_.incl[size_t(v) * m_ + p_]; }
  // Node v's children in the view's order (sorted on first use, in place).
  const uint32_t* SortedChildren(uint32_t v, uint32_t* count);
  void Emit(ViewPart& part, uint32_t v, uint32_t id, int32_t parent);

  ViewOutput out_;
  Children kids_;
  size_t m_, p_;
  std::vector<uint32_t> subtree_;      // view nodes in each node's subtree
  std::vector<uint8_t> sorted_;        // per node: its children are sorted
  std::vector<uint32_t> id_;           // per node: its preorder id once a part placed it (else ~0)
  std::unordered_map<uint32_t, uint32_t> node_of_id_;  // preorder id -> node, for nodes placed
};

}  // namespace strata::core::detail
