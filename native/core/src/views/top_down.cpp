// Top-down view: the stored calling context tree, children by descending inclusive value.
#include "view_builder.h"

namespace strata::core::detail {

ViewOutput BuildTopDown(const ViewInput& in) {
  ViewOutput out;
  const size_t n = in.node_count, m = in.metric_count;
  out.parent.resize(n);
  out.frame.resize(n);
  for (size_t i = 0; i < n; ++i) {
    out.parent[i] = i == 0 ? -1 : int32_t(in.nodes[i].parent);
    out.frame[i] = in.nodes[i].frame;
  }
  out.incl = StoredInclusive(in);
  out.excl = in.excl;  // slot = node
  SortPreorder(out, m, in.primary);
  return out;
}

}  // namespace strata::core::detail
