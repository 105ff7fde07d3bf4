// Bottom-up (inverted) view. Every sampled stored node n defines a sample path
// root > f1 > ... > fk = n. Its frames, read from the leaf up (fk, ..., f1), form one chain
// of the inverted tree, merged by function: the roots of the view are leaf functions, their
// children the callers, and so on. A view node's inclusive value is the sum over the sample
// paths that end with its suffix (each path adds once to each node of its chain, so recursion
// is counted once per path). Its exclusive statistics are those of the sample paths that end
// at it (the path has no further caller: the outermost frame), merged with Chan's formula, so
// inclusive = exclusive + sum of the children's inclusive, as in every view. With `fold` (the
// Python view) folded frames are left out of the chains: a sample in the interpreter's eval loop
// ends at the Python function it runs.
#include <algorithm>
#include <string>

#include "../stats.h"
#include "strata/core/api.h"
#include "child_map.h"
#include "view_builder.h"

namespace strata::core::detail {

namespace {
// Limits against hostile or degenerate trees (a deep chain sampled at every node is quadratic).
constexpr size_t kMaxBottomUpNodes = size_t(1) << 26;  // ~67M view nodes
constexpr uint64_t kMaxBottomUpSteps = uint64_t(1) << 30;  // frames walked over all paths
}  // namespace

ViewOutput BuildBottomUp(const ViewInput& in) {
  const size_t m = in.metric_count, p = in.primary;
  // Upper bound of the view size: the frames on all sample paths (depth of each sampled node).
  uint64_t steps = 0;
  {
    std::vector<uint32_t> depth(in.node_count, 0);
    for (size_t i = 1; i < in.node_count; ++i) depth[i] = depth[in.nodes[i].parent] + 1;
    for (size_t s = 0; s < in.sampled_count; ++s) steps += depth[in.sampled[s]];
  }
  if (steps > kMaxBottomUpSteps)
    throw Error("bottom-up view too large: the sample paths hold " + std::to_string(steps) +
                " frames in all (the limit is " + std::to_string(kMaxBottomUpSteps) + ")");
  const size_t reserve = size_t(std::min<uint64_t>(steps + 1, kMaxBottomUpNodes));

  ViewOutput out;
  std::vector<double> best;  // weight of the contribution that chose frame[v]
  out.parent.reserve(reserve);
  out.frame.reserve(reserve);
  out.incl.reserve(reserve * m);
  best.reserve(reserve);
  out.parent.push_back(-1);
  out.frame.push_back(in.nodes[0].frame);
  out.incl.assign(m, 0.0);
  best.push_back(0);
  ChildMap map(reserve);
  std::vector<uint32_t> terminal(in.sampled_count);  // view node where each sample path ends

  for (size_t s = 0; s < in.sampled_count; ++s) {
    const uint32_t n = in.sampled[s];
    const Stats* st = in.excl + size_t(n) * m;
    const double weight = m ? st[p].sum : 0.0;
    for (size_t k = 0; k < m; ++k) out.incl[k] += st[k].sum;
    uint32_t cur = 0;
    for (uint32_t v = n; v != 0; v = in.nodes[v].parent) {
      if (in.fold && in.fold[v]) continue;
      bool inserted;
      uint32_t* slot = map.FindOrInsert((uint64_t(cur) << 32) | in.node_func[v], &inserted);
      if (inserted) {
        if (out.parent.size() >= kMaxBottomUpNodes)
          throw Error("bottom-up view would exceed " + std::to_string(kMaxBottomUpNodes) + " nodes");
        *slot = uint32_t(out.parent.size());
        out.parent.push_back(int32_t(cur));
        out.frame.push_back(in.nodes[v].frame);
        best.push_back(weight);
        out.incl.resize(out.incl.size() + m, 0.0);
      }
      const uint32_t id = *slot;
      if (weight > best[id]) { best[id] = weight; out.frame[id] = in.nodes[v].frame; }
      double* incl = out.incl.data() + size_t(id) * m;
      for (size_t k = 0; k < m; ++k) incl[k] += st[k].sum;
      cur = id;
    }
    terminal[s] = cur;
  }
  // Exclusive statistics only where sample paths end (sparse: most view nodes have none).
  out.excl_slot.assign(out.parent.size(), ViewOutput::kNoSlot);
  for (size_t s = 0; s < in.sampled_count; ++s) {
    uint32_t& slot = out.excl_slot[terminal[s]];
    if (slot == ViewOutput::kNoSlot) {
      slot = uint32_t(out.excl_storage.size() / (m ? m : 1));
      out.excl_storage.resize(out.excl_storage.size() + (m ? m : 1));
    }
    const Stats* st = in.excl + size_t(in.sampled[s]) * m;
    for (size_t k = 0; k < m; ++k) out.excl_storage[size_t(slot) * m + k].Merge(st[k]);
  }
  out.excl = out.excl_storage.data();
  SortPreorder(out, m, p);
  return out;
}

}  // namespace strata::core::detail
