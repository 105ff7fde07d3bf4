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
  if (w_.node_count() != before || node >= stats_.size()) return false;
  for (auto& [m, s] : stats_[node]) if (m == metric) { *out = s; return true; }
  return false;
}

bool Cct::Write(const std::string& path, const std::vector<std::pair<std::string, std::string>>& meta,
                std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  // Stats are moved into the writer exactly once: a second Write would double them.
  for (uint32_t node = 0; node < stats_.size(); ++node)
    for (auto& [m, s] : stats_[node]) w_.AddStats(node, m, s);
  stats_.clear();
  for (const auto& [k, v] : meta) w_.Meta(k, v);
  return w_.WriteAtomically(path, error);
}

}  // namespace strata::rt
