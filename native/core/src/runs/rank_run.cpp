#include "strata/core/rank_run.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <tuple>
#include <string>
#include <unordered_map>

#include "member_profile.h"
#include "strata/core/collectives.h"
#include "collective_frames.h"
#include "rank_phases.h"
#include "strata/format/reader.h"
#include "strata/format/writer.h"

namespace strata::core {
namespace {

namespace fmt = strata::format;
namespace fs = std::filesystem;

// One rank's values per stored node of the merged tree: only the (node, metric) pairs its
// profiles hold values at (the sampled nodes), so a rank costs what its own profile's node
// metrics cost, not the merged tree's size.
struct RankColumn {
  std::vector<uint32_t> node;
  std::vector<uint16_t> metric;
  std::vector<float> sum;
};

// The share of collective-kernel time overlapped by the rank's other kernels (one interval union
// per side, on the GPU's own clock: both sides are the same device's records).
std::optional<double> GpuOverlap(const fmt::ProfileReader& r, double* comm_ns, double* overlapped_ns) {
  if (r.gpu_activities().size == 0) return std::nullopt;
  std::vector<std::pair<uint64_t, uint64_t>> comm, compute;
  for (size_t i = 0; i < r.gpu_activities().size; ++i) {
    const auto& a = r.gpu_activities()[i];
    if (a.kind != uint32_t(fmt::GpuActivityKind::kKernel) || a.end_ns <= a.start_ns) continue;
    (detail::IsCollectiveKernelName(r.string(a.name)) ? comm : compute).push_back({a.start_ns, a.end_ns});
  }
  auto merge = [](std::vector<std::pair<uint64_t, uint64_t>>& v) {
    std::sort(v.begin(), v.end());
    std::vector<std::pair<uint64_t, uint64_t>> out;
    for (const auto& x : v) {
      if (!out.empty() && x.first <= out.back().second) out.back().second = std::max(out.back().second, x.second);
      else out.push_back(x);
    }
    v.swap(out);
  };
  merge(comm);
  merge(compute);
  double total = 0, both = 0;
  size_t j = 0;
  for (const auto& c : comm) {
    total += double(c.second - c.first);
    while (j < compute.size() && compute[j].second <= c.first) ++j;
    for (size_t k = j; k < compute.size() && compute[k].first < c.second; ++k)
      both += double(std::min(c.second, compute[k].second) - std::max(c.first, compute[k].first));
  }
  *comm_ns += total;
  *overlapped_ns += both;
  return total > 0 ? std::optional<double>(both / total) : std::nullopt;
}

// The requested nodes of a view as chains: per view node the nearest requested node at or above
// it, per requested node the nearest requested ancestor (a value landing at u counts for that chain).
struct Chains {
  std::vector<int32_t> slot, nearest, up;
};

Chains ChainsOf(const View& view, const std::vector<size_t>& nodes) {
  if (view.landing.empty() && view.size() > 0)
    throw Error("per-rank values need a view built with all_metrics off (it keeps where each node's values land)");
  const size_t n = view.size();
  Chains ch;
  ch.slot.assign(n, -1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i] >= n) throw Error("view node " + std::to_string(nodes[i]) + " out of range");
    ch.slot[nodes[i]] = int32_t(i);
  }
  ch.nearest.assign(n, -1);
  ch.up.assign(nodes.size(), -1);
  for (size_t u = 0; u < n; ++u) {
    const int32_t from_parent = u == 0 ? -1 : ch.nearest[size_t(view.parent[u])];
    if (ch.slot[u] >= 0) {
      ch.up[size_t(ch.slot[u])] = from_parent;
      ch.nearest[u] = int32_t(u);
    } else {
      ch.nearest[u] = from_parent;
    }
  }
  return ch;
}

class RankRunImpl : public RankRun {
 public:
  const Profile& profile() const override { return *profile_; }
  std::shared_ptr<const Profile> shared_profile() const override { return profile_; }
  const std::vector<RankInfo>& ranks() const override { return ranks_; }
  const std::vector<int>& missing_ranks() const override { return missing_; }
  const std::vector<std::string>& left_out() const override { return left_out_; }

