// Top-down view: the stored calling context tree, children by descending inclusive value.
// The runtime keys native frames by PC, so one source line can appear as several sibling
// nodes (samples at different instructions of the line); siblings of one call site are merged
// here, recursively, as a user reads a flame graph by function and line. Instruction-level
// frames (kind pc) keep their address in the site id and stay apart. With `fold` (the Python
// view) a folded node is its parent's: its statistics join the parent's self, its children
// become the parent's (and merge with them by site).
#include <algorithm>

#include "child_map.h"
#include "view_builder.h"

namespace strata::core::detail {

ViewOutput BuildTopDown(const ViewInput& in) {
  Children kids;
  ViewOutput out = BuildTopDownTree(in, &kids);
  SortPreorder(out, in.metric_count, in.primary, kids.offset.empty() ? nullptr : &kids);
  return out;
}

ViewOutput BuildTopDownTree(const ViewInput& in, Children* tree_children) {
  ViewOutput out;
  const size_t n = in.node_count, m = in.metric_count;
  std::vector<double> stored_incl = StoredInclusive(in);
  // Map stored nodes to view nodes, in stored order (view nodes are created in the order of
  // their first stored node, which ties keep). Most nodes need no look-up: a node whose parent
  // is its view node's only stored node, with no folded child, has its children grouped by
  // site among themselves. Only below nodes that merge or fold (several stored nodes behind one
  // view node) are children looked up by (view parent, site) in a hash table, whose random
  // probes over a million nodes would otherwise be most of the view's time.
  std::vector<uint32_t> view_of(n, 0);
  bool merged = false;
  Children kids;
  if (in.node_site && n > 1) {
    kids = BuildChildren(in.nodes, n);
    // Per stored node: the first sibling of its site (itself when first), whether its site
    // group has several nodes, whether it has a folded child.
    std::vector<uint32_t> rep(n);  // read only where kMulti is set
    std::vector<uint8_t> flags(n, 0);
    constexpr uint8_t kMulti = 1, kFoldedChild = 2, kLookUp = 4;
    bool any_merge = false;  // else every stored node is its own view node
    {
      uint32_t site_count = 0;
      for (size_t i = 0; i < n; ++i) site_count = std::max(site_count, in.node_site[i] + 1);
      std::vector<uint32_t> stamp(site_count, 0), first(site_count), count(site_count);
      for (size_t p = 0; p < n; ++p) {
        const uint32_t b = kids.offset[p], e = kids.offset[p + 1];
        for (uint32_t j = b; j < e; ++j) {
          const uint32_t c = kids.child[j];
          if (in.fold && in.fold[c]) { flags[p] |= kFoldedChild; any_merge = true; continue; }
          const uint32_t s = in.node_site[c];
          if (stamp[s] != p + 1) { stamp[s] = uint32_t(p + 1); first[s] = c; count[s] = 0; }
          ++count[s];
        }
        if (e - b < 2) continue;
        for (uint32_t j = b; j < e; ++j) {
          const uint32_t c = kids.child[j];
          if (in.fold && in.fold[c]) continue;
          const uint32_t s = in.node_site[c];
          if (count[s] > 1) { rep[c] = first[s]; flags[c] |= kMulti; any_merge = true; }
        }
      }
    }
    // kLookUp: the node's view node may hold other stored nodes (merged, folded into it, or
    // placed by look-up), so its children are looked up.
    if (flags[0] & kFoldedChild) flags[0] |= kLookUp;
    ChildMap map(1024);
    uint32_t next = 1;
    for (size_t i = 1; i < n && any_merge; ++i) {
      const uint32_t parent = in.nodes[i].parent;
      const uint32_t vp = view_of[parent];
      if (in.fold && in.fold[i]) {
        view_of[i] = vp;
        flags[i] |= kLookUp;
        merged = true;
        continue;
      }
      if (!(flags[parent] & kLookUp)) {
        if (!(flags[i] & kMulti) || rep[i] == i) view_of[i] = next++;
        else view_of[i] = view_of[rep[i]];
        if (flags[i] & (kMulti | kFoldedChild)) { flags[i] |= kLookUp; merged = true; }
        continue;
      }
      bool inserted;
      uint32_t* slot = map.FindOrInsert((uint64_t(vp) << 32) | in.node_site[i], &inserted);
      if (inserted) *slot = next++;
      else merged = true;
      view_of[i] = *slot;
      flags[i] |= kLookUp;
    }
    if (merged) {
      const size_t vn = next;
      out.parent.assign(vn, -1);
      out.frame.assign(vn, in.nodes[0].frame);
      out.incl.assign(vn * m, 0.0);
      out.excl_storage.assign(vn * (m ? m : 1), Stats{});
      std::vector<double> best(vn, -1.0);
      const size_t p = in.primary;
      for (size_t i = 0; i < n; ++i) {
        uint32_t v = view_of[i];
        if (in.fold && in.fold[i]) {
          // Inside its parent's inclusive value already: only its self statistics join.
          for (size_t k = 0; k < m; ++k) out.excl_storage[size_t(v) * m + k].Merge(in.excl[i * m + k]);
          continue;
        }
        if (i > 0) out.parent[v] = int32_t(view_of[in.nodes[i].parent]);
        double w = m ? stored_incl[i * m + p] : 0.0;
        if (w > best[v]) { best[v] = w; out.frame[v] = in.nodes[i].frame; }  // the heaviest PC's frame
        for (size_t k = 0; k < m; ++k) {
          out.incl[size_t(v) * m + k] += stored_incl[i * m + k];
          out.excl_storage[size_t(v) * m + k].Merge(in.excl[i * m + k]);
        }
      }
      out.excl = out.excl_storage.data();
      if (in.line_site) {
        // (view node, site) -> its entry in out.lines.
        ChildMap line_of(n);
        std::vector<double> line_best;
        for (size_t i = 1; i < n; ++i) {
          if (in.fold && in.fold[i]) continue;
          bool inserted;
          uint32_t* slot = line_of.FindOrInsert((uint64_t(view_of[i]) << 32) | in.line_site[i], &inserted);
          const double w = m ? stored_incl[i * m + p] : 0.0;
          if (inserted) {
            *slot = uint32_t(out.lines.size());
            out.lines.push_back({view_of[i], in.nodes[i].frame, 0.0});
            line_best.push_back(-1.0);
          }
          auto& l = out.lines[*slot];
          l.value += w;
          if (w > line_best[*slot]) { line_best[*slot] = w; l.frame = in.nodes[i].frame; }
        }
      }
    }
  }
  if (!merged) {
    out.parent.resize(n);
    out.frame.resize(n);
    for (size_t i = 0; i < n; ++i) {
      out.parent[i] = i == 0 ? -1 : int32_t(in.nodes[i].parent);
      out.frame[i] = in.nodes[i].frame;
    }
    out.incl = std::move(stored_incl);
    out.excl = in.excl;  // slot = node
  }
  // Every stored node's view node (a folded one's is its parent's): what a metric's values per
  // view node are computed from later (Profile::MetricColumn, Profile::NodeMetrics).
  if (merged) {
    out.landing = std::move(view_of);
  } else {
    out.landing.resize(n);
    for (size_t i = 0; i < n; ++i) out.landing[i] = uint32_t(i);
  }
  // Unmerged, the view's tree is the stored one: its children lists are already built.
  if (!merged && !kids.offset.empty()) *tree_children = std::move(kids);
  return out;
}

}  // namespace strata::core::detail
