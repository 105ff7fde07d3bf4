// strata/core/kineto_import.h: nests each thread's CPU-side events by time containment (an event
// lies inside the one that encloses its interval), then hangs GPU work under its launch.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "kineto_events.h"
#include "strata/core/api.h"
#include "strata/core/kineto_import.h"
#include "strata/format/writer.h"

namespace strata::core {
namespace {

namespace fmt = strata::format;
using detail::KinetoEvent;
using detail::KinetoEventKind;

// Kineto writes "path/to/file.py(12): function"; other Python events ("<built-in method ...>",
// "nn.Module: Linear_0") have no source line and keep their whole text as the name.
struct PythonSite {
  std::string name, file;
  uint32_t line = 0;
};
PythonSite ParsePythonSite(const std::string& text) {
  const size_t close = text.find("): ");
  const size_t open = close == std::string::npos ? std::string::npos : text.rfind('(', close);
  if (open == std::string::npos || open == 0 || close == open + 1) return {text, "", 0};
  const std::string digits = text.substr(open + 1, close - open - 1);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return {text, "", 0};
  return {text.substr(close + 3), text.substr(0, open), uint32_t(std::stoul(digits))};
}

// torch.profiler's schedule wraps each step in "ProfilerStep#N": one frame for every step, so
// that the steps' identical call paths add up instead of splitting N ways.
std::string OperatorName(const std::string& name) {
  static const std::string kStep = "ProfilerStep#";
  if (name.size() > kStep.size() && name.compare(0, kStep.size(), kStep) == 0 &&
      std::all_of(name.begin() + long(kStep.size()), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return "ProfilerStep";
  return name;
}

fmt::MetricStats One(double value) {
  fmt::MetricStats s;
  s.Add(value);
  return s;
}

constexpr double kNsPerUs = 1000.0;

}  // namespace

std::vector<unsigned char> KinetoTraceToProfile(const std::string& text, const std::string& source) {
  std::vector<detail::KinetoFlowEnd> links;
  const std::vector<KinetoEvent> events = detail::ReadKinetoEvents(text, &links);

  fmt::ProfileWriter w;
  w.Meta("command", "strata import " + source);
  w.Meta("imported_from", "kineto");
  const uint32_t wall = w.Metric("wall_time", "ns");
  const uint32_t api = w.Metric("api_time", "ns");
  const uint32_t gpu = w.Metric("gpu_time", "ns");

  auto frame_of = [&](const KinetoEvent& e) {
    switch (e.kind) {
      case KinetoEventKind::kPythonFunction: {
        const PythonSite site = ParsePythonSite(e.name);
        return w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, site.name, site.file, site.line);
      }
      case KinetoEventKind::kOperator:
        return w.Frame(fmt::FrameKind::kOperator, fmt::kNone, 0, OperatorName(e.name), "", 0);
      case KinetoEventKind::kRuntime: return w.Frame(fmt::FrameKind::kGpuApi, fmt::kNone, 0, e.name, "", 0);
      case KinetoEventKind::kGpu: break;
    }
    return w.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, e.name, "", 0);
  };

  // CPU-side events per thread, outer before inner: by start, then longest first.
  std::map<detail::KinetoThread, std::vector<const KinetoEvent*>> threads;
  for (const KinetoEvent& e : events)
    if (e.kind != KinetoEventKind::kGpu) threads[e.thread].push_back(&e);
  for (auto& [thread, list] : threads)
    std::stable_sort(list.begin(), list.end(), [](const KinetoEvent* a, const KinetoEvent* b) {
      return a->ts_us != b->ts_us ? a->ts_us < b->ts_us : a->dur_us > b->dur_us;
    });