  RankSpread Spread(const View& view, size_t node, size_t metric) const override {
    return Spreads(view, {node}, metric, nullptr).at(0);
  }

  std::vector<RankSpread> Spreads(const View& view, const std::vector<size_t>& nodes, size_t metric,
                                  const std::vector<char>* only) const override {
    const Chains ch = ChainsOf(view, nodes);
    std::vector<std::vector<double>> values(nodes.size(), std::vector<double>(ranks_.size(), 0.0));
    ForEachLanding(view, metric, only, [&](size_t k, uint32_t u, double sum) {
      for (int32_t r = ch.nearest[u]; r >= 0; r = ch.up[size_t(ch.slot[size_t(r)])]) values[size_t(ch.slot[size_t(r)])][k] += sum;
    });
    std::vector<RankSpread> out;
    out.reserve(nodes.size());
    for (auto& v : values) out.push_back(SpreadOf(v, ranks_));
    return out;
  }

  std::vector<FrameSpread> FrameSpreads(const View& view, const std::vector<size_t>& nodes, size_t metric,
                                        const std::vector<char>* only) const override {
    const Chains ch = ChainsOf(view, nodes);
    // Rows: the distinct frames, in the order of their first node.
    std::vector<int32_t> row_of_frame;
    std::vector<uint32_t> row(nodes.size());
    std::vector<FrameSpread> out;
    for (size_t i = 0; i < nodes.size(); ++i) {
      const uint32_t f = view.frame_id.at(nodes[i]);
      if (f >= row_of_frame.size()) row_of_frame.resize(size_t(f) + 1, -1);
      if (row_of_frame[f] < 0) {
        row_of_frame[f] = int32_t(out.size());
        out.push_back({f, nodes[i], {}});
      }
      row[i] = uint32_t(row_of_frame[f]);
      FrameSpread& fs = out[row[i]];
      if (view.values.size() > nodes[i] && view.values[nodes[i]].inclusive > view.values[fs.node].inclusive) fs.node = nodes[i];
    }
    std::vector<std::vector<double>> values(out.size(), std::vector<double>(ranks_.size(), 0.0));
    // A value counts once per frame on its path: the frames already taken on this walk are stamped.
    std::vector<uint64_t> stamp(out.size(), 0);
    uint64_t walk = 0;
    ForEachLanding(view, metric, only, [&](size_t k, uint32_t u, double sum) {
      ++walk;
      for (int32_t r = ch.nearest[u]; r >= 0; r = ch.up[size_t(ch.slot[size_t(r)])]) {
        const uint32_t w = row[size_t(ch.slot[size_t(r)])];
        if (stamp[w] == walk) continue;
        stamp[w] = walk;
        values[w][k] += sum;
      }
    });
    for (size_t w = 0; w < out.size(); ++w) out[w].spread = SpreadOf(values[w], ranks_);
    return out;
  }

  // fn(rank column, view node, value) for every value of `metric` the ranks' columns hold that
  // lands in the view (only: the stored nodes that count, or all).
  template <class Fn>
  void ForEachLanding(const View& view, size_t metric, const std::vector<char>* only, Fn&& fn) const {
    const size_t n = view.size();
    for (size_t k = 0; k < columns_.size(); ++k) {
      const RankColumn& c = columns_[k];
      for (size_t e = 0; e < c.node.size(); ++e) {
        if (c.metric[e] != metric || c.node[e] >= view.landing.size()) continue;
        if (only && (c.node[e] >= only->size() || !(*only)[c.node[e]])) continue;
        const uint32_t u = view.landing[c.node[e]];
        if (u == UINT32_MAX || u >= n) continue;
        fn(k, u, c.sum[e]);
      }
    }
  }

