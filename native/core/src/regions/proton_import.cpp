// Import of Proton's in-kernel traces (docs/regions.md, "Proton import"): Proton's chrome trace
// becomes a regions::Trace, its hatchet a table.
#include "strata/core/proton_import.h"

#include "../export/gzip.h"
#include "strata/core/api.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <tuple>

namespace strata::core::regions {
namespace {

// Traces of many CTAs and warps are large JSON that compresses ~40x: gzip is read as well.
// True when `bytes` are gzip: *inflated then holds the text, or *why says what is wrong.
bool Inflate(const std::string& bytes, std::string* inflated, std::string* why) {
  if (bytes.size() < 2 || uint8_t(bytes[0]) != 0x1f || uint8_t(bytes[1]) != 0x8b) return false;
  try {
    *inflated = detail::Gunzip(bytes);
  } catch (const Error& e) {
    *why = e.what();
  }
  return true;
}

using json = nlohmann::json;

struct Event {
  uint32_t lane = 0;
  uint16_t region = 0;
  double ts = 0, dur = 0;  // Proton's axis, in its "ns" (µs × 1000)
};

struct LaneKey {
  std::string pid;
  uint32_t warp = 0;
  bool operator<(const LaneKey& o) const { return std::tie(pid, warp) < std::tie(o.pid, o.warp); }
};

void AddIssue(Trace& t, IssueKind kind, uint64_t count, std::string message) {
  t.issues.push_back(Issue{kind, -1, -1, count, std::move(message)});
}

// Nesting per lane by time (Proton has no record order): an interval encloses another when it
// starts no later and ends no earlier; ties go to the longer one first.
void NestAndNumber(Trace& t) {
  std::vector<size_t> order(t.intervals.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Interval &x = t.intervals[a], &y = t.intervals[b];
    if (x.lane != y.lane) return x.lane < y.lane;
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    return x.end_ns > y.end_ns;
  });
  std::vector<Interval> sorted;
  sorted.reserve(order.size());
  for (size_t i : order) sorted.push_back(t.intervals[i]);
  t.intervals.swap(sorted);

