#include "gpu/activity/pc_detail.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace strata::rt::gpu {
namespace {

// A kernel node with at least 2% of the samples keeps its 16 heaviest pairs whatever the
// budget's other uses: the stall rule looks at kernels with 5% of the GPU time or more.
constexpr double kFloorShare = 0.02;
constexpr size_t kFloorPairs = 16;

}  // namespace

PcDetailPlan PlanPcDetail(const std::vector<PcShare>& shares, size_t budget) {
  PcDetailPlan plan;
  std::unordered_map<uint64_t, uint32_t> pair_of;  // node << 32 | site -> pair
  std::vector<uint32_t> pair(shares.size());
  struct Pair {
    uint32_t node = 0;
    double weight = 0;
    bool copy = true;  // every share of it is a copy
  };
  std::vector<Pair> pairs;
  std::unordered_map<uint32_t, double> site_samples, node_samples;
  for (size_t i = 0; i < shares.size(); ++i) {
    const PcShare& sh = shares[i];
    auto [it, fresh] = pair_of.emplace(uint64_t(sh.kernel_node) << 32 | sh.site, uint32_t(pairs.size()));
    if (fresh) pairs.push_back({sh.kernel_node, 0, true});
    pair[i] = it->second;
    Pair& p = pairs[it->second];
    p.weight += sh.samples;
    p.copy = p.copy && sh.copy;
    plan.samples += sh.samples;
    site_samples[sh.site] += sh.samples;
    node_samples[sh.kernel_node] += sh.samples;
  }
  plan.pairs = pairs.size();
  plan.sites = site_samples.size();
  std::vector<bool> keep(pairs.size(), true);
  if (budget && pairs.size() > budget) {
    auto heavier = [&](uint32_t a, uint32_t b) {
      return pairs[a].weight != pairs[b].weight ? pairs[a].weight > pairs[b].weight : a < b;
    };
    // First the floor: the heaviest few pairs of every kernel node that holds a noticeable part
    // of the samples, so that each kernel a finding can name keeps the lines it stalls at even
    // when heavier kernels would take the whole budget.
    std::unordered_map<uint32_t, std::vector<uint32_t>> of_node;  // noticeable node -> its pairs
    std::vector<uint32_t> node_order;                             // first seen first
    for (uint32_t q = 0; q < pairs.size(); ++q) {
      if (node_samples[pairs[q].node] < kFloorShare * plan.samples) continue;
      auto [it, fresh] = of_node.try_emplace(pairs[q].node);
      if (fresh) node_order.push_back(pairs[q].node);
      it->second.push_back(q);
    }
    std::vector<uint32_t> floor;
    for (uint32_t node : node_order) {
      std::vector<uint32_t>& qs = of_node[node];
      size_t n = std::min(qs.size(), kFloorPairs);
      std::partial_sort(qs.begin(), qs.begin() + std::ptrdiff_t(n), qs.end(), heavier);
      floor.insert(floor.end(), qs.begin(), qs.begin() + std::ptrdiff_t(n));
    }
    std::sort(floor.begin(), floor.end(), heavier);
    if (floor.size() > budget) floor.resize(budget);
    keep.assign(pairs.size(), false);
    for (uint32_t q : floor) keep[q] = true;
    // Then the heaviest of the rest, originals before copies: a copy shows the same spread over
    // the function's instructions as its original, scaled, so a distinct instruction is worth more.
    std::vector<uint32_t> rest;
    for (uint32_t q = 0; q < pairs.size(); ++q)
      if (!keep[q]) rest.push_back(q);
    auto before = [&](uint32_t a, uint32_t b) { return pairs[a].copy != pairs[b].copy ? !pairs[a].copy : heavier(a, b); };
    size_t left = budget - floor.size();
    if (rest.size() > left) std::nth_element(rest.begin(), rest.begin() + std::ptrdiff_t(left), rest.end(), before);
    for (size_t j = 0; j < left && j < rest.size(); ++j) keep[rest[j]] = true;
  }
  for (bool k : keep) plan.pairs_itemized += k;
  plan.itemized.resize(shares.size());
  std::unordered_set<uint32_t> sites_itemized;
  for (size_t i = 0; i < shares.size(); ++i) {
    plan.itemized[i] = keep[pair[i]];
    if (!plan.itemized[i]) continue;
    plan.samples_itemized += shares[i].samples;
    sites_itemized.insert(shares[i].site);
  }
  plan.sites_itemized = sites_itemized.size();
  for (uint32_t site : sites_itemized) plan.site_samples_itemized += site_samples[site];
  return plan;
}

}  // namespace strata::rt::gpu
