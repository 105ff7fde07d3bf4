// RankTimelineChromeJson (strata/core/rank_timeline.h): what `strata export RUN_DIR --format
// chrome` writes.
#include <nlohmann/json.hpp>

#include "strata/core/rank_run.h"
#include "strata/core/rank_timeline.h"

namespace strata::core {

std::string RankTimelineChromeJson(const RankRun& run, const RankTimeline& t) {
  using nlohmann::json;
  json events = json::array();
  for (const RankInfo& info : run.ranks()) {
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", info.rank}, {"tid", 0},
                      {"args", {{"name", RankTimelineRankName(info)}}}});
    events.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", info.rank}, {"tid", 0},
                      {"args", {{"sort_index", info.rank}}}});
  }
  // Thread ids: the lane's index + 1 (0 is the process's own), sorted in the lanes' order.
  for (size_t i = 0; i < t.lanes.size(); ++i) {
    const RankLane& lane = t.lanes[i];
    events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", lane.rank}, {"tid", i + 1},
                      {"args", {{"name", RankTimelineLaneName(lane)}}}});
    events.push_back({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", lane.rank}, {"tid", i + 1},
                      {"args", {{"sort_index", i}}}});
  }
  for (const RankSlice& s : t.slices) {
    const RankLane& lane = t.lanes[s.lane];
    json args = json::object();
    if (s.source >= 0) {
      const RankSliceSource& src = t.sources[size_t(s.source)];
      args["file"] = src.file;
      args["line"] = src.line;
    }
    if (s.node >= 0) args["node"] = s.node;
    if (s.bytes) args["bytes"] = s.bytes;
    events.push_back({{"ph", "X"}, {"name", t.names[s.name]}, {"cat", RankTimelineSliceKindName(s.kind)},
                      {"pid", lane.rank}, {"tid", s.lane + 1}, {"ts", double(s.start_ns) / 1000.0},
                      {"dur", double(s.end_ns - s.start_ns) / 1000.0}, {"args", std::move(args)}});
  }
  json other = {{"origin_unix_ns", t.origin_unix_ns}, {"span_ns", t.span_ns}};
  if (t.truncated) other["truncated"] = t.truncated;
  if (t.gpu_dropped) other["gpu_dropped"] = t.gpu_dropped;
  if (!t.ranks_without_clock.empty()) other["ranks_without_clock"] = t.ranks_without_clock;
  json out = {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}, {"otherData", std::move(other)}};
  return out.dump();
}

}  // namespace strata::core
