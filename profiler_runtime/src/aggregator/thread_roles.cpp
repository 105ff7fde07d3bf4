#include "aggregator/thread_roles.h"

#include <functional>
#include <string>

namespace strata::rt {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Frames every worker thread shares, whatever it works on.
bool IsThreadMachinery(std::string_view file) {
  return EndsWith(file, "/threading.py") || file.find("/concurrent/futures/") != std::string_view::npos ||
         EndsWith(file, "/multiprocessing/pool.py") || EndsWith(file, "/queue.py");
}

}  // namespace

void ThreadRoles::ClassifyPython(uint32_t frame, std::string_view file, std::string_view name) {
  if (IsThreadMachinery(file)) {
    frame_function_[frame] = -1;
    return;
  }
  uint64_t key = std::hash<std::string_view>{}(file) * 1000003u ^ std::hash<std::string_view>{}(name);
  auto it = function_ids_.emplace(key, uint32_t(function_ids_.size())).first;
  frame_function_[frame] = int32_t(it->second);
}

void ThreadRoles::Note(uint32_t slot, const uint32_t* ids, int n, double value, Cct::Unlocked& u) {
  for (int k = 0; k < n; ++k) {  // root first: the outermost Python function that is not machinery
    auto f = frame_function_.find(ids[k]);
    if (f == frame_function_.end() || f->second < 0) continue;
    Thread& t = live_[slot];
    uint32_t fn = uint32_t(f->second);
    t.by_function[fn] += value;
    uint32_t node = u.Node(ids, size_t(k) + 1);
    Role& best = t.best_node[fn];
    // The node of the line with the most samples so far (a running choice is close enough).
    double& v = t.by_node[node];
    v += value;
    if (v > best.value) best = Role{node, v};
    return;
  }
}

uint32_t ThreadRoles::RoleNode(const Thread& t) {
  uint32_t fn = 0;
  double top = -1;
  for (const auto& [f, v] : t.by_function)
    if (v > top) top = v, fn = f;
  auto it = t.best_node.find(fn);
  return it == t.best_node.end() ? 0 : it->second.node;
}

void ThreadRoles::Retire(uint32_t slot) {
  auto it = live_.find(slot);
  if (it == live_.end()) return;
  if (uint32_t node = RoleNode(it->second)) done_.push_back(node);
  live_.erase(it);
}

std::vector<uint32_t> ThreadRoles::Peek() const {
  std::vector<uint32_t> nodes = done_;
  for (const auto& [slot, t] : live_)
    if (uint32_t node = RoleNode(t)) nodes.push_back(node);
  return nodes;
}

void ThreadRoles::Emit(Cct::Unlocked& u) {
  for (auto& [slot, t] : live_)
    if (uint32_t node = RoleNode(t)) done_.push_back(node);
  live_.clear();
  if (done_.empty()) return;
  uint32_t m = u.Metric("threads", "threads");
  for (uint32_t node : done_) u.AddAt(node, m, 1.0);
  done_.clear();
}

}  // namespace strata::rt
