#include "chrome_export.h"

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace strata::core::detail {

using nlohmann::json;

namespace {

// Trace Event times are microseconds; a double keeps whole ns of a unix time (< 2^53 ns).
double Us(uint64_t ns) { return double(ns) / 1000.0; }

json FrameJson(const FrameInfo& f) {
  json j = {{"function", f.name.empty() ? "[" + f.kind + "]" : f.name}, {"kind", f.kind}};
  if (!f.file.empty()) j["file"] = f.file;
  if (f.line) j["line"] = f.line;
  return j;
}

}  // namespace

std::string ExportChrome(const Profile& profile, const GpuTimeline& timeline) {
  if (timeline.records.empty())
    throw Error(std::string("chrome: this profile has no GPU activity timeline") +
                (timeline.present ? " (it is empty: STRATA_GPU_TIMELINE=0 or no kernel ran)"
                                  : " (recorded before Strata kept one: record it again)") +
                "; in-kernel region launches: strata regions PROFILE --launch N --format chrome");
  ViewOptions options;
  options.expand = false;
  options.filter = FrameFilter::kAll;
  options.all_metrics = false;  // then View::landing maps the timeline's stored nodes to view nodes
  const View view = profile.BuildView(ViewKind::kTopDown, options);

  json events = json::array();
  std::set<uint32_t> devices;
  std::set<std::pair<uint32_t, uint32_t>> streams;  // (device, stream): Chrome's (pid, tid)
  std::unordered_map<uint32_t, json> path_of;
  for (const GpuTimelineRecord& r : timeline.records) {
    if (devices.insert(r.device).second)
      events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", r.device}, {"tid", 0},
                        {"args", {{"name", "GPU " + std::to_string(r.device)}}}});
    if (streams.insert({r.device, r.stream}).second)
      events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", r.device}, {"tid", r.stream},
                        {"args", {{"name", "stream " + std::to_string(r.stream)}}}});
    auto it = path_of.find(r.node);
    if (it == path_of.end()) {
      json path = json::array();
      for (size_t n : LaunchPath(view, r.node)) path.push_back(FrameJson(view.frame(n)));
      it = path_of.emplace(r.node, std::move(path)).first;
    }
    json args = {{"kind", ActivityKindName(r.kind)}, {"correlation_id", r.correlation_id}, {"context", r.context}};
    if (r.kind == strata::format::GpuActivityKind::kKernel) {
      args["grid"] = {r.grid[0], r.grid[1], r.grid[2]};
      args["block"] = {r.block[0], r.block[1], r.block[2]};
      if (!r.mangled.empty()) args["mangled"] = r.mangled;
    } else {
      args["bytes"] = r.bytes;
    }
    args["call_path"] = it->second;
    events.push_back({{"ph", "X"}, {"name", SliceName(view, r)}, {"cat", ActivityKindName(r.kind)},
                      {"pid", r.device}, {"tid", r.stream}, {"ts", Us(r.start_ns)},
                      {"dur", Us(r.end_ns - r.start_ns)}, {"args", std::move(args)}});
  }
  json out = {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
  if (timeline.dropped)
    out["otherData"] = {{"gpu_timeline_dropped", timeline.dropped}, {"gpu_timeline_limit", timeline.limit}};
  return out.dump();
}

}  // namespace strata::core::detail
