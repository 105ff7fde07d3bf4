#include "gpu/activity/correlation.h"

#include <iterator>

namespace strata::rt::gpu {
namespace {

constexpr uint64_t kMatchedKeepNs = 2000000000ull;   // keep a matched correlation 2 s
constexpr uint64_t kGraphKeepNs = 30000000000ull;    // graph launches: their kernels trickle in
constexpr uint64_t kUnmatchedKeepNs = 60000000000ull;
constexpr uint64_t kAliasKeepNs = 10000000000ull;    // nested-call aliases: records follow soon
constexpr uint64_t kPendingMaxNs = 3000000000ull;    // records waiting for their API entry
constexpr uint64_t kSweepEveryNs = 1000000000ull;
constexpr size_t kMaxWaiting = 1u << 20;

}  // namespace

void CorrelationTable::NoteAlias(uint32_t corr, uint32_t outer, ApiRole role, uint64_t now) {
  Correlation& e = map_[corr];
  e.alias = outer;
  e.role = role;
  e.t_insert = now;
}

void CorrelationTable::NoteApiNode(uint32_t corr, uint32_t node, ApiRole role, uint64_t now) {
  Correlation& e = map_[corr];
  e.node = node;
  e.alias = 0;
  e.role = role;
  e.t_insert = now;
  e.t_match = 0;  // a new call under a known id: kept as long as an unmatched one
}

Correlation* CorrelationTable::Find(uint32_t corr) {
  auto it = map_.find(corr);
  return it == map_.end() ? nullptr : &it->second;
}

uint32_t CorrelationTable::Outer(uint32_t corr) {
  auto it = map_.find(corr);
  if (it != map_.end() && !it->second.node && it->second.alias) return it->second.alias;
  return corr;
}

uint32_t CorrelationTable::NodeOf(uint32_t corr, uint64_t now) {
  for (int hop = 0; hop < 2; ++hop) {
    auto it = map_.find(corr);
    if (it == map_.end()) return 0;
    if (!it->second.t_match) it->second.t_match = now;
    if (it->second.node) return it->second.node;
    if (!it->second.alias) return 0;
    corr = it->second.alias;
  }
  return 0;
}

void CorrelationTable::Sweep(uint64_t now) {
  if (now - last_sweep_ < kSweepEveryNs) return;
  last_sweep_ = now;
  for (auto it = map_.begin(); it != map_.end();) {
    const Correlation& e = it->second;
    uint64_t keep = e.role == ApiRole::kGraphLaunch ? kGraphKeepNs : kMatchedKeepNs;
    bool drop = e.t_match ? now - e.t_match > keep
                          : now - e.t_insert > (e.alias ? kAliasKeepNs : kUnmatchedKeepNs);
    it = drop ? map_.erase(it) : std::next(it);
  }
}

bool CorrelationTable::Hold(const GpuActivity& a, uint64_t now) {
  if (waiting_.size() >= kMaxWaiting) return false;
  waiting_.push_back({a, now});
  return true;
}

void CorrelationTable::RetryWaiting(uint64_t now, bool final,
                                    const std::function<void(GpuActivity&, uint32_t)>& deliver,
                                    const std::function<void(GpuActivity&)>& give_up) {
  if (waiting_.empty()) return;
  std::vector<Waiting> still;
  for (Waiting& w : waiting_) {
    uint32_t node = NodeOf(w.activity.correlation_id, now);
    if (node) deliver(w.activity, node);
    else if (final || now - w.since > kPendingMaxNs) give_up(w.activity);
    else still.push_back(std::move(w));
  }
  waiting_.swap(still);
}

}  // namespace strata::rt::gpu
