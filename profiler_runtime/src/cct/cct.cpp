#include "cct/cct.h"

namespace strata::rt {

uint32_t Cct::Module(std::string_view path, std::string_view build_id, uint64_t load_bias) {
  std::lock_guard<std::mutex> lock(mu_);
  return w_.Module(path, build_id, load_bias);
}

uint32_t Cct::Frame(FrameKind kind, uint32_t module, uint64_t address, std::string_view name,
                    std::string_view file, uint32_t line, uint32_t flags) {
  std::lock_guard<std::mutex> lock(mu_);
  return w_.Frame(kind, module, address, name, file, line, flags);
}

uint32_t Cct::Metric(std::string_view name, std::string_view unit) {
  std::lock_guard<std::mutex> lock(mu_);
  return w_.Metric(name, unit);
}

void Cct::AddPath(const uint32_t* frames, size_t n, uint32_t metric, double value) {
  std::lock_guard<std::mutex> lock(mu_);
  AddPathLocked(frames, n, metric, value);
}

void Cct::AddPathLocked(const uint32_t* frames, size_t n, uint32_t metric, double value) {
  AddAtLocked(NodeLocked(frames, n), metric, value);
}

uint32_t Cct::NodeLocked(const uint32_t* frames, size_t n) {
  uint32_t node = 0;
  for (size_t i = 0; i < n; ++i) node = w_.Child(node, frames[i]);
  return node;
}

void Cct::AddAtLocked(uint32_t node, uint32_t metric, double value) {
  if (stats_.size() <= node) stats_.resize(w_.node_count());
  for (auto& [m, s] : stats_[node]) {
    if (m == metric) { s.Add(value); return; }
  }
  strata::format::MetricStats s;
  s.Add(value);
  stats_[node].emplace_back(metric, s);
}

size_t Cct::NodeCount() {
  std::lock_guard<std::mutex> lock(mu_);
  return w_.node_count();
}

bool Cct::Stats(const uint32_t* frames, size_t n, uint32_t metric, strata::format::MetricStats* out) {
  std::lock_guard<std::mutex> lock(mu_);
  // Child() interns, so probing would add nodes; only report nodes that already have stats.
  uint32_t node = 0;
  size_t before = w_.node_count();
  for (size_t i = 0; i < n; ++i) node = w_.Child(node, frames[i]);
  if (w_.node_count() != before) return false;
  // Written values live in the writer, later ones here until the next Write.
  strata::format::MetricStats total;
  bool found = false;
  if (const auto* written = w_.StatsAt(node, metric)) { total = *written; found = true; }
  if (node < stats_.size())
    for (auto& [m, s] : stats_[node]) if (m == metric) { total.Merge(s); found = true; }
  if (found) *out = total;
  return found;
}

bool Cct::Write(const std::string& path, const std::vector<std::pair<std::string, std::string>>& meta,
                std::string* error, const std::vector<TransientValue>& transient,
                const std::vector<MetricFactor>& factors) {
  std::vector<unsigned char> bytes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Values added since the last Write move into the writer (a merge: writing again never
    // counts a value twice).
    for (uint32_t node = 0; node < stats_.size(); ++node)
      for (auto& [m, s] : stats_[node]) w_.AddStats(node, m, s);
    stats_.clear();
    for (const auto& [k, v] : meta) w_.Meta(k, v);
    // Transient values: added for this serialization, then the previous stats are put back.
    struct Saved { uint32_t node, metric; bool had; strata::format::MetricStats stats; };
    std::vector<Saved> saved;
    for (const TransientValue& t : transient) {
      if (t.node >= w_.node_count()) continue;
      const auto* cur = w_.StatsAt(t.node, t.metric);
      saved.push_back(Saved{t.node, t.metric, cur != nullptr, cur ? *cur : strata::format::MetricStats{}});
      strata::format::MetricStats s = cur ? *cur : strata::format::MetricStats{};
      s.Add(t.value);
      w_.ReplaceStats(t.node, t.metric, &s);
    }
    for (const MetricFactor& f : factors) {
      const std::optional<uint32_t> m = w_.FindMetric(f.name);
      if (!m || f.factor == 1) continue;
      for (uint32_t node = 0; node < w_.node_count(); ++node) {
        const auto* cur = w_.StatsAt(node, *m);
        if (!cur) continue;
        saved.push_back(Saved{node, *m, true, *cur});
        strata::format::MetricStats s = *cur;
        s.sum *= f.factor;
        s.min *= f.factor;
        s.max *= f.factor;
        s.m2 *= f.factor * f.factor;
        w_.ReplaceStats(node, *m, &s);
      }
    }
    bytes = w_.Serialize();
    for (auto it = saved.rbegin(); it != saved.rend(); ++it)
      w_.ReplaceStats(it->node, it->metric, it->had ? &it->stats : nullptr);
  }
  return strata::format::WriteFileAtomically(path, bytes, error);
}

}  // namespace strata::rt
