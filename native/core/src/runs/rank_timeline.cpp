#include "strata/core/rank_timeline.h"

#include <llvm/Demangle/Demangle.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "../export/gpu_timeline.h"
#include "../views/frame_origin.h"
#include "member_profile.h"
#include "strata/core/collectives.h"
#include "strata/core/rank_run.h"
#include "strata/format/reader.h"

namespace strata::core {
namespace {

namespace fmt = strata::format;

// A slice before the origin is known: unix ns.
struct Pending {
  int64_t start = 0, end = 0;
  RankSliceKind kind = RankSliceKind::kStep;
  uint32_t name = 0;
  int64_t node = -1;
  int32_t source = -1;
  uint64_t bytes = 0;
};

// A rank's lanes by (kind, device, stream): the map's order is the contract's lane order.
using LaneKey = std::tuple<uint8_t, uint32_t, uint32_t>;
using RankLanes = std::map<LaneKey, std::vector<Pending>>;

class Builder {
 public:
  explicit Builder(RankTimeline* out) : out_(out) {}

  uint32_t Name(const std::string& s) {
    auto it = names_.find(s);
    if (it != names_.end()) return it->second;
    out_->names.push_back(s);
    return names_.emplace(s, uint32_t(out_->names.size() - 1)).first->second;
  }

  int32_t Source(const std::string& file, uint32_t line) {
    if (file.empty()) return -1;
    auto key = std::make_pair(file, line);
    auto it = sources_.find(key);
    if (it != sources_.end()) return it->second;
    out_->sources.push_back({file, line});
    return sources_.emplace(key, int32_t(out_->sources.size() - 1)).first->second;
  }

 private:
  RankTimeline* out_;
  std::unordered_map<std::string, uint32_t> names_;
  std::map<std::pair<std::string, uint32_t>, int32_t> sources_;
};

// Where a GPU activity was asked for, from its member's stored tree: the innermost user frame on
// its launch path (the views' classification), else the innermost Python frame, else the
// activity frame's own file and line. Cached per member node.
class LaunchSources {
 public:
  LaunchSources(const fmt::ProfileReader& r, Builder* b) : r_(r), b_(b), cache_(r.nodes().size, kUnknown) {}

  int32_t Of(uint32_t node) {
    if (node >= cache_.size()) return -1;
    if (cache_[node] != kUnknown) return cache_[node];
    const auto nodes = r_.nodes();
    const auto frames = r_.frames();
    uint32_t python = fmt::kNone;
    int32_t found = -1;
    for (uint32_t n = node; n != 0 && n < nodes.size; n = nodes[n].parent) {
      const fmt::FrameRecord& f = frames[nodes[n].frame];
      if (f.line == 0 || r_.string(f.file).empty()) continue;
      const std::string file(r_.string(f.file));
      const std::string module = f.module == fmt::kNone ? "" : std::string(r_.string(r_.modules()[f.module].path));
      if (detail::ClassifyFrame(f.kind, module, file, f.flags & fmt::kFrameFlagTruncation) == FrameOrigin::kUser) {
        found = b_->Source(file, f.line);
        break;
      }
      if (python == fmt::kNone && f.kind == uint32_t(fmt::FrameKind::kPython)) python = n;
    }
    if (found < 0) {
      const uint32_t at = python != fmt::kNone ? python : node;
      const fmt::FrameRecord& f = frames[nodes[at].frame];
      found = b_->Source(std::string(r_.string(f.file)), f.line);
    }
    return cache_[node] = found;
  }