  // Scopes inside a loop repeat: their k-th instance on a lane is iteration k (as a loop region's
  // ITER_START would number it), so the view shades iterations and the tooltip says "#k".
  std::map<std::pair<uint32_t, uint16_t>, int64_t> seen;
  for (const Interval& iv : t.intervals) ++seen[{iv.lane, iv.region}];
  std::map<std::pair<uint32_t, uint16_t>, int64_t> next;
  std::vector<int32_t> stack;
  uint32_t lane = UINT32_MAX;
  for (size_t i = 0; i < t.intervals.size(); ++i) {
    Interval& iv = t.intervals[i];
    if (iv.lane != lane) { stack.clear(); lane = iv.lane; }
    while (!stack.empty() && t.intervals[stack.back()].end_ns <= iv.start_ns) stack.pop_back();
    iv.depth = uint32_t(stack.size());
    iv.parent = stack.empty() ? -1 : stack.back();
    stack.push_back(int32_t(i));
    if (seen[{iv.lane, iv.region}] > 1) iv.iteration = next[{iv.lane, iv.region}]++;
  }
  // Record positions as the warp wrote them: each scope's enter, then what it encloses, then its
  // exit (an exit at the instant a later scope enters comes first).
  lane = UINT32_MAX;
  uint32_t position = 0;
  stack.clear();
  auto close_until = [&](double ns) {
    while (!stack.empty() && t.intervals[stack.back()].end_ns <= ns) {
      t.intervals[stack.back()].end_index = position++;
      stack.pop_back();
    }
  };
  for (size_t i = 0; i < t.intervals.size(); ++i) {
    Interval& iv = t.intervals[i];
    if (iv.lane != lane) {
      close_until(HUGE_VAL);
      lane = iv.lane;
      position = 0;
    }
    close_until(iv.start_ns);
    iv.start_index = position++;
    stack.push_back(int32_t(i));
  }
  close_until(HUGE_VAL);
}

// Proton's default buffer is circular: a lane that ran out keeps its newest records, and the
// trace does not say so (Proton says it on stderr only). Two signs in the trace:
// - a scope that most lanes of its role have exactly once (the kernel-level scope) and some lack.
//   A role is the lanes whose scopes meet this one's: in a warp-specialized kernel the producer
//   warps never run the consumer's scopes, and lacking them is not a loss.
// - lanes filled to within one record per scope of a power of two (the buffer holds 2^k records;
//   an interval whose start was overwritten is dropped with it) whose repeating scopes do not
//   all repeat equally often: the first iteration lost some of its scopes. When every lane lost
//   the same records, this is the only sign.
using LaneCounts = std::vector<std::map<uint16_t, uint32_t>>;  // per lane: region -> instances

void ReportMissingOnceScopes(Trace& t, const LaneCounts& lane_counts, const RegionNames& names) {
  std::map<uint16_t, std::set<uint16_t>> meets;  // region -> regions sharing a lane with it
  for (const auto& counts : lane_counts)
    for (const auto& a : counts)
      for (const auto& b : counts) meets[a.first].insert(b.first);

  for (const auto& [region, partners] : meets) {
    size_t role = 0, once = 0, missing = 0;
    for (const auto& counts : lane_counts) {
      const bool in_role = std::any_of(counts.begin(), counts.end(), [&](const auto& rc) { return partners.count(rc.first) > 0; });
      if (!in_role) continue;
      ++role;
      auto it = counts.find(region);
      const uint32_t c = it == counts.end() ? 0 : it->second;
      once += c == 1, missing += c == 0;
    }
    if (missing == 0 || once * 2 < role) continue;
    t.issues.push_back(Issue{IssueKind::kOverflow, -1, int32_t(region), missing,
                             std::to_string(missing) + " of " + std::to_string(role) + " lanes lack the scope \"" +
                                 NameOf(names, region).name +
                                 "\" that the others have once: Proton's circular buffer dropped their earliest records "
                                 "(give proton.mode a larger buffer_size)"});
  }
}

void ReportFullLanes(Trace& t, const LaneCounts& lane_counts, const RegionNames& names) {
  uint64_t max_records = 0;
  for (const auto& counts : lane_counts) {
    uint64_t r = 0;
    for (const auto& [region, c] : counts) r += 2ull * c;
    max_records = std::max(max_records, r);
  }
  uint64_t capacity = 64;  // smaller buffers are not Proton's
  while (capacity < max_records) capacity *= 2;
  size_t short_lanes = 0;
  std::string example;
  for (const auto& counts : lane_counts) {
    uint64_t records = 0;
    uint32_t lo = UINT32_MAX, hi = 0;
    uint16_t lo_region = 0, hi_region = 0;
    for (const auto& [region, c] : counts) {
      records += 2ull * c;
      if (c < 2) continue;
      if (c < lo) lo = c, lo_region = region;
      if (c > hi) hi = c, hi_region = region;
    }
    if (hi == 0 || lo == hi || records + 2 * counts.size() < capacity) continue;
    if (short_lanes++ == 0)
      example = NameOf(names, lo_region).name + " " + std::to_string(lo) + " times, " +
                NameOf(names, hi_region).name + " " + std::to_string(hi);
  }
  if (short_lanes)
    t.issues.push_back(Issue{IssueKind::kOverflow, -1, -1, short_lanes,
                             std::to_string(short_lanes) + " of " + std::to_string(lane_counts.size()) + " lanes are full (near " +
                                 std::to_string(capacity) + " records) and their loop scopes repeat unequally (" + example +
                                 "): Proton's circular buffer likely dropped their earliest records (give proton.mode a "
                                 "larger buffer_size)"});
}

void ReportLostRecords(Trace& t, const RegionNames& names) {
  LaneCounts lane_counts(t.lanes.size());
  for (const Interval& iv : t.intervals) ++lane_counts[iv.lane][iv.region];
  ReportMissingOnceScopes(t, lane_counts, names);
  ReportFullLanes(t, lane_counts, names);
}

}  // namespace