  std::vector<double> RankTotals(size_t metric, const std::vector<char>& selected) const override {
    std::vector<double> out(columns_.size(), 0.0);
    for (size_t k = 0; k < columns_.size(); ++k) {
      const RankColumn& c = columns_[k];
      double s = 0;
      for (size_t e = 0; e < c.node.size(); ++e)
        if (c.metric[e] == metric && c.node[e] < selected.size() && selected[c.node[e]]) s += c.sum[e];
      out[k] = s;
    }
    return out;
  }

  RankSteps Steps() const override;

  std::vector<std::optional<double>> CollectiveCallNs() const override {
    std::vector<std::optional<double>> out(calls_.size());
    for (size_t k = 0; k < calls_.size(); ++k) {
      std::vector<std::pair<int64_t, int64_t>> spans;
      for (const Call& c : calls_[k])
        if (c.end > c.start) spans.emplace_back(c.start, c.end);
      if (spans.empty()) continue;
      std::sort(spans.begin(), spans.end());
      double sum = 0;
      int64_t lo = spans[0].first, hi = spans[0].second;
      for (const auto& [a, b] : spans) {
        if (a > hi) {
          sum += double(hi - lo);
          lo = a;
        }
        hi = std::max(hi, b);
      }
      out[k] = sum + double(hi - lo);
    }
    return out;
  }

  int64_t MergedNode(size_t rank_index, size_t profile, uint32_t node) const override {
    if (rank_index >= merged_of_.size() || profile >= merged_of_[rank_index].size()) return -1;
    const auto& m = merged_of_[rank_index][profile];
    auto it = std::lower_bound(m.begin(), m.end(), std::make_pair(node, uint32_t(0)));
    return it != m.end() && it->first == node ? int64_t(it->second) : -1;
  }

  std::vector<char> StoredIn(RunPart part) const override {
    const auto& phase = Classes().stored_phase;
    std::vector<char> out(phase.size(), 0);
    for (size_t s = 0; s < phase.size(); ++s) {
      const bool steady = phase[s] == detail::Phase::kSteady;
      out[s] = part == RunPart::kSteady ? steady : !steady && phase[s] != detail::Phase::kProfiler;
    }
    return out;
  }

  std::vector<RankPhases> Phases() const override { return Classes().phases; }

  // Reads the members one at a time into the writer and the ranks' columns.
  void Build(const std::vector<RunMember>& members, const OpenOptions& options);

 private:
  void AddProfile(size_t rank_index, const RunMember& m, fmt::ProfileWriter* w, bool first, bool own);
  // Per rank, per profile: (member node, merged node) for the nodes its collective sites and GPU
  // activities name, by member node.
  std::vector<std::vector<std::vector<std::pair<uint32_t, uint32_t>>>> merged_of_;

  std::shared_ptr<const Profile> profile_;
  std::vector<RankInfo> ranks_;
  std::vector<int> missing_;
  std::vector<std::string> left_out_;
  std::vector<RankColumn> columns_;                   // per rank
  std::vector<std::optional<double>> gpu_overlap_;    // per rank
  std::vector<double> gpu_comm_ns_, gpu_overlapped_ns_;
  // Merged modules by (path, build id): a library's load bias differs from process to process
  // (addresses are stored module-relative), so one module stands for it in every rank.
  std::map<std::pair<std::string, std::string>, uint32_t> module_index_;
  std::unordered_map<std::string, uint16_t> metric_index_;  // "name\nunit" -> merged metric
  // The ranks' own processes' collective calls on the realtime clock, with their site's key.
  struct Call {
    uint32_t site;  // index into site_keys_
    int64_t start, end;  // CLOCK_REALTIME ns; end 0: not completed
  };
  std::vector<std::vector<Call>> calls_;  // per rank
  // A step's collective is one call site of one size: DDP issues every gradient bucket's
  // all-reduce from the same line, and a step holds one call of each bucket, not one all-reduce.
  struct SiteKey {
    std::string name, file;
    uint32_t line;
    uint64_t bytes;
    bool operator<(const SiteKey& o) const {
      return std::tie(name, file, line, bytes) < std::tie(o.name, o.file, o.line, o.bytes);
    }
  };
  std::map<SiteKey, uint32_t> site_index_;
  std::vector<SiteKey> site_keys_;
  // Phases and each stored node's phase, from one classification of the merged profile.
  const detail::RankClasses& Classes() const {
    std::call_once(classes_once_, [&] { classes_ = detail::ClassifyRankRun(*this, gpu_overlap_); });
    return classes_;
  }
  mutable std::once_flag classes_once_;
  mutable detail::RankClasses classes_;
};

