// KPerfIR's software-pipelining and warp-specialization models (§4.4, Table 4) on the stage
// latencies measured in a trace. Per iteration:
//   SWP, N stages: N = 1: C + I + L; N >= 2: max(C + I, L / (N - 1)) — load-bound when the
//     load latency L (issue to arrival) divided over the loads in flight exceeds the compute C
//     plus the issue cost I.
//   WS, ring of depth S: max(producer busy, consumer busy, ring / S), ring = the sum of the
//     stages on the producer -> consumer -> producer cycle: the producer's work from its wait to
//     its release, the sync latency, the consumer's from its wait to its release, the sync back.
// Kernel time = iterations x that + what the measurement shows outside the iterations. The
// same formulas, with one stage changed, predict what a change gains.
#include "pipeline_models.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace strata::core::overlap::detail {

namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

std::string Name(const RegionNames& names, uint16_t id) { return regions::NameOf(names, id).name; }

std::string Us(double ns) {
  char b[48];
  if (std::fabs(ns) >= 1e6) std::snprintf(b, sizeof b, "%.2f ms", ns / 1e6);
  else if (std::fabs(ns) >= 1e3) std::snprintf(b, sizeof b, "%.2f us", ns / 1e3);
  else std::snprintf(b, sizeof b, "%.0f ns", ns);
  return b;
}
std::string Pct(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f%%", 100 * x);
  return b;
}

// Per iteration: a stage's time (mean per instance x instances per iteration).
double PerIter(const RoleStage& s) { return s.mean_ns * s.per_iteration; }

struct WsTerms {
  double busy_p = 0, busy_c = 0, chain_p = 0, chain_c = 0, sync = 0;
  uint32_t stages = 1;
  double Iteration() const {
    return std::max({busy_p, busy_c, (chain_p + chain_c + sync) / double(std::max<uint32_t>(stages, 1))});
  }
  Bottleneck Binding() const {
    const double ring = (chain_p + chain_c + sync) / double(std::max<uint32_t>(stages, 1));
    if (ring >= busy_p && ring >= busy_c) return Bottleneck::kRing;
    return busy_p >= busy_c ? Bottleneck::kProducer : Bottleneck::kConsumer;
  }
};

double SwpIteration(double c, double i, double l, uint32_t n) {
  return n <= 1 ? c + i + l : std::max(c + i, l / double(n - 1));
}

// The stages of a role's chain: from after the wait the other role releases to its own release.
std::vector<size_t> Chain(const Role& r, int32_t wait_stage) {
  std::vector<size_t> out;
  if (r.release_stage < 0) return out;
  const double from = wait_stage >= 0 ? r.stages[size_t(wait_stage)].offset_ns : -1e300;
  const double to = r.stages[size_t(r.release_stage)].offset_ns;
  for (size_t s = 0; s < r.stages.size(); ++s) {
    const RoleStage& st = r.stages[s];
    if (st.activity == Activity::kWait || st.async) continue;
    const bool in = from <= to ? (st.offset_ns > from && st.offset_ns <= to) : (st.offset_ns > from || st.offset_ns <= to);
    if (in) out.push_back(s);
  }
  return out;
}

}  // namespace

