#include "gpu/activity/pc_detail.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace strata::rt::gpu {

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
    std::vector<uint32_t> order(weight.size());
    std::iota(order.begin(), order.end(), 0u);
    auto heavier = [&](uint32_t a, uint32_t b) { return weight[a] != weight[b] ? weight[a] > weight[b] : a < b; };
    std::nth_element(order.begin(), order.begin() + std::ptrdiff_t(budget), order.end(), heavier);
    keep.assign(weight.size(), false);
    for (size_t j = 0; j < budget; ++j) keep[order[j]] = true;
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