void RankRunImpl::AddProfile(size_t rank_index, const RunMember& m, fmt::ProfileWriter* w, bool first, bool own) {
  const std::string name = fs::path(m.path).filename().string();
  std::vector<unsigned char> bytes;
  const fmt::ProfileReader r = detail::ParseMemberProfile(m.path, &bytes);
  if (first)
    for (const auto& e : r.meta()) w->Meta(r.string(e.key), r.string(e.value));
  std::vector<uint32_t> module_of(r.modules().size);
  for (size_t i = 0; i < r.modules().size; ++i) {
    const auto& mod = r.modules()[i];
    auto key = std::make_pair(std::string(r.string(mod.path)), std::string(r.string(mod.build_id)));
    auto it = module_index_.find(key);
    if (it == module_index_.end())
      it = module_index_.emplace(key, w->Module(key.first, key.second, mod.load_bias)).first;
    module_of[i] = it->second;
  }
  std::vector<uint32_t> frame_of(r.frames().size);
  for (size_t i = 0; i < r.frames().size; ++i) {
    const auto& f = r.frames()[i];
    const uint32_t module = f.module == fmt::kNone ? fmt::kNone : module_of[f.module];
    std::vector<fmt::SourceLine> fused;
    for (const auto& l : r.frame_source_lines(uint32_t(i), fmt::SourceLinesRole::kFused))
      fused.push_back({std::string(r.string(l.file)), std::string(r.string(l.function)), l.line});
    frame_of[i] = w->Frame(fmt::FrameKind(f.kind), module, f.address, r.string(f.name), r.string(f.file), f.line,
                           f.flags, fmt::SourceLinesRole::kFused, fused);
  }
  std::vector<uint16_t> metric_of(r.metrics().size);
  for (size_t i = 0; i < r.metrics().size; ++i) {
    const std::string mname(r.string(r.metrics()[i].name)), unit(r.string(r.metrics()[i].unit));
    auto it = metric_index_.find(mname + "\n" + unit);
    if (it == metric_index_.end()) {
      const uint32_t id = w->Metric(mname, unit);
      if (id > UINT16_MAX) throw Error(name + ": too many metrics to merge");
      it = metric_index_.emplace(mname + "\n" + unit, uint16_t(id)).first;
    }
    metric_of[i] = it->second;
  }
  // Parents precede children in the stored tree (the reader checked it): one pass. The root is
  // the merged root: the same call path in every rank is one node.
  std::vector<uint32_t> node_of(r.nodes().size);
  node_of[0] = 0;
  for (size_t i = 1; i < r.nodes().size; ++i) node_of[i] = w->Child(node_of[r.nodes()[i].parent], frame_of[r.nodes()[i].frame]);
  // The nodes a timeline names (GPU activities here, collective sites below) keep their merged id.
  std::vector<char> named(r.nodes().size, 0);
  for (const auto& a : r.gpu_activities())
    if (a.node < named.size()) named[a.node] = 1;
  RankColumn& col = columns_[rank_index];
  for (const auto& nm : r.node_metrics()) {
    fmt::MetricStats s;
    s.count = nm.count;
    s.sum = nm.sum;
    s.min = nm.min;
    s.max = nm.max;
    s.m2 = nm.m2;
    w->AddStats(node_of[nm.node], metric_of[nm.metric], s);
    col.node.push_back(node_of[nm.node]);
    col.metric.push_back(metric_of[nm.metric]);
    col.sum.push_back(float(nm.sum));
  }
  for (size_t i = 0; i < r.blob_count(); ++i) {
    const fmt::BlobView b = r.blob(i);
    w->Blob(module_of[b.module], b.kind, b.bytes);
  }
  if (own) {
    // The rank's collectives (its own process's: a worker issues none), on the realtime clock.
    Collectives cs = ReadCollectives(bytes.data(), bytes.size());
    for (const auto& site : cs.sites)
      if (site.node < named.size()) named[site.node] = 1;
    if (cs.present && cs.has_wall_clock) {
      std::vector<uint32_t> key_of(cs.sites.size());
      for (size_t i = 0; i < cs.sites.size(); ++i) {
        SiteKey key{cs.sites[i].name, cs.sites[i].python_file, cs.sites[i].python_line, cs.sites[i].bytes};
        // The user's line above it where there is one (torch's own distributed_c10d.py lines sit
        // between): the line a step table names.
        for (uint32_t n = cs.sites[i].node; n != 0 && n < r.nodes().size; n = r.nodes()[n].parent) {
          const auto& f = r.frames()[r.nodes()[n].frame];
          if (f.kind != uint32_t(fmt::FrameKind::kPython) || f.line == 0) continue;
          const std::string file(r.string(f.file));
          if (file.empty() || file[0] == '<' || file.find("-packages/") != std::string::npos ||
              file.find("/lib/python") != std::string::npos)
            continue;
          key.file = file;
          key.line = f.line;
          break;
        }
        auto it = site_index_.find(key);
        if (it == site_index_.end()) {
          it = site_index_.emplace(key, uint32_t(site_keys_.size())).first;
          site_keys_.push_back(key);
        }
        key_of[i] = it->second;
      }
      for (const auto& c : cs.calls)
        // Host calls only: a step is the issuing thread's (a device site is a kernel's).
        if (c.site < key_of.size() && !cs.sites[c.site].on_device)
          calls_[rank_index].push_back({key_of[c.site], int64_t(c.start_ns) + cs.unix_minus_monotonic_ns,
                                        c.end_ns ? int64_t(c.end_ns) + cs.unix_minus_monotonic_ns : 0});
    }
  }
  auto& merged = merged_of_[rank_index].emplace_back();
  for (size_t i = 0; i < named.size(); ++i)
    if (named[i]) merged.emplace_back(uint32_t(i), node_of[i]);
  if (GpuOverlap(r, &gpu_comm_ns_[rank_index], &gpu_overlapped_ns_[rank_index]))
    gpu_overlap_[rank_index] = gpu_comm_ns_[rank_index] > 0 ? gpu_overlapped_ns_[rank_index] / gpu_comm_ns_[rank_index] : 0.0;
}