bool LooksLikeProtonTrace(const std::string& text) {
  const std::string head = text.substr(0, 4096);
  return head.find("\"traceEvents\"") != std::string::npos && std::regex_search(head, std::regex(R"( Core\d+ CTA\d+)"));
}

ProtonTrace ImportProtonTrace(const std::string& bytes, const ProtonImportOptions& options) {
  ProtonTrace out;
  Trace& t = out.trace;
  t.bytes = bytes.size();
  std::string inflated, why;
  const std::string& text = Inflate(bytes, &inflated, &why) ? inflated : bytes;
  if (!why.empty()) {
    AddIssue(t, IssueKind::kBadHeader, 1, why);
    return out;
  }
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
    AddIssue(t, IssueKind::kBadHeader, 1,
             doc.is_discarded() ? "not JSON: not a Proton chrome trace" : "no traceEvents array: not a Proton chrome trace");
    return out;
  }
  // "<kernel> Core<SM> CTA<block>" and "warp <w> (line <l>)" (Proton's TraceWriter).
  static const std::regex kPid(R"(^(.*) Core(\d+) CTA(\d+)$)");
  static const std::regex kTid(R"(^warp (\d+))");
  std::map<LaneKey, uint32_t> lane_of;
  std::map<std::string, uint16_t> region_of;
  std::map<std::string, uint32_t> kernel_of;
  std::map<uint32_t, std::string> lane_pid;
  std::vector<Event> events;
  uint64_t malformed = 0, foreign = 0;
  for (const json& e : doc["traceEvents"]) {
    if (!e.is_object() || e.value("ph", "") != "X") continue;  // metadata and other phases
    if (!e.contains("ts") || !e["ts"].is_number() || !e.contains("dur") || !e["dur"].is_number() ||
        !e.contains("name") || !e["name"].is_string()) {
      ++malformed;
      continue;
    }
    const std::string pid = e.contains("pid") ? (e["pid"].is_string() ? e["pid"].get<std::string>() : e["pid"].dump()) : "";
    const std::string tid = e.contains("tid") ? (e["tid"].is_string() ? e["tid"].get<std::string>() : e["tid"].dump()) : "";
    std::smatch pm, tm;
    if (!std::regex_match(pid, pm, kPid)) {
      ++foreign;  // not an in-kernel event (e.g. a host trace): skipped, counted
      continue;
    }
    uint32_t warp = std::regex_search(tid, tm, kTid) ? uint32_t(std::stoul(tm[1].str())) : 0;
    if (out.proton_mhz == 0 && e.contains("args") && e["args"].is_object())
      out.proton_mhz = e["args"].value("Frequency (MHz)", 0.0);
    LaneKey key{pid, warp};
    auto [lit, new_lane] = lane_of.emplace(key, uint32_t(t.lanes.size()));
    if (new_lane) {
      Lane lane;
      const std::string kernel = pm[1].str();
      auto [kit, new_kernel] = kernel_of.emplace(kernel, uint32_t(out.kernels.size()));
      if (new_kernel) out.kernels.push_back(kernel);
      out.lane_kernel.push_back(kit->second);
      lane.meta.smid = uint32_t(std::stoul(pm[2].str()));
      lane.meta.block_linear = lane.meta.block[0] = uint32_t(std::stoul(pm[3].str()));
      lane.meta.group = warp;
      lane.meta.leader_thread = warp * 32;
      lane.meta.grouping = 1;  // Proton's default granularity is the warp
      lane_pid[lit->second] = pid;
      t.lanes.push_back(lane);
    }
    const std::string name = e["name"].get<std::string>();
    auto [rit, new_region] = region_of.emplace(name, uint16_t(region_of.size() + 1));
    if (new_region) out.names[rit->second] = RegionName{name, "", 0};  // a scope name: no marker line
    events.push_back(Event{lit->second, rit->second, e["ts"].get<double>() * 1000.0, e["dur"].get<double>() * 1000.0});
  }
  if (out.proton_mhz <= 0) out.proton_mhz = 1000;
  if (events.empty()) {
    AddIssue(t, IssueKind::kEmpty, 1,
             foreign ? "no in-kernel scope events (processes are not \"<kernel> Core<n> CTA<n>\"): not a Proton "
                       "instrumentation trace"
                     : "no scope events in the trace");
    return out;
  }
  // A block's base: its earliest event, which Proton puts at the block's globaltimer start
  // (relative to the first block); offsets from there are cycles at Proton's assumed frequency.
  const double proton_cycles_per_unit = out.proton_mhz / 1000.0;
  std::map<std::string, double> block_base;
  for (const Event& ev : events) {
    const std::string& pid = lane_pid[ev.lane];
    auto it = block_base.find(pid);
    if (it == block_base.end() || ev.ts < it->second) block_base[pid] = ev.ts;
  }
  const double rate = options.cycles_per_ns;
  t.cycles_per_ns = rate;
  for (Lane& l : t.lanes) l.cycles_per_ns = rate > 0 ? rate : proton_cycles_per_unit;
  std::vector<bool> lane_seen(t.lanes.size(), false);
  for (const Event& ev : events) {
    const double base = block_base[lane_pid[ev.lane]];
    const double start_cycles = (ev.ts - base) * proton_cycles_per_unit;
    const double dur_cycles = ev.dur * proton_cycles_per_unit;
    const double per_ns = rate > 0 ? rate : proton_cycles_per_unit;
    Interval iv;
    iv.lane = ev.lane;
    iv.region = ev.region;
    iv.start_cycles = int64_t(std::llround(start_cycles));
    iv.end_cycles = int64_t(std::llround(start_cycles + dur_cycles));
    iv.start_ns = iv.raw_start_ns = base + start_cycles / per_ns;
    iv.end_ns = iv.raw_end_ns = iv.start_ns + dur_cycles / per_ns;
    Lane& l = t.lanes[ev.lane];
    l.start_ns = lane_seen[ev.lane] ? std::min(l.start_ns, iv.start_ns) : iv.start_ns;
    l.end_ns = lane_seen[ev.lane] ? std::max(l.end_ns, iv.end_ns) : iv.end_ns;
    lane_seen[ev.lane] = true;
    l.meta.record_count += 2;
    l.meta.records_here += 2;
    t.intervals.push_back(iv);
  }
  NestAndNumber(t);
  ReportLostRecords(t, out.names);
  t.header.lanes_written = uint32_t(t.lanes.size());
  if (malformed) AddIssue(t, IssueKind::kTruncated, malformed, std::to_string(malformed) + " events without ts, dur or name skipped");
  if (foreign)
    AddIssue(t, IssueKind::kTruncated, foreign,
             std::to_string(foreign) + " events outside \"<kernel> Core<n> CTA<n>\" processes skipped");
  if (rate <= 0)
    AddIssue(t, IssueKind::kNoClockRate, 1,
             "Proton's axis assumes " + std::to_string(int(out.proton_mhz)) +
                 " MHz: durations are clock cycles, not ns (give --cycles-per-ns, e.g. 1.98 on the H100)");
  out.ok = true;
  return out;
}