std::vector<Role> BuildRoles(const TraceView& v, const std::vector<DependencyEdge>& edges,
                             const std::vector<LaneActivity>& lanes) {
  const Trace& t = *v.trace;
  std::vector<Role> roles(v.roles);
  struct Acc { double sum = 0, off = 0; size_t n = 0, offn = 0; bool async = false; Activity a = Activity::kCompute; };
  std::vector<std::map<uint16_t, Acc>> acc(v.roles);
  std::vector<std::vector<double>> iters(v.roles), spans(v.roles);
  for (size_t l = 0; l < v.lanes.size(); ++l) {
    const LaneView& lv = v.lanes[l];
    if (lv.empty) continue;
    Role& r = roles[lv.role];
    r.id = lv.role;
    ++r.lanes;
    spans[lv.role].push_back(lv.end_ns - lv.start_ns);
    std::map<uint16_t, size_t> count;
    std::map<int64_t, double> iter_start;
    for (uint32_t i : lv.intervals) {
      if (v.iteration[i] < 0 || !(v.innermost[i] || v.async[i])) continue;
      auto it = iter_start.find(v.iteration[i]);
      if (it == iter_start.end() || v.RawStart(i) < it->second) iter_start[v.iteration[i]] = v.RawStart(i);
    }
    for (uint32_t i : lv.intervals) {
      if (!(v.innermost[i] || v.async[i])) continue;
      const auto& iv = t.intervals[i];
      Acc& a = acc[lv.role][iv.region];
      a.sum += iv.duration_ns();
      ++a.n;
      a.async = a.async || v.async[i];
      a.a = v.activity[i];
      ++count[iv.region];
      // On the recorded clock: the stages' order is what the chains need, and replay can break it.
      if (v.iteration[i] >= 0) { a.off += v.RawStart(i) - iter_start[v.iteration[i]]; ++a.offn; }
    }
    size_t k = 0;
    for (const auto& [id, c] : count) k = std::max(k, c);
    iters[lv.role].push_back(double(k));
  }
  for (uint32_t r = 0; r < v.roles; ++r) {
    Role& role = roles[r];
    role.iterations = Median(iters[r]);
    role.span_ns = Median(spans[r]);
    const double denom = std::max(1.0, role.iterations * double(std::max<uint32_t>(role.lanes, 1)));
    for (const auto& [id, a] : acc[r]) {
      RoleStage s;
      s.region = id;
      s.activity = a.async ? Activity::kLoad : a.a;
      s.async = a.async;
      s.mean_ns = a.n ? a.sum / double(a.n) : 0;
      s.per_iteration = double(a.n) / denom;
      s.offset_ns = a.offn ? a.off / double(a.offn) : 0;
      role.stages.push_back(s);
      if (s.async) continue;
      if (s.activity == Activity::kCompute) role.compute_ns += PerIter(s);
      else if (s.activity == Activity::kLoad) role.load_ns += PerIter(s);
      else role.wait_ns += PerIter(s);
    }
    std::sort(role.stages.begin(), role.stages.end(), [](const RoleStage& a, const RoleStage& b) { return a.offset_ns < b.offset_ns; });
    double idle = 0;
    for (const LaneActivity& la : lanes) if (la.role == r) idle += la.idle_ns;
    role.idle_ns = idle / denom;
  }
  // Each role's release: the region its releases follow most often.
  std::vector<std::map<uint16_t, size_t>> rel(v.roles);
  for (const DependencyEdge& e : edges)
    if (e.from_interval >= 0) ++rel[v.lanes[e.from_lane].role][t.intervals[size_t(e.from_interval)].region];
  for (uint32_t r = 0; r < v.roles; ++r) {
    size_t best = 0;
    for (const auto& [id, n] : rel[r]) {
      if (n <= best) continue;
      for (size_t s = 0; s < roles[r].stages.size(); ++s)
        if (roles[r].stages[s].region == id) { roles[r].release_stage = int32_t(s); best = n; }
    }
  }
  return roles;
}