void RankRunImpl::Build(const std::vector<RunMember>& members, const OpenOptions& options) {
  if (members.empty()) throw Error("no process to merge");
  // Each member's rank: its own, else the nearest ancestor's (a DataLoader worker counts under
  // the rank that started it); members in tree order, so an ancestor's is known first.
  std::vector<int> rank_of(members.size(), -1);
  std::vector<int> at_depth;
  std::map<int, size_t> index_of_rank;  // rank number -> its RankInfo
  int world = 0;
  for (size_t i = 0; i < members.size(); ++i) {
    const RunMember& m = members[i];
    const size_t d = size_t(std::max(0, m.depth));
    at_depth.resize(d + 1, -1);
    const int inherited = d > 0 ? at_depth[d - 1] : -1;
    rank_of[i] = m.rank >= 0 ? m.rank : inherited;
    at_depth[d] = rank_of[i];
    world = std::max(world, m.world_size);
    if (rank_of[i] < 0) {
      left_out_.push_back(m.path);
      continue;
    }
    const bool own = m.rank >= 0;
    auto it = index_of_rank.find(rank_of[i]);
    if (it == index_of_rank.end()) {
      it = index_of_rank.emplace(rank_of[i], 0).first;
    } else if (own && m.rank != inherited) {
      // A second process claiming the rank that is not a worker of the first.
      throw Error("two processes claim rank " + std::to_string(m.rank) + ": " + fs::path(m.path).filename().string() +
                  " and another profile of the run; keep one run per folder");
    }
  }
  if (index_of_rank.empty()) throw Error("no rank in this run: its profiles carry no rank meta (not a distributed job)");
  size_t next = 0;
  for (auto& [rank, idx] : index_of_rank) {
    idx = next++;
    RankInfo info;
    info.rank = rank;
    ranks_.push_back(info);
  }
  for (size_t i = 0; i < members.size(); ++i) {
    if (rank_of[i] < 0) continue;
    RankInfo& info = ranks_[index_of_rank[rank_of[i]]];
    const RunMember& m = members[i];
    const bool own = m.rank >= 0 && info.profiles.empty();
    info.profiles.push_back(m.path);
    info.pids.push_back(m.pid);
    if (own) {
      info.local_rank = m.local_rank;
      info.node_rank = m.node_rank;
      info.host = m.host;
      info.ended = AbnormalEnd(m);
      info.start_unix_ns = m.start_unix_ns;
      info.end_unix_ns = m.duration_ns > 0 ? m.start_unix_ns + m.duration_ns : 0;
    }
  }
  for (int r = 0; r < world; ++r)
    if (!index_of_rank.count(r)) missing_.push_back(r);

  columns_.resize(ranks_.size());
  calls_.resize(ranks_.size());
  merged_of_.resize(ranks_.size());
  gpu_overlap_.resize(ranks_.size());
  gpu_comm_ns_.assign(ranks_.size(), 0.0);
  gpu_overlapped_ns_.assign(ranks_.size(), 0.0);
  fmt::ProfileWriter w;
  bool first = true;
  for (size_t k = 0; k < ranks_.size(); ++k) {
    std::vector<size_t> ms;
    for (size_t i = 0; i < members.size(); ++i)
      if (rank_of[i] == ranks_[k].rank) ms.push_back(i);
    for (size_t i : ms) {
      AddProfile(k, members[i], &w, first, i == ms.front());
      first = false;
    }
    columns_[k].node.shrink_to_fit();
    columns_[k].metric.shrink_to_fit();
    columns_[k].sum.shrink_to_fit();
  }
  w.Meta("ranks", std::to_string(ranks_.size()));
  if (world > 0) w.Meta("world_size", std::to_string(world));
  w.Meta("processes", std::to_string(members.size() - left_out_.size()));
  w.Meta("run", fs::path(members.front().path).parent_path().string());
  std::string ended;
  for (const auto& info : ranks_)
    if (!info.ended.empty()) ended += (ended.empty() ? "" : "; ") + ("rank " + std::to_string(info.rank) + ": " + info.ended);
  for (int r : missing_) ended += (ended.empty() ? "" : "; ") + ("rank " + std::to_string(r) + ": no profile");
  if (!ended.empty()) w.Meta("ranks_ended", ended);
  // The first rank's `pid`, `command` and clock describe that rank alone: the merged view's span
  // is the ranks' window.
  int64_t lo = 0, hi = 0;
  for (const auto& info : ranks_) {
    if (info.start_unix_ns > 0 && (lo == 0 || info.start_unix_ns < lo)) lo = info.start_unix_ns;
    hi = std::max(hi, info.end_unix_ns);
  }
  if (lo > 0 && hi > lo) {
    w.Meta("start_unix_ns", std::to_string(lo));
    w.Meta("duration_ns", std::to_string(hi - lo));
  }
  profile_ = std::shared_ptr<const Profile>(Profile::FromBytes(w.Serialize(), options));
}

