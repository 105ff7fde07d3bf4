#include "steady_path.h"

#include <algorithm>
#include <set>

#include "sass_operands.h"

namespace strata::core::sass {
namespace {

bool EndsFlow(const SassInstr& i) {  // no fall-through after it
  if (i.guard) return false;
  return i.base == "EXIT" || i.base == "RET" || i.base == "BRA" || i.base == "JMP" || i.base == "BRX" || i.base == "JMX";
}

}  // namespace

void BuildBlocks(SassDependencyGraph& g, const std::map<std::string, uint64_t>& label_offsets) {
  const auto& ins = g.instructions;
  g.blocks.clear();
  g.block_of.assign(ins.size(), 0);
  if (ins.empty()) return;
  auto index_of = [&](uint64_t offset) -> std::optional<size_t> {
    auto it = std::lower_bound(ins.begin(), ins.end(), offset, [](const SassInstr& a, uint64_t o) { return a.offset < o; });
    if (it == ins.end() || it->offset != offset) return std::nullopt;
    return size_t(it - ins.begin());
  };
  std::vector<std::optional<size_t>> target(ins.size());
  std::set<size_t> leaders = {0};
  for (size_t k = 0; k < ins.size(); ++k) {
    if (!ins[k].branch_label.empty()) {
      auto l = label_offsets.find(ins[k].branch_label);
      if (l != label_offsets.end()) target[k] = index_of(l->second);
      if (target[k]) leaders.insert(*target[k]);
    }
    if ((IsBranch(ins[k].base) || ins[k].base == "EXIT" || ins[k].base == "RET") && k + 1 < ins.size()) leaders.insert(k + 1);
  }
  std::vector<size_t> starts(leaders.begin(), leaders.end());
  for (size_t b = 0; b < starts.size(); ++b) {
    SassBlock blk;
    blk.first = starts[b];
    blk.last = b + 1 < starts.size() ? starts[b + 1] - 1 : ins.size() - 1;
    for (size_t k = blk.first; k <= blk.last; ++k) g.block_of[k] = b;
    g.blocks.push_back(blk);
  }
  for (size_t b = 0; b < g.blocks.size(); ++b) {
    const size_t last = g.blocks[b].last;
    auto add = [&](size_t to) {
      auto& s = g.blocks[b].successors;
      if (std::find(s.begin(), s.end(), to) == s.end()) s.push_back(to);
      g.blocks[to].predecessors.push_back(b);
      if (to <= b) g.blocks[to].loop_head = true;
    };
    if (target[last]) add(g.block_of[*target[last]]);
    if (!EndsFlow(ins[last]) && b + 1 < g.blocks.size()) add(b + 1);
  }
}

bool SteadyWalk::Back() {
  if (steps_ > 64 * g_.instructions.size()) return false;
  const size_t b = g_.block_of[at_];
  const SassBlock& blk = g_.blocks[b];
  if (at_ > blk.first) {
    --at_;
    ++steps_;
    return true;
  }
  std::optional<size_t> from;
  bool back = false;
  if (blk.loop_head && laps_taken_[b] < laps_) {
    for (size_t p : blk.predecessors)
      if (p >= b && (!from || p > *from)) from = p;
    back = from.has_value();
  }
  if (!from) {
    for (size_t p : blk.predecessors)
      if (p + 1 == b && p < b) from = p;  // the fall-through
    if (!from)
      for (size_t p : blk.predecessors)
        if (p < b && (!from || p < *from)) from = p;
  }
  if (!from) return false;
  if (back) {
    ++laps_taken_[b];
    ++back_edges_;
    crossed_.push_back({b, *from});
  }
  at_ = g_.blocks[*from].last;
  ++steps_;
  return true;
}

int SteadyWalk::back_edges_around(size_t i, size_t j) const {
  int n = 0;
  for (const auto& [head, tail] : crossed_) {
    const size_t first = g_.blocks[head].first, last = g_.blocks[tail].last;
    n += first <= i && i <= last && first <= j && j <= last;
  }
  return n;
}

}  // namespace strata::core::sass
