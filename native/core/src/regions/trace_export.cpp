// A decoded region trace as JSON (what the timeline and `strata regions --format json` read) and
// as a Chrome/Perfetto trace. In the core, not the decoder: the decoder has no JSON.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "names_json.h"
#include "strata/core/regions.h"

namespace strata::core::regions {

namespace {

std::string LaneName(const LaneMeta& m) {
  std::ostringstream o;
  o << "block " << m.block_linear << " (" << m.block[0] << "," << m.block[1] << "," << m.block[2] << ") lane "
    << m.group;
  return o.str();
}

// For the Chrome trace's args, which Perfetto only shows.
std::string Location(const RegionName& n) { return n.file + ":" + std::to_string(n.line); }

}  // namespace

std::string ToJson(const Trace& t, const RegionNames& names) {
  using nlohmann::json;
  json j;
  j["cycles_per_ns"] = t.cycles_per_ns;
  j["record_cost_cycles"] = t.record_cost_cycles;
  if (!t.start_cost_cycles.empty()) {
    json costs = json::array();
    for (const auto& [region, cycles] : t.start_cost_cycles) costs.push_back({{"region", region}, {"cycles", cycles}});
    j["start_cost_cycles"] = costs;
  }
  j["origin_globaltimer_ns"] = t.origin_ns;
  j["header"] = {{"capacity", t.header.capacity},         {"used", t.header.used},
                 {"lanes_written", t.header.lanes_written}, {"lanes_dropped", t.header.lanes_dropped},
                 {"records_dropped", t.header.records_dropped}, {"chunks_written", t.header.chunks_written},
                 {"chunks_dropped", t.header.chunks_dropped}};
  json lanes = json::array();
  for (const Lane& l : t.lanes) {
    const LaneMeta& m = l.meta;
    lanes.push_back({{"block", m.block_linear},
                     {"block_xyz", {m.block[0], m.block[1], m.block[2]}},
                     {"group", m.group},
                     {"grouping", m.grouping == 0 ? "warp-group" : m.grouping == 1 ? "warp" : "custom"},
                     {"smid", m.smid},
                     {"mode", m.mode == 0 ? "circular" : "flush"},
                     {"capacity", m.capacity},
                     {"records", m.record_count},
                     {"records_kept", l.records.size()},
                     {"overflow", m.overflow_count},
                     {"start_ns", l.start_ns},
                     {"end_ns", l.end_ns},
                     {"cycles_per_ns", l.cycles_per_ns},
                     {"measured_cycles_per_ns", l.measured_cycles_per_ns}});
  }
  j["lanes"] = lanes;
  j["regions"] = NamesJson(names);
  json ivs = json::array();
  for (const Interval& iv : t.intervals) {
    json o = {{"lane", iv.lane},       {"region", iv.region},     {"depth", iv.depth},
              {"parent", iv.parent},   {"start_ns", iv.start_ns}, {"end_ns", iv.end_ns},
              {"raw_start_ns", iv.raw_start_ns}, {"raw_end_ns", iv.raw_end_ns}};
    auto n = names.find(iv.region);
    if (n != names.end()) o["name"] = n->second.name;
    if (iv.iteration >= 0) o["iteration"] = iv.iteration;
    if (iv.wait_ns >= 0) o["wait_ns"] = iv.wait_ns;
    if (iv.unmatched) o["unmatched"] = true;
    if (iv.barrier_use >= 0) o["barrier_use"] = iv.barrier_use;
    ivs.push_back(std::move(o));
  }
  j["intervals"] = ivs;
  if (!t.arrives.empty()) {  // barrier markers (older buffers have none: the key is left out)
    json ar = json::array();
    for (const auto& a : t.arrives)
      ar.push_back({{"lane", a.lane}, {"barrier", a.barrier}, {"use", a.use}, {"ns", a.ns}, {"raw_ns", a.raw_ns}});
    j["arrives"] = ar;
  }
  json is = json::array();
  for (const Issue& i : t.issues) {
    json o = {{"kind", IssueName(i.kind)}, {"count", i.count}, {"message", i.message}};
    if (i.lane >= 0) o["lane"] = i.lane;
    if (i.region >= 0) o["region"] = i.region;
    is.push_back(std::move(o));
  }
  j["issues"] = is;
  json groups = json::array();
  for (const GroupShare& g : GroupShares(t)) {
    json rs = json::array();
    for (const RegionShare& r : g.regions) {
      rs.push_back({{"region", r.region}, {"name", NameOf(names, r.region).name},
                    {"share", r.share}, {"outermost", r.outermost}, {"container", r.container}, {"async", r.async}});
    }
    groups.push_back({{"group", g.group}, {"lanes", g.lanes}, {"regions", rs}});
  }
  if (!groups.empty()) j["groups"] = groups;
  return j.dump(1);
}

std::string ToChromeTrace(const Trace& t, const RegionNames& names) {
  using nlohmann::json;
  json ev = json::array();
  for (const Lane& l : t.lanes) {
    ev.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", l.meta.block_linear}, {"tid", l.meta.group},
                  {"args", {{"name", LaneName(l.meta) + " (SM " + std::to_string(l.meta.smid) + ")"}}}});
  }
  for (const Interval& iv : t.intervals) {
    const Lane& l = t.lanes[iv.lane];
    const RegionName nl = NameOf(names, iv.region);
    std::string name = nl.name;
    if (iv.iteration >= 0) name += " #" + std::to_string(iv.iteration);
    json args = {{"depth", iv.depth}, {"raw_ns", iv.raw_duration_ns()}};
    if (!nl.file.empty()) args["location"] = Location(nl);
    if (iv.wait_ns >= 0) args["wait_ns"] = iv.wait_ns;
    if (iv.unmatched) args["unmatched"] = true;
    ev.push_back({{"ph", "X"}, {"name", name}, {"pid", l.meta.block_linear}, {"tid", l.meta.group},
                  {"ts", iv.start_ns / 1000.0}, {"dur", std::max(0.0, iv.duration_ns()) / 1000.0}, {"args", args}});
  }
  return json{{"traceEvents", ev}, {"displayTimeUnit", "ns"}}.dump();
}

}  // namespace strata::core::regions