  // Forward-backward links: autograd runs a backward operator on its own thread, with no Python
  // frame; the trace links it to the forward operator it differentiates. The backward goes under
  // that forward operator's node (so under the Python line of the forward), as the runtime
  // places backward kernels. Threads with link starts are walked first.
  std::map<int64_t, std::pair<detail::KinetoThread, double>> link_start;
  std::map<detail::KinetoThread, std::vector<std::pair<double, int64_t>>> link_finish;  // per thread: (ts, id)
  for (const detail::KinetoFlowEnd& l : links) {
    if (l.start) link_start[l.id] = {l.thread, l.ts_us};
    else link_finish[l.thread].push_back({l.ts_us, l.id});
  }
  std::map<const KinetoEvent*, uint32_t> node_of;  // CPU events' nodes, for the links
  // The innermost event of `thread` whose interval holds `ts`.
  auto innermost = [&](const detail::KinetoThread& thread, double ts) -> const KinetoEvent* {
    const KinetoEvent* best = nullptr;
    auto it = threads.find(thread);
    if (it == threads.end()) return nullptr;
    for (const KinetoEvent* e : it->second) {
      if (e->ts_us > ts) break;
      if (ts <= e->ts_us + e->dur_us && (!best || e->dur_us <= best->dur_us)) best = e;
    }
    return best;
  };
  // The forward node a top-level event of a backward thread goes under, or none.
  auto forward_parent = [&](const detail::KinetoThread& thread, const KinetoEvent& e) -> std::optional<uint32_t> {
    auto fin = link_finish.find(thread);
    if (fin == link_finish.end()) return std::nullopt;
    constexpr double kSlackUs = 0.01;
    for (const auto& [ts, id] : fin->second) {
      if (ts < e.ts_us - kSlackUs || ts > e.ts_us + e.dur_us + kSlackUs) continue;
      auto start = link_start.find(id);
      if (start == link_start.end()) continue;
      const KinetoEvent* forward = innermost(start->second.first, start->second.second);
      auto node = forward ? node_of.find(forward) : node_of.end();
      if (node != node_of.end()) return node->second;
    }
    return std::nullopt;
  };
  std::vector<const detail::KinetoThread*> order;
  for (const auto& [thread, list] : threads)
    if (!link_finish.count(thread)) order.push_back(&thread);
  for (const auto& [thread, list] : threads)
    if (link_finish.count(thread)) order.push_back(&thread);

  std::unordered_map<int64_t, uint32_t> launch_node;  // correlation id -> the API call's node
  for (const detail::KinetoThread* thread_key : order) {
    const detail::KinetoThread& thread = *thread_key;
    const auto& list = threads[thread];
    const uint32_t thread_node =
        w.Child(0, w.Frame(fmt::FrameKind::kThread, fmt::kNone, 0, "thread " + thread.tid, "", 0));
    struct Open {
      const KinetoEvent* event;
      uint32_t node;
      double children_us;
    };
    std::vector<Open> stack;
    auto close = [&]() {
      const Open& top = stack.back();
      w.AddStats(top.node, wall, One(std::max(0.0, top.event->dur_us - top.children_us) * kNsPerUs));
      stack.pop_back();
    };
    for (const KinetoEvent* e : list) {
      // Kineto rounds ts and dur to whole or tenths of µs: a child may end a hair past its parent.
      constexpr double kSlackUs = 0.01;
      while (!stack.empty() && e->ts_us + e->dur_us > stack.back().event->ts_us + stack.back().event->dur_us + kSlackUs)
        close();
      uint32_t parent = thread_node;
      if (!stack.empty()) parent = stack.back().node;
      else if (const auto forward = forward_parent(thread, *e)) parent = *forward;
      if (!stack.empty()) stack.back().children_us += e->dur_us;
      const uint32_t node = w.Child(parent, frame_of(*e));
      node_of[e] = node;
      if (e->kind == KinetoEventKind::kRuntime) {
        w.AddStats(node, api, One(e->dur_us * kNsPerUs));
        if (e->correlation) launch_node[*e->correlation] = node;
      }
      stack.push_back({e, node, 0});
    }
    while (!stack.empty()) close();
  }

  // GPU work under its launch; without one (its launch fell outside the trace's window) under a
  // thread frame that says so, so that the totals still hold every kernel.
  uint32_t unlaunched = 0;
  for (const KinetoEvent& e : events) {
    if (e.kind != KinetoEventKind::kGpu) continue;
    uint32_t parent;
    auto it = e.correlation ? launch_node.find(*e.correlation) : launch_node.end();
    if (it != launch_node.end()) {
      parent = it->second;
    } else {
      if (unlaunched == 0)
        unlaunched = w.Child(0, w.Frame(fmt::FrameKind::kThread, fmt::kNone, 0, "GPU work without its launch in the trace", "", 0));
      parent = unlaunched;
    }
    w.AddStats(w.Child(parent, frame_of(e)), gpu, One(e.dur_us * kNsPerUs));
  }
  return w.Serialize();
}

void ImportKinetoTrace(const std::string& trace_path, const std::string& profile_path) {
  std::ifstream in(trace_path, std::ios::binary);
  if (!in) throw Error("cannot read " + trace_path);
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<unsigned char> bytes = KinetoTraceToProfile(text.str(), trace_path);
  std::string error;
  if (!strata::format::WriteFileAtomically(profile_path, bytes, &error)) throw Error(error);
}

}  // namespace strata::core
