#include "gpu/activity/pc_detail.h"

#include <algorithm>
#include <unordered_map>

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
  std::vector<double> weight;
  for (size_t i = 0; i < shares.size(); ++i) {
    uint64_t key = uint64_t(shares[i].kernel_node) << 32 | shares[i].site;
    auto [it, fresh] = pair_of.emplace(key, uint32_t(weight.size()));
    if (fresh) weight.push_back(0);
    pair[i] = it->second;
    weight[it->second] += shares[i].samples;
    plan.samples += shares[i].samples;
  }
  plan.pairs = weight.size();
  std::vector<bool> keep(weight.size(), true);
  if (budget && weight.size() > budget) {
    auto heavier = [&](uint32_t a, uint32_t b) { return weight[a] != weight[b] ? weight[a] > weight[b] : a < b; };
    // First the floor: the heaviest few pairs of every kernel node that holds a noticeable part
    // of the samples, so that each kernel a finding can name keeps the lines it stalls at even
    // when heavier kernels would take the whole budget.
    std::unordered_map<uint32_t, double> node_samples;
    for (const PcShare& sh : shares) node_samples[sh.kernel_node] += sh.samples;
    std::unordered_map<uint32_t, std::vector<uint32_t>> of_node;  // noticeable node -> its pairs
    std::vector<uint32_t> node_of(weight.size());
    for (size_t i = 0; i < shares.size(); ++i) node_of[pair[i]] = shares[i].kernel_node;
    for (uint32_t q = 0; q < weight.size(); ++q)
      if (node_samples[node_of[q]] >= kFloorShare * plan.samples) of_node[node_of[q]].push_back(q);
    std::vector<uint32_t> floor;
    for (auto& [node, qs] : of_node) {
      size_t n = std::min(qs.size(), kFloorPairs);
      std::partial_sort(qs.begin(), qs.begin() + std::ptrdiff_t(n), qs.end(), heavier);
      floor.insert(floor.end(), qs.begin(), qs.begin() + std::ptrdiff_t(n));
    }
    std::sort(floor.begin(), floor.end(), heavier);
    if (floor.size() > budget) floor.resize(budget);
    keep.assign(weight.size(), false);
    for (uint32_t q : floor) keep[q] = true;
    // Then the heaviest of the rest.
    std::vector<uint32_t> rest;
    for (uint32_t q = 0; q < weight.size(); ++q)
      if (!keep[q]) rest.push_back(q);
    size_t left = budget - floor.size();
    if (rest.size() > left) std::nth_element(rest.begin(), rest.begin() + std::ptrdiff_t(left), rest.end(), heavier);
    for (size_t j = 0; j < left && j < rest.size(); ++j) keep[rest[j]] = true;
  }
  for (bool k : keep) plan.pairs_itemized += k;
  plan.itemized.resize(shares.size());
  for (size_t i = 0; i < shares.size(); ++i) {
    plan.itemized[i] = keep[pair[i]];
    if (plan.itemized[i]) plan.samples_itemized += shares[i].samples;
  }
  return plan;
}

}  // namespace strata::rt::gpu