 private:
  static constexpr int32_t kUnknown = -2;
  const fmt::ProfileReader& r_;
  Builder* b_;
  std::vector<int32_t> cache_;
};

RankSliceKind SliceKindOf(fmt::GpuActivityKind k) {
  switch (k) {
    case fmt::GpuActivityKind::kMemcpy: return RankSliceKind::kMemcpy;
    case fmt::GpuActivityKind::kMemset: return RankSliceKind::kMemset;
    default: return RankSliceKind::kKernel;
  }
}

// A kernel's name as the views show it: its kernel frame's, else the launched name demangled.
std::string KernelName(const fmt::ProfileReader& r, const detail::GpuTimelineRecord& a) {
  if (a.kind == fmt::GpuActivityKind::kMemcpy) return detail::CopyKindName(a.copy_kind);
  if (a.kind == fmt::GpuActivityKind::kMemset) return "memset";
  if (a.node != 0 && a.node < r.nodes().size) {
    const fmt::FrameRecord& f = r.frames()[r.nodes()[a.node].frame];
    if (f.kind == uint32_t(fmt::FrameKind::kKernel) && !r.string(f.name).empty()) return std::string(r.string(f.name));
  }
  return a.mangled.empty() ? "<kernel>" : llvm::demangle(a.mangled);
}

// One rank's collectives and GPU activities, its profiles read one at a time.
void AddRankSections(const RankRun& run, size_t k, Builder* b, RankLanes* lanes, RankTimeline* out, bool* no_clock) {
  const RankInfo& info = run.ranks()[k];
  for (size_t j = 0; j < info.profiles.size(); ++j) {
    std::vector<unsigned char> bytes;
    const fmt::ProfileReader r = detail::ParseMemberProfile(info.profiles[j], &bytes);
    if (j == 0) {
      // The rank's own process issues its collectives (a worker issues none); host calls only:
      // a device site's calls are its kernels, on the GPU lanes.
      const Collectives cs = ReadCollectives(bytes.data(), bytes.size());
      if (cs.present && !cs.has_wall_clock && !cs.calls.empty()) *no_clock = true;
      if (cs.present && cs.has_wall_clock) {
        std::vector<uint32_t> name_of(cs.sites.size());
        std::vector<int32_t> source_of(cs.sites.size());
        std::vector<int64_t> node_of(cs.sites.size());
        for (size_t s = 0; s < cs.sites.size(); ++s) {
          const CollectiveSite& site = cs.sites[s];
          name_of[s] = b->Name(site.name.empty() ? CollectiveOpName(site.op) : site.name);
          source_of[s] = site.user_line ? b->Source(site.user_file, site.user_line)
                                        : b->Source(site.python_file, site.python_line);
          node_of[s] = run.MergedNode(k, j, site.node);
        }
        auto& lane = (*lanes)[{uint8_t(RankLaneKind::kCollectives), 0, 0}];
        for (const CollectiveCall& c : cs.calls) {
          if (c.site >= cs.sites.size() || cs.sites[c.site].on_device) continue;
          Pending p;
          p.start = int64_t(c.start_ns) + cs.unix_minus_monotonic_ns;
          // Not completed when the profile was written: it lasted to the rank's end.
          p.end = c.end_ns ? int64_t(c.end_ns) + cs.unix_minus_monotonic_ns : std::max(p.start, info.end_unix_ns);
          p.kind = RankSliceKind::kCollective;
          p.name = name_of[c.site];
          p.node = node_of[c.site];
          p.source = source_of[c.site];
          p.bytes = cs.sites[c.site].bytes;
          lane.push_back(p);
        }
      }
    }
    const detail::GpuTimeline gpu = detail::ReadGpuTimeline(bytes.data(), bytes.size());
    out->gpu_dropped += gpu.dropped;
    if (gpu.records.empty()) continue;
    if (!gpu.host_clock) {
      // The tracer's clock alone cannot be placed beside the other ranks.
      *no_clock = true;
      continue;
    }
    LaunchSources sources(r, b);
    std::unordered_map<std::string, uint32_t> name_cache;
    for (const detail::GpuTimelineRecord& a : gpu.records) {
      Pending p;
      p.start = int64_t(a.start_ns);
      p.end = int64_t(a.end_ns);
      p.kind = SliceKindOf(a.kind);
      p.name = b->Name(KernelName(r, a));
      p.node = run.MergedNode(k, j, a.node);
      p.source = sources.Of(a.node);
      p.bytes = a.bytes;
      (*lanes)[{uint8_t(RankLaneKind::kGpuStream), a.device, a.stream}].push_back(p);
    }
  }
}

}  // namespace

RankTimeline BuildRankTimeline(const RankRun& run, const RankTimelineOptions& options) {
  RankTimeline out;
  Builder b(&out);
  const auto& ranks = run.ranks();
  std::vector<RankLanes> lanes(ranks.size());

  // Steps: every rank's span of each step, from the run's own step table.
  const RankSteps steps = run.Steps();
  for (size_t s = 0; s < steps.steps.size(); ++s) {
    const RankStep& st = steps.steps[s];
    const uint32_t name = b.Name("step " + std::to_string(s + 1));
    const int32_t source = b.Source(steps.file, steps.line);
    for (size_t k = 0; k < ranks.size() && k < st.start_unix_ns.size(); ++k) {
      Pending p;
      p.start = st.start_unix_ns[k];
      p.end = std::max(p.start, st.end_unix_ns[k]);
      p.kind = RankSliceKind::kStep;
      p.name = name;
      p.source = source;
      lanes[k][{uint8_t(RankLaneKind::kSteps), 0, 0}].push_back(p);
    }
  }
  for (size_t k = 0; k < ranks.size(); ++k) {
    bool no_clock = false;
    AddRankSections(run, k, &b, &lanes[k], &out, &no_clock);
    if (no_clock) out.ranks_without_clock.push_back(ranks[k].rank);
  }

  // Time 0: the earliest rank's start (else the earliest slice); the span reaches the latest
  // rank's end or slice.
  int64_t lo = 0, hi = 0;
  for (const auto& info : ranks) {
    if (info.start_unix_ns > 0 && (lo == 0 || info.start_unix_ns < lo)) lo = info.start_unix_ns;
    hi = std::max(hi, info.end_unix_ns);
  }
  size_t total = 0;
  for (auto& rl : lanes)
    for (auto& [key, v] : rl) {
      std::stable_sort(v.begin(), v.end(), [](const Pending& x, const Pending& y) { return x.start < y.start; });
      total += v.size();
      for (const Pending& p : v) {
        if (lo == 0 || p.start < lo) lo = p.start;
        hi = std::max(hi, p.end);
      }
    }
  out.origin_unix_ns = lo;
  out.span_ns = std::max<int64_t>(0, hi - lo);

  // max_slices: each lane keeps its earliest slices, its share of the limit proportional to its
  // size (largest remainders take the slices left over).
  std::vector<std::vector<Pending>*> all;
  for (size_t k = 0; k < ranks.size(); ++k)
    for (auto& [key, v] : lanes[k]) {
      if (v.empty()) continue;
      RankLane lane;
      lane.rank = ranks[k].rank;
      lane.kind = RankLaneKind(std::get<0>(key));
      lane.device = std::get<1>(key);
      lane.stream = std::get<2>(key);
      out.lanes.push_back(lane);
      all.push_back(&v);
    }
  std::vector<size_t> keep(all.size());
  for (size_t i = 0; i < all.size(); ++i) keep[i] = all[i]->size();
  if (total > options.max_slices) {
    std::vector<std::pair<double, size_t>> remainder;
    size_t kept = 0;
    for (size_t i = 0; i < all.size(); ++i) {
      const double share = double(all[i]->size()) * double(options.max_slices) / double(total);
      keep[i] = std::min(all[i]->size(), size_t(share));
      kept += keep[i];
      remainder.push_back({share - double(keep[i]), i});
    }
    std::stable_sort(remainder.begin(), remainder.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    for (const auto& [frac, i] : remainder) {
      if (kept >= options.max_slices) break;
      if (keep[i] < all[i]->size()) ++keep[i], ++kept;
    }
    out.truncated = total - kept;
  }
  size_t n = 0;
  for (size_t i = 0; i < all.size(); ++i) n += keep[i];
  out.slices.reserve(n);
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t e = 0; e < keep[i]; ++e) {
      const Pending& p = (*all[i])[e];
      RankSlice s;
      s.lane = uint32_t(i);
      s.start_ns = p.start - lo;
      s.end_ns = p.end - lo;
      s.kind = p.kind;
      s.name = p.name;
      s.node = p.node;
      s.source = p.source;
      s.bytes = p.bytes;
      out.slices.push_back(s);
    }
  return out;
}

std::string RankTimelineRankName(const RankInfo& rank) {
  return "rank " + std::to_string(rank.rank) + (rank.host.empty() ? "" : " (" + rank.host + ")");
}

std::string RankTimelineLaneName(const RankLane& lane) {
  switch (lane.kind) {
    case RankLaneKind::kSteps: return "steps";
    case RankLaneKind::kCollectives: return "collectives";
    case RankLaneKind::kGpuStream:
      return "GPU " + std::to_string(lane.device) + " stream " + std::to_string(lane.stream);
  }
  return "?";
}

const char* RankTimelineSliceKindName(RankSliceKind kind) {
  switch (kind) {
    case RankSliceKind::kStep: return "step";
    case RankSliceKind::kCollective: return "collective";
    case RankSliceKind::kKernel: return "kernel";
    case RankSliceKind::kMemcpy: return "memcpy";
    case RankSliceKind::kMemset: return "memset";
  }
  return "?";
}

}  // namespace strata::core