void ReplayProtonTrace(ProtonTrace& p, double record_cost_cycles, const StartCosts& start_costs) {
  Trace& t = p.trace;
  // Per lane, the record positions of scope enters that cost more, and what they cost.
  std::vector<std::vector<std::pair<uint32_t, double>>> starts(t.lanes.size());
  std::vector<uint32_t> records(t.lanes.size(), 0);
  for (const Interval& iv : t.intervals) {
    auto c = start_costs.find(iv.region);
    if (c != start_costs.end()) starts[iv.lane].push_back({iv.start_index, c->second});
    records[iv.lane] = std::max(records[iv.lane], std::max(iv.start_index, iv.end_index) + 1);
  }
  for (auto& s : starts) std::sort(s.begin(), s.end());
  auto removed = [&](uint32_t lane, uint32_t position) {  // cycles the records before `position` cost
    double c = record_cost_cycles * double(position);
    for (const auto& [at, cost] : starts[lane]) {
      if (at >= position) break;
      c += cost;
    }
    return c;
  };
  for (Interval& iv : t.intervals) {
    const double per_ns = t.lanes[iv.lane].cycles_per_ns;
    iv.start_ns = iv.raw_start_ns - removed(iv.lane, iv.start_index) / per_ns;
    iv.end_ns = iv.raw_end_ns - removed(iv.lane, iv.end_index) / per_ns;
  }
  for (uint32_t i = 0; i < t.lanes.size(); ++i) {
    Lane& l = t.lanes[i];
    const double earlier = l.removed_cycles;
    l.removed_cycles = removed(i, records[i]);
    l.end_ns -= (l.removed_cycles - earlier) / l.cycles_per_ns;
  }
  t.record_cost_cycles = record_cost_cycles;
  t.start_cost_cycles = start_costs;
}

