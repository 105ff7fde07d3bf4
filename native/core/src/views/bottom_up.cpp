// Bottom-up (inverted) view. Every sampled stored node n defines a sample path
// root > f1 > ... > fk = n. Its frames, read from the leaf up (fk, ..., f1), form one chain
// of the inverted tree, merged by function: the roots of the view are leaf functions, their
// children the callers, and so on. A view node's inclusive value is the sum over the sample
// paths that end with its suffix (each path adds once to each node of its chain, so recursion
// is counted once per path). Its exclusive statistics are those of the sample paths that end
// at it (the path has no further caller: the outermost frame), merged with Chan's formula, so
// inclusive = exclusive + sum of the children's inclusive, as in every view.
// Size: exact for small trees; a large one (a 1M-node tree holds tens of millions of frames on
// its sample paths, a deep one billions) is bounded in time and memory, and View::partial says
// what was left out: callers of nodes too small to show, callers beyond a depth, a node cap.
// With `fold` (the Python view) folded frames are left out of the chains: a sample in the
// interpreter's eval loop ends at the Python function it runs.
#include <algorithm>
#include <cstdio>
#include <string>

#include "../stats.h"
#include "strata/core/api.h"
#include "child_map.h"
#include "view_builder.h"

namespace strata::core::detail {

namespace {
// Bounds against huge or degenerate trees (a deep chain sampled at every node is quadratic:
// a 1M-deep chain holds 5e11 frames on its sample paths). Past them the view is partial, with
// a one-line reason (View::partial), never an allocation that kills the process.
constexpr uint64_t kMaxBottomUpSteps = uint64_t(1) << 25;  // frames walked over all paths
constexpr size_t kMaxBottomUpNodes = size_t(1) << 24;      // ~16.7M view nodes
constexpr size_t kViewBytes = size_t(640) << 20;           // the view's memory, all metrics
// Above this many frames on all sample paths the view leaves out the callers of nodes under
// kMinShare of the primary metric's total (below, it is exact).
constexpr uint64_t kExactSteps = uint64_t(1) << 20;
constexpr double kMinShare = 1e-4;
// Past this many nodes (long unshared paths: few samples, deep stacks) the share rises tenfold.
constexpr size_t kSoftNodes = size_t(1) << 17;
// Bytes per view node while built and once a View: the inclusive values here, the View's
// NodeMetric per metric, parent/frame/order columns and the child map.
size_t BytesPerNode(size_t m) { return m * (sizeof(double) + sizeof(NodeMetric)) + 64; }

std::string Percent(double part, double whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return buf;
}
}  // namespace

ViewOutput BuildBottomUp(const ViewInput& in) {
  const size_t m = in.metric_count, p = in.primary;
  // The view's size is at most the frames on all sample paths (depth of each sampled node).
  uint64_t steps = 0;
  {
    std::vector<uint32_t> depth(in.node_count, 0);
    for (size_t i = 1; i < in.node_count; ++i) depth[i] = depth[in.nodes[i].parent] + 1;
    for (size_t s = 0; s < in.sampled_count; ++s) steps += depth[in.sampled[s]];
  }
  // Frames walked so far; past the budget the paths still going stop at the level reached.
  uint64_t walked = 0;
  uint32_t depth_limit = UINT32_MAX;
  const size_t node_cap = std::max<size_t>(1024, std::min(kMaxBottomUpNodes, kViewBytes / BytesPerNode(m)));
  const size_t reserve = size_t(std::min<uint64_t>(std::min<uint64_t>(steps, kMaxBottomUpSteps) + 1, node_cap));

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
  // Sized for what most large views come to (tens of thousands of nodes) and grown on demand: a
  // table sized for the bound would spread a small view over tens of megabytes of cache misses.
  ChildMap map(std::min<size_t>(reserve, size_t(1) << 16));
  std::vector<uint32_t> terminal(in.sampled_count);  // view node where each sample path ends
  // Paths whose outer callers were left out, and their weight (primary metric).
  size_t cut_depth = 0, cut_cap = 0, cut_share = 0;
  double cut_depth_weight = 0, cut_cap_weight = 0, all_weight = 0;
  for (size_t s = 0; s < in.sampled_count; ++s) {
    const Stats* st = in.excl + size_t(in.sampled[s]) * m;
    all_weight += m ? st[p].sum : 0.0;
    for (size_t k = 0; k < m; ++k) out.incl[k] += st[k].sum;
  }
  // Large trees: a node under kMinShare of the total keeps no callers (it is under a pixel
  // until zoomed far in), which keeps the view to what a flame graph shows.
  const bool prune = steps > kExactSteps;
  double min_share = kMinShare;

  // Level by level (callers at distance 1, 2, ... from the leaf): a node of level L receives
  // every path through it during level L, so its values are final when the level ends and the
  // paths through a node too small to show can stop there. Nodes are created in the order the
  // path-by-path walk would create siblings (first path first), so ties sort the same.
  std::vector<uint32_t> pos(in.sampled_count), cur(in.sampled_count, 0), active(in.sampled_count), next;
  // The Python view's folded frames are not on the chains: a path skips them.
  auto unfolded = [&](uint32_t v) {
    while (v != 0 && in.fold && in.fold[v]) v = in.nodes[v].parent;
    return v;
  };
  for (size_t s = 0; s < in.sampled_count; ++s) { pos[s] = unfolded(in.sampled[s]); active[s] = uint32_t(s); }
  for (uint32_t level = 0; !active.empty(); ++level) {
    next.clear();
    if (walked >= kMaxBottomUpSteps && depth_limit == UINT32_MAX) depth_limit = level;
    walked += active.size();
    // Each path's next frame is a cache miss over a large tree: asked for ahead of its turn.
    constexpr size_t kAhead = 16;
    for (size_t a = 0; a < active.size(); ++a) {
      if (a + kAhead < active.size()) {
        const uint32_t ahead = pos[active[a + kAhead]];
        __builtin_prefetch(in.node_func + ahead);
        __builtin_prefetch(in.nodes + ahead);
      }
      const uint32_t s = active[a];
      const uint32_t v = pos[s];
      const Stats* st = in.excl + size_t(in.sampled[s]) * m;
      const double weight = m ? st[p].sum : 0.0;
      if (v == 0) { terminal[s] = cur[s]; continue; }
      if (level >= depth_limit) { ++cut_depth; cut_depth_weight += weight; terminal[s] = cur[s]; continue; }
      bool inserted;
      const uint64_t key = (uint64_t(cur[s]) << 32) | in.node_func[v];
      uint32_t* slot = map.FindOrInsert(key, &inserted, out.parent.size() < node_cap);
      if (!slot) { ++cut_cap; cut_cap_weight += weight; terminal[s] = cur[s]; continue; }  // full
      if (inserted) {
        *slot = uint32_t(out.parent.size());
        out.parent.push_back(int32_t(cur[s]));
        out.frame.push_back(in.nodes[v].frame);
        best.push_back(weight);
        out.incl.resize(out.incl.size() + m, 0.0);
      }
      const uint32_t id = *slot;
      if (weight > best[id]) { best[id] = weight; out.frame[id] = in.nodes[v].frame; }
      double* incl = out.incl.data() + size_t(id) * m;
      for (size_t k = 0; k < m; ++k) incl[k] += st[k].sum;
      cur[s] = id;
      pos[s] = unfolded(in.nodes[v].parent);
      next.push_back(s);
    }
    if (prune) {
      if (out.parent.size() > kSoftNodes) min_share = kMinShare * 10;
      const double min_weight = all_weight * min_share;
      size_t kept = 0;
      for (uint32_t s : next) {
        if (pos[s] != 0 && m && out.incl[size_t(cur[s]) * m + p] < min_weight) {
          ++cut_share;
          terminal[s] = cur[s];
        } else {
          next[kept++] = s;
        }
      }
      next.resize(kept);
    }
    active.swap(next);
  }
  if (cut_share)
    out.partial = "bottom-up view of a large profile: frames under " + Percent(min_share, 1.0) +
                  " of the time are shown without their callers (the outer callers of " + std::to_string(cut_share) +
                  " of " + std::to_string(in.sampled_count) + " sample paths)";
  if (cut_depth)
    out.partial += std::string(out.partial.empty() ? "partial bottom-up view: " : "; ") + "callers more than " +
                   std::to_string(depth_limit) + " frames from the leaf are left out on " + std::to_string(cut_depth) +
                   " sample paths (" + Percent(cut_depth_weight, all_weight) + " of the time; the paths hold " +
                   std::to_string(steps) + " frames in all)";
  if (cut_cap)
    out.partial += std::string(out.partial.empty() ? "partial bottom-up view: " : "; ") + "capped at " +
                   std::to_string(node_cap) + " nodes for memory, the outer callers of " + std::to_string(cut_cap) +
                   " sample paths are cut (" + Percent(cut_cap_weight, all_weight) + " of the time)";
  // Exclusive statistics only where sample paths end (sparse: most view nodes have none). A cut
  // path ends where it was cut: inclusive = exclusive + children still holds.
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
  out.landing.assign(in.node_count, ViewOutput::kNoSlot);
  for (size_t s = 0; s < in.sampled_count; ++s) out.landing[in.sampled[s]] = terminal[s];
  SortPreorder(out, m, p);
  return out;
}

}  // namespace strata::core::detail