PipelineModel BuildModel(const TraceView& v, const std::vector<DependencyEdge>& edges, const std::vector<Role>& roles,
                         const std::vector<BlockPath>& paths) {
  const Trace& t = *v.trace;
  PipelineModel m;
  if (roles.empty() || paths.empty()) return m;
  std::vector<double> spans;
  for (const BlockPath& p : paths) spans.push_back(p.span_ns);
  m.measured_kernel_ns = Median(spans);
  // Edges between roles: (from role, to role) -> count, latencies of binding ones, iteration offsets.
  std::map<std::pair<uint32_t, uint32_t>, size_t> between;
  std::map<std::pair<uint32_t, uint32_t>, std::vector<double>> latency;
  std::map<std::pair<uint32_t, uint32_t>, std::map<int64_t, size_t>> offsets;
  std::map<std::pair<uint32_t, uint32_t>, std::map<uint16_t, size_t>> waits;
  for (const DependencyEdge& e : edges) {
    const auto key = std::make_pair(v.lanes[e.from_lane].role, v.lanes[e.to_lane].role);
    ++between[key];
    if (e.binding) latency[key].push_back(e.latency_ns);
    if (e.from_iteration >= 0 && e.to_iteration >= 0) ++offsets[key][e.to_iteration - e.from_iteration];
    ++waits[key][t.intervals[size_t(e.to_interval)].region];
  }
  // The steady iteration: the median gap between consecutive iterations' starts on a lane.
  auto measured_iteration = [&](uint32_t role) {
    std::vector<double> gaps;
    for (size_t l = 0; l < v.lanes.size(); ++l) {
      if (v.lanes[l].empty || v.lanes[l].role != role) continue;
      std::map<int64_t, double> starts;
      for (uint32_t i : v.lanes[l].intervals) {
        if (v.iteration[i] < 0 || !(v.innermost[i] || v.async[i])) continue;
        auto it = starts.find(v.iteration[i]);
        if (it == starts.end() || v.Start(i) < it->second) starts[v.iteration[i]] = v.Start(i);
      }
      for (auto it = starts.begin(); it != starts.end() && std::next(it) != starts.end(); ++it)
        if (std::next(it)->first == it->first + 1) gaps.push_back(std::next(it)->second - it->second);
    }
    return Median(gaps);
  };
  auto mode = [](const std::map<int64_t, size_t>& h, int64_t dflt) {
    int64_t best = dflt;
    size_t n = 0;
    for (const auto& [k, c] : h) if (c > n) { n = c; best = k; }
    return best;
  };
  auto wait_stage = [&](const Role& r, uint32_t from_role) -> int32_t {
    auto it = waits.find({from_role, r.id});
    if (it == waits.end()) return -1;
    uint16_t best = 0;
    size_t n = 0;
    for (const auto& [id, c] : it->second) if (c > n) { n = c; best = id; }
    for (size_t s = 0; s < r.stages.size(); ++s) if (r.stages[s].region == best) return int32_t(s);
    return -1;
  };
  // Warp specialization: two roles releasing each other.
  uint32_t p = 0, c = 0;
  size_t pair_edges = 0;
  for (const auto& [key, n] : between) {
    if (key.first == key.second) continue;
    auto back = between.find({key.second, key.first});
    if (back == between.end()) continue;
    if (n + back->second > pair_edges) { pair_edges = n + back->second; p = key.first; c = key.second; }
  }
  if (pair_edges > 0) {
    // The producer computes less per iteration than the other (it moves data and waits).
    if (roles[p].compute_ns > roles[c].compute_ns || (roles[p].compute_ns == roles[c].compute_ns && roles[p].load_ns < roles[c].load_ns)) std::swap(p, c);
    const Role& rp = roles[p];
    const Role& rc = roles[c];
    m.kind = ModelKind::kWarpSpecialization;
    m.producer_role = p;
    m.consumer_role = c;
    m.iterations = rc.iterations;
    WsTerms w;
    // Time in no region (loop bookkeeping, the barrier instructions, the markers) is the role's
    // work too, and lies between its wait and its release.
    w.busy_p = rp.compute_ns + rp.load_ns + rp.idle_ns;
    w.busy_c = rc.compute_ns + rc.load_ns + rc.idle_ns;
    w.chain_p = rp.idle_ns;
    w.chain_c = rc.idle_ns;
    for (size_t s : Chain(rp, wait_stage(rp, c))) w.chain_p += PerIter(rp.stages[s]);
    for (size_t s : Chain(rc, wait_stage(rc, p))) w.chain_c += PerIter(rc.stages[s]);
    auto mean = [](const std::vector<double>& x) { double s = 0; for (double y : x) s += y; return x.empty() ? 0 : s / double(x.size()); };
    w.sync = mean(latency[{p, c}]) + mean(latency[{c, p}]);
    const int64_t depth = mode(offsets[{c, p}], 1);
    w.stages = uint32_t(std::max<int64_t>(1, std::min<int64_t>(depth, 64)));
    m.stages = w.stages;
    m.producer_busy_ns = w.busy_p;
    m.consumer_busy_ns = w.busy_c;
    m.producer_chain_ns = w.chain_p;
    m.consumer_chain_ns = w.chain_c;
    m.sync_ns = w.sync;
    m.ring_ns = w.chain_p + w.chain_c + w.sync;
    m.measured_iteration_ns = measured_iteration(c);
    m.rest_ns = m.measured_kernel_ns - m.iterations * m.measured_iteration_ns;
    m.current = {m.stages, w.Iteration(), m.rest_ns + m.iterations * w.Iteration(), w.Binding()};
    for (uint32_t s = 1; s <= 4; ++s) {
      WsTerms x = w;
      x.stages = s;
      m.by_stages.push_back({s, x.Iteration(), m.rest_ns + m.iterations * x.Iteration(), x.Binding()});
    }
    return m;
  }
  // Software pipelining: the role with the most lanes that loads and computes.
  int32_t pick = -1;
  for (const Role& r : roles) {
    bool loads = false;
    for (const RoleStage& s : r.stages) loads = loads || s.async || s.activity == Activity::kLoad;
    if (loads && r.compute_ns > 0 && (pick < 0 || r.lanes > roles[size_t(pick)].lanes)) pick = int32_t(r.id);
  }
  if (pick < 0) return m;
  const Role& r = roles[size_t(pick)];
  m.kind = ModelKind::kSoftwarePipelining;
  m.producer_role = m.consumer_role = r.id;
  m.iterations = r.iterations;
  m.compute_ns = r.compute_ns + r.idle_ns;  // unmarked time is the lane's work too
  double async_latency = 0;
  uint16_t async_region = 0;
  bool any_async = false;
  for (const RoleStage& s : r.stages)
    if (s.async && PerIter(s) > async_latency) { async_latency = s.mean_ns; async_region = s.region; any_async = true; }
  if (any_async) {
    m.issue_ns = r.load_ns;
    m.load_latency_ns = async_latency;
    // Loads in flight: at each issue, the other loads of that region still open on the lane.
    size_t in_flight = 0;
    for (size_t l = 0; l < v.lanes.size(); ++l) {
      if (v.lanes[l].empty || v.lanes[l].role != r.id) continue;
      std::vector<std::pair<double, double>> spans_l;
      for (uint32_t i : v.lanes[l].intervals)
        if (v.async[i] && t.intervals[i].region == async_region) spans_l.emplace_back(v.Start(i), v.End(i));
      // By start: the ends of the loads issued before, still to come at this issue.
      std::sort(spans_l.begin(), spans_l.end());
      std::multiset<double> ends;
      for (const auto& [start, end] : spans_l) {
        while (!ends.empty() && *ends.begin() <= start) ends.erase(ends.begin());
        in_flight = std::max(in_flight, ends.size());
        ends.insert(end);
      }
    }
    // A load in flight over each iteration's work is two stages (the slot computed on and the
    // one filling); each further load open at an issue is one more.
    m.stages = uint32_t(in_flight + 2);
  } else {
    m.issue_ns = 0;
    m.load_latency_ns = r.load_ns;  // loads the lane waits for: not hidden (one stage)
    m.stages = 1;
  }
  m.measured_iteration_ns = measured_iteration(r.id);
  m.rest_ns = m.measured_kernel_ns - m.iterations * m.measured_iteration_ns;
  auto predict = [&](uint32_t n) {
    const double it = SwpIteration(m.compute_ns, m.issue_ns, m.load_latency_ns, n);
    const Bottleneck b = n > 1 && m.load_latency_ns / double(n - 1) > m.compute_ns + m.issue_ns ? Bottleneck::kLoad : n <= 1 ? (m.load_latency_ns > m.compute_ns ? Bottleneck::kLoad : Bottleneck::kCompute) : Bottleneck::kCompute;
    return StagePrediction{n, it, m.rest_ns + m.iterations * it, b};
  };
  m.current = predict(m.stages);
  for (uint32_t n = 1; n <= 4; ++n) m.by_stages.push_back(predict(n));
  return m;
}