ProtonTrace ImportProtonFile(const std::string& path, const ProtonImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ProtonTrace out;
    AddIssue(out.trace, IssueKind::kEmpty, 1, "cannot read the file");
    return out;
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return ImportProtonTrace(text, options);
}

std::string ProtonToJson(const ProtonTrace& proton) {
  json j = json::parse(ToJson(proton.trace, proton.names));
  j["source"] = "proton";
  j["kernels"] = proton.kernels;
  j["proton_frequency_mhz"] = proton.proton_mhz;
  if (j.contains("lanes") && j["lanes"].is_array())
    for (size_t i = 0; i < j["lanes"].size() && i < proton.lane_kernel.size(); ++i)
      j["lanes"][i]["kernel"] = proton.kernels[proton.lane_kernel[i]];
  return j.dump();
}

namespace {
void WalkHatchet(const json& node, const std::string& prefix, uint32_t depth, HatchetTable& out) {
  if (!node.is_object()) return;
  std::string name = "?";
  if (node.contains("frame") && node["frame"].is_object() && node["frame"].contains("name") &&
      node["frame"]["name"].is_string())
    name = node["frame"]["name"].get<std::string>();
  HatchetRow row;
  row.path = prefix.empty() ? name : prefix + "/" + name;
  row.depth = depth;
  if (node.contains("metrics") && node["metrics"].is_object())
    for (const auto& [k, v] : node["metrics"].items())
      if (v.is_number()) row.metrics[k] = v.get<double>();
  out.rows.push_back(row);
  if (node.contains("children") && node["children"].is_array())
    for (const json& c : node["children"]) WalkHatchet(c, row.path, depth + 1, out);
}
}  // namespace

HatchetTable ImportProtonHatchet(const std::string& bytes) {
  HatchetTable out;
  std::string inflated;
  const std::string& text = Inflate(bytes, &inflated, &out.error) ? inflated : bytes;
  if (!out.error.empty()) return out;
  json doc = json::parse(text, nullptr, false);
  // A list whose first element is the root node (frame/metrics/children); a trailing element may
  // hold Proton's metadata.
  if (doc.is_discarded() || !doc.is_array() || doc.empty() || !doc[0].is_object() || !doc[0].contains("frame")) {
    out.error = "not a Proton hatchet file (a JSON list of {frame, metrics, children})";
    return out;
  }
  for (const json& node : doc)
    if (node.is_object() && node.contains("frame")) WalkHatchet(node, "", 0, out);
  return out;
}

std::string HatchetToJson(const HatchetTable& table) {
  json rows = json::array();
  for (const HatchetRow& r : table.rows) rows.push_back({{"path", r.path}, {"depth", r.depth}, {"metrics", r.metrics}});
  return json{{"source", "proton-hatchet"}, {"rows", rows}}.dump();
}

}  // namespace strata::core::regions