RankSteps RankRunImpl::Steps() const {
  RankSteps out;
  if (site_keys_.empty()) return out;
  // The step's collective: the site called most often by the first rank that has calls.
  std::vector<size_t> freq(site_keys_.size(), 0);
  for (const auto& cs : calls_) {
    if (cs.empty()) continue;
    for (const auto& c : cs) ++freq[c.site];
    break;
  }
  const uint32_t site = uint32_t(std::max_element(freq.begin(), freq.end()) - freq.begin());
  out.collective = site_keys_[site].name;
  out.file = site_keys_[site].file;
  out.line = site_keys_[site].line;
  // Each rank's completed calls of that site; steps: as many as every rank completed, less one
  // (a step runs from one call's end to the next's).
  std::vector<std::vector<size_t>> at(calls_.size());
  size_t n = SIZE_MAX;
  for (size_t k = 0; k < calls_.size(); ++k) {
    for (size_t i = 0; i < calls_[k].size(); ++i)
      if (calls_[k][i].site == site && calls_[k][i].end > 0) at[k].push_back(i);
    n = std::min(n, at[k].size());
  }
  if (n == SIZE_MAX || n < 2) return out;
  for (size_t s = 1; s < n; ++s) {
    RankStep st;
    for (size_t k = 0; k < calls_.size(); ++k) {
      const Call& prev = calls_[k][at[k][s - 1]];
      const Call& cur = calls_[k][at[k][s]];
      // Time with at least one call in flight: asynchronous calls (DDP's buckets) overlap.
      std::vector<std::pair<int64_t, int64_t>> spans;
      for (size_t i = at[k][s - 1] + 1; i <= at[k][s]; ++i) {
        const Call& c = calls_[k][i];
        if (c.end > 0 && c.start >= prev.end) spans.emplace_back(c.start, c.end);
      }
      std::sort(spans.begin(), spans.end());
      double comm = 0;
      int64_t lo = 0, hi = 0;
      for (const auto& [a, b] : spans) {
        if (hi > lo && a > hi) {
          comm += double(hi - lo);
          lo = hi = 0;
        }
        if (hi == lo) lo = a;
        hi = std::max(hi, b);
      }
      comm += double(hi - lo);
      st.arrive_unix_ns.push_back(cur.start);
      st.start_unix_ns.push_back(prev.end);
      st.end_unix_ns.push_back(cur.end);
      st.communication_ns.push_back(comm);
      st.compute_ns.push_back(std::max(0.0, double(cur.end - prev.end) - comm));
    }
    const auto [lo, hi] = std::minmax_element(st.arrive_unix_ns.begin(), st.arrive_unix_ns.end());
    st.last_rank = ranks_[size_t(hi - st.arrive_unix_ns.begin())].rank;
    st.arrival_spread_ns = double(*hi - *lo);
    out.steps.push_back(std::move(st));
  }
  return out;
}

}  // namespace

RankSpread SpreadOf(const std::vector<double>& values, const std::vector<RankInfo>& ranks) {
  RankSpread s;
  s.values = values;
  if (values.empty()) return s;
  size_t lo = 0, hi = 0;
  for (size_t k = 1; k < values.size(); ++k) {
    if (values[k] < values[lo]) lo = k;
    if (values[k] > values[hi]) hi = k;
  }
  s.min = values[lo];
  s.max = values[hi];
  s.min_rank = lo < ranks.size() ? ranks[lo].rank : int(lo);
  s.max_rank = hi < ranks.size() ? ranks[hi].rank : int(hi);
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  s.median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  return s;
}

bool IsCollectiveFrame(const FrameInfo& frame) { return detail::IsCollectiveFrameInfo(frame); }

std::unique_ptr<RankRun> RankRun::Open(const std::vector<RunMember>& members, const OpenOptions& options) {
  auto run = std::make_unique<RankRunImpl>();
  run->Build(members, options);
  return run;
}

std::unique_ptr<RankRun> RankRun::Open(const std::string& path, const OpenOptions& options) {
  return Open(RunFamily(path), options);
}

}  // namespace strata::core