std::vector<OverlapFinding> ModelFindings(const PipelineModel& m, const std::vector<Role>& roles,
                                          const std::vector<PathRegion>& path_regions, const RegionNames& names,
                                          double min_gain_share) {
  std::vector<OverlapFinding> out;
  const double kernel = m.measured_kernel_ns;
  if (kernel <= 0) return out;
  auto worth = [&](double gain) { return gain >= min_gain_share * kernel; };
  if (m.kind == ModelKind::kWarpSpecialization) {
    const Role& rp = roles[m.producer_role];
    const Role& rc = roles[m.consumer_role];
    WsTerms w;
    w.busy_p = m.producer_busy_ns;
    w.busy_c = m.consumer_busy_ns;
    w.chain_p = m.producer_chain_ns;
    w.chain_c = m.consumer_chain_ns;
    w.sync = m.sync_ns;
    w.stages = m.stages;
    const double base = w.Iteration();
    // Which chain each stage is in.
    auto chain_of = [&](const Role& r, uint32_t other) {
      std::set<size_t> s;
      int32_t ws = -1;
      // the wait the other role releases: the role's first wait stage
      for (size_t i = 0; i < r.stages.size(); ++i) if (r.stages[i].activity == Activity::kWait && !r.stages[i].async) { ws = int32_t(i); break; }
      (void)other;
      for (size_t i : Chain(r, ws)) s.insert(i);
      return s;
    };
    const std::set<size_t> cp = chain_of(rp, m.consumer_role), cc = chain_of(rc, m.producer_role);
    OverlapFinding best;
    double best_gain = 0;
    for (int side = 0; side < 2; ++side) {
      const Role& r = side == 0 ? rp : rc;
      const std::set<size_t>& chain = side == 0 ? cp : cc;
      for (size_t s = 0; s < r.stages.size(); ++s) {
        const RoleStage& st = r.stages[s];
        if (st.activity == Activity::kWait || st.async) continue;
        const double half = PerIter(st) / 2;
        WsTerms x = w;
        (side == 0 ? x.busy_p : x.busy_c) -= half;
        if (chain.count(s)) (side == 0 ? x.chain_p : x.chain_c) -= half;
        const double gain = m.iterations * (base - x.Iteration());
        if (gain > best_gain) {
          best_gain = gain;
          best = OverlapFinding{FindingKind::kShortenRegion, st.region, r.id, PerIter(st), kernel - gain, gain, gain / kernel, ""};
        }
      }
    }
    if (worth(best_gain)) {
      const bool prod = best.role == m.producer_role;
      best.message = "`" + Name(names, best.region) + "` (" + std::string(prod ? "producer" : "consumer") + ", " +
                     Us(best.region_ns) + " per iteration) is on the critical path of this warp-specialized kernel (" +
                     BottleneckName(w.Binding()) + "-bound: producer " + Us(w.busy_p) + ", consumer " + Us(w.busy_c) +
                     ", ring " + Us(m.ring_ns) + " over " + std::to_string(m.stages) + (m.stages == 1 ? " stage" : " stages") + ", per iteration). Halving it "
                     "would shorten the blocks by " + Us(best.gain_ns) + " (" + Pct(best.gain_share) + " of " + Us(kernel) +
                     ", warp-specialization model).";
      out.push_back(best);
    }
    // A release that follows work it need not wait for: arrive before stage s (s and the chain
    // after it leave the ring, the role still does them).
    for (int side = 0; side < 2; ++side) {
      const Role& r = side == 0 ? rp : rc;
      const std::set<size_t>& chain = side == 0 ? cp : cc;
      if (chain.size() < 2) continue;
      OverlapFinding f;
      double fgain = 0;
      bool first = true;
      for (size_t s : chain) {
        if (first) { first = false; continue; }  // the stage that uses the data stays before the release
        double kept = 0;
        for (size_t q : chain) if (r.stages[q].offset_ns < r.stages[s].offset_ns) kept += PerIter(r.stages[q]);
        WsTerms x = w;
        // The role's time in no region (bookkeeping, the barrier instructions) stays on its chain.
        (side == 0 ? x.chain_p : x.chain_c) = kept + r.idle_ns;
        const double gain = m.iterations * (base - x.Iteration());
        if (gain > fgain) {
          fgain = gain;
          f = OverlapFinding{FindingKind::kArriveEarlier, r.stages[s].region, r.id, PerIter(r.stages[s]), kernel - gain, gain, gain / kernel, ""};
        }
      }
      if (!worth(fgain)) continue;
      const std::string rel = r.release_stage >= 0 ? Name(names, r.stages[size_t(r.release_stage)].region) : "its work";
      f.message = "The " + std::string(side == 0 ? "producer" : "consumer") + " releases the other role only after `" + rel +
                  "`, so `" + Name(names, f.region) + "` (" + Us(f.region_ns) + " per iteration) sits on the ring between "
                  "the roles. If it does not need the slot, arriving before it would shorten the blocks by " + Us(f.gain_ns) +
                  " (" + Pct(f.gain_share) + "; predicted " + Us(f.predicted_kernel_ns) + ", warp-specialization model).";
      out.push_back(f);
    }
    return out;
  }
  if (m.kind == ModelKind::kSoftwarePipelining) {
    const Role& r = roles[m.producer_role];
    if (m.current.bottleneck == Bottleneck::kLoad && m.stages < 8) {
      const double next = m.rest_ns + m.iterations * SwpIteration(m.compute_ns, m.issue_ns, m.load_latency_ns, m.stages + 1);
      const double gain = m.current.kernel_ns - next;
      uint16_t load = 0;
      double most = -1;
      for (const RoleStage& s : r.stages) if ((s.async || s.activity == Activity::kLoad) && s.mean_ns > most) { most = s.mean_ns; load = s.region; }
      if (worth(gain)) {
        OverlapFinding f{FindingKind::kMoreStages, load, r.id, m.load_latency_ns, next, gain, gain / kernel, ""};
        f.message = "Load-bound software pipeline: `" + Name(names, load) + "` takes " + Us(m.load_latency_ns) +
                    " from issue to arrival against " + Us(m.compute_ns + m.issue_ns) + " of work per iteration with " +
                    std::to_string(m.stages) + " stage" + (m.stages == 1 ? "" : "s") + ". " + std::to_string(m.stages + 1) +
                    " stages would shorten the blocks by " + Us(gain) + " (" + Pct(gain / kernel) + ", software-pipelining model).";
        out.push_back(f);
      }
    }
    // The binding term's largest stage, halved.
    OverlapFinding best;
    double best_gain = 0;
    for (const RoleStage& s : r.stages) {
      if (s.activity == Activity::kWait && !s.async) continue;
      double c = m.compute_ns, i = m.issue_ns, l = m.load_latency_ns;
      if (s.async) l -= s.mean_ns / 2;
      else if (s.activity == Activity::kCompute) c -= PerIter(s) / 2;
      else if (m.issue_ns > 0) i -= PerIter(s) / 2;
      else l -= PerIter(s) / 2;
      const double gain = m.iterations * (SwpIteration(m.compute_ns, m.issue_ns, m.load_latency_ns, m.stages) - SwpIteration(c, i, l, m.stages));
      if (gain > best_gain) { best_gain = gain; best = OverlapFinding{FindingKind::kShortenRegion, s.region, r.id, s.async ? s.mean_ns : PerIter(s), kernel - gain, gain, gain / kernel, ""}; }
    }
    if (worth(best_gain)) {
      best.message = "`" + Name(names, best.region) + "` (" + Us(best.region_ns) + " per iteration) sets the pace of this " +
                     std::to_string(m.stages) + "-stage software pipeline (" + BottleneckName(m.current.bottleneck) +
                     "-bound). Halving it would shorten the blocks by " + Us(best.gain_ns) + " (" + Pct(best.gain_share) +
                     ", software-pipelining model).";
      out.push_back(best);
    }
    return out;
  }
  // No model: the critical path's largest work region; halving it saves at most half its time there.
  for (const PathRegion& pr : path_regions) {
    if (pr.region < 0 || pr.activity == Activity::kWait) continue;
    if (!worth(pr.share * kernel / 2)) break;
    OverlapFinding f{FindingKind::kShortenRegion, uint16_t(pr.region), 0, 0, kernel - pr.share * kernel / 2, pr.share * kernel / 2, pr.share / 2, ""};
    f.message = "`" + Name(names, f.region) + "` is " + Pct(pr.share) + " of the critical path through the lanes; halving it "
                "would shorten the blocks by up to " + Us(f.gain_ns) + " (" + Pct(f.gain_share) + ").";
    out.push_back(f);
    break;
  }
  return out;
}

}  // namespace strata::core::overlap::detail
