// Fitting a kernel's record cost on its own plain / instrumented pair
// (strata/region_decoder/record_cost_fit.h).
#include "strata/region_decoder/record_cost_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

namespace strata::region_decoder {

namespace {

// Records (flush markers not counted) and steps of `lane` in the record positions [from, to).
struct Counts {
  double records = 0, steps = 0;
};
Counts CountIn(const Trace& t, uint32_t lane, uint32_t from, uint32_t to,
               const std::vector<std::vector<uint32_t>>& step_starts) {
  Counts c;
  c.records = double(to - from);
  const Lane& l = t.lanes[lane];
  for (uint32_t i = from; i < to && i < l.records.size(); ++i)
    if (l.records[i].kind == RecordKind::kFlushBegin || l.records[i].kind == RecordKind::kFlushEnd) c.records -= 1;
  if (lane < step_starts.size())
    for (uint32_t s : step_starts[lane]) c.steps += s >= from && s < to;
  return c;
}

// Per lane, the record positions where a step (a start or iteration start of a step region) begins.
std::vector<std::vector<uint32_t>> StepStarts(const Trace& t, const std::vector<uint16_t>& step_regions) {
  std::vector<std::vector<uint32_t>> out(t.lanes.size());
  if (step_regions.empty()) return out;
  for (const Interval& iv : t.intervals)
    if (std::find(step_regions.begin(), step_regions.end(), iv.region) != step_regions.end() && iv.barrier_use < 0 &&
        iv.lane < out.size())
      out[iv.lane].push_back(iv.start_index);
  return out;
}

// Least squares of extra = cost * x (+ the start-up records' part, per-step form) over the lanes.
RecordCostFit Solve(const std::vector<double>& extra, const std::vector<Counts>& counts, const RecordCostFitOptions& o) {
  RecordCostFit f;
  f.step_regions = o.step_regions;
  f.lanes = extra.size();
  if (extra.empty()) {
    f.error = "no lane to compare";
    return f;
  }
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < extra.size(); ++i) {
    f.extra_cycles += extra[i] / double(extra.size());
    f.records += counts[i].records / double(extra.size());
    f.steps += counts[i].steps / double(extra.size());
    const bool per_step = !o.step_regions.empty();
    const double x = per_step ? counts[i].steps : counts[i].records;
    const double y = per_step ? extra[i] - o.startup_cost_cycles * counts[i].records : extra[i];
    sxx += x * x;
    sxy += x * y;
  }
  if (sxx <= 0) {
    f.error = o.step_regions.empty() ? "no record in what was compared" : "no step (a start of a step region) in what was compared";
    return f;
  }
  if (!o.step_regions.empty()) {
    f.record_cost_cycles = o.startup_cost_cycles;
    f.step_cost_cycles = sxy / sxx;
  } else {
    f.record_cost_cycles = sxy / sxx;
  }
  return f;
}

}  // namespace

void RecordCostFit::ApplyTo(DecodeOptions& options) const {
  options.record_cost_cycles = record_cost_cycles;
  for (uint16_t r : step_regions) options.start_cost_cycles[r] = step_cost_cycles;
}

ReferenceSpans MeanRegionSpans(const Trace& t, uint16_t region) {
  std::map<uint32_t, std::pair<ReferenceSpan, double>> sum;  // group -> (sums, intervals)
  for (const Interval& iv : t.intervals) {
    if (iv.region != region || iv.iteration >= 0 || iv.unmatched || iv.barrier_use >= 0 || iv.lane >= t.lanes.size())
      continue;
    const Lane& l = t.lanes[iv.lane];
    auto& s = sum[l.meta.group];
    s.first.cycles += (iv.raw_end_ns - iv.raw_start_ns) * l.cycles_per_ns;
    s.first.records += CountIn(t, iv.lane, iv.start_index, iv.end_index, {}).records;
    s.second += 1;
  }
  ReferenceSpans out;
  for (const auto& [g, s] : sum) out[g] = ReferenceSpan{s.first.cycles / s.second, s.first.records / s.second};
  return out;
}

RecordCostFit FitRecordCostToRegion(const Trace& t, uint16_t region, const ReferenceSpans& reference,
                                    const RecordCostFitOptions& o) {
  return FitRecordCostToRegions(t, {{region, reference}}, o);
}

RecordCostFit FitRecordCostToRegions(const Trace& t, const std::map<uint16_t, ReferenceSpans>& references,
                                     const RecordCostFitOptions& o) {
  const auto steps = StepStarts(t, o.step_regions);
  std::vector<double> extra;
  std::vector<Counts> counts;
  std::map<uint16_t, bool> present;
  for (const Interval& iv : t.intervals) {
    auto refs = references.find(iv.region);
    if (refs == references.end() || iv.iteration >= 0 || iv.unmatched || iv.barrier_use >= 0 || iv.lane >= t.lanes.size())
      continue;
    present[iv.region] = true;
    const Lane& l = t.lanes[iv.lane];
    auto ref = refs->second.find(l.meta.group);
    if (ref == refs->second.end()) continue;
    extra.push_back((iv.raw_end_ns - iv.raw_start_ns) * l.cycles_per_ns - ref->second.cycles);
    Counts c = CountIn(t, iv.lane, iv.start_index, iv.end_index, steps);
    c.records -= ref->second.records;  // the reference's own markers cost it as much
    counts.push_back(c);
  }
  for (const auto& [region, ref] : references)
    if (!present.count(region)) {
      RecordCostFit f;
      f.error = "region " + std::to_string(region) + " is not in the instrumented trace (matched, outside iterations)";
      return f;
    }
  if (extra.empty()) {
    RecordCostFit f;
    f.error = "the reference has none of the lane groups that hold the region";
    return f;
  }
  return Solve(extra, counts, o);
}

RecordCostFit FitRecordCostToKernelTime(const Trace& t, double plain_ns, double instrumented_ns,
                                        const RecordCostFitOptions& o) {
  RecordCostFit f;
  if (!(plain_ns > 0) || !(instrumented_ns > 0) || !std::isfinite(plain_ns) || !std::isfinite(instrumented_ns)) {
    f.error = "kernel times must be positive";
    return f;
  }
  if (t.lanes.empty() || !(t.cycles_per_ns > 0)) {
    f.error = t.lanes.empty() ? "no lane in the instrumented trace" : "no clock rate (give the device's cycles per ns)";
    return f;
  }
  // The lane that ends last, and the lanes of its SM and group that ran before it in turn: the
  // markers of each delayed the next.
  size_t last = 0;
  for (size_t i = 1; i < t.lanes.size(); ++i)
    if (t.lanes[i].end_ns > t.lanes[last].end_ns) last = i;
  const auto steps = StepStarts(t, o.step_regions);
  Counts chain;
  for (size_t cur = last;;) {
    const Lane& l = t.lanes[cur];
    // Records the lane wrote (kept or not); its steps scaled the same way when records were lost.
    const Counts c = CountIn(t, uint32_t(cur), 0, uint32_t(l.records.empty() ? l.meta.records_here : l.records.size()), steps);
    const double kept = c.records > 0 ? c.records : 1;
    const double all = std::max<double>(double(l.meta.record_count), c.records);
    chain.records += all;
    chain.steps += c.steps * all / kept;
    size_t before = SIZE_MAX;
    for (size_t i = 0; i < t.lanes.size(); ++i) {
      const Lane& p = t.lanes[i];
      if (i == cur || p.meta.smid != l.meta.smid || p.meta.group != l.meta.group || p.end_ns > l.start_ns) continue;
      if (before == SIZE_MAX || p.end_ns > t.lanes[before].end_ns) before = i;
    }
    if (before == SIZE_MAX) break;
    cur = before;
  }
  return Solve({(instrumented_ns - plain_ns) * t.cycles_per_ns}, {chain}, o);
}

namespace {

// Per fit region instance of one trace: its region, Δ (cycles over the reference), records beyond
// the reference's and steps inside.
struct Instance {
  uint16_t region;
  double extra, records, steps;
};
std::vector<Instance> Instances(const Trace& t, const std::map<uint16_t, ReferenceSpans>& references,
                                const std::vector<uint16_t>& step_regions) {
  const auto steps = StepStarts(t, step_regions);
  std::vector<Instance> out;
  for (const Interval& iv : t.intervals) {
    auto refs = references.find(iv.region);
    if (refs == references.end() || iv.iteration >= 0 || iv.unmatched || iv.barrier_use >= 0 || iv.lane >= t.lanes.size())
      continue;
    auto ref = refs->second.find(t.lanes[iv.lane].meta.group);
    if (ref == refs->second.end()) continue;
    const Counts c = CountIn(t, iv.lane, iv.start_index, iv.end_index, steps);
    out.push_back({iv.region, (iv.raw_end_ns - iv.raw_start_ns) * t.lanes[iv.lane].cycles_per_ns - ref->second.cycles,
                   c.records - ref->second.records, c.steps});
  }
  return out;
}

// Records per step of the pace-setting region (the most, mean over its instances).
double Pace(const std::vector<Instance>& in) {
  std::map<uint16_t, std::pair<double, double>> per;  // region -> (records, steps)
  for (const Instance& i : in) {
    per[i.region].first += i.records;
    per[i.region].second += i.steps;
  }
  double pace = 0;
  for (const auto& [r, v] : per)
    if (v.second > 0) pace = std::max(pace, v.first / v.second);
  return pace;
}

}  // namespace

PacedFit FitPacedRecordCost(const std::vector<const Trace*>& traces, const std::map<uint16_t, ReferenceSpans>& references,
                            const std::vector<uint16_t>& step_regions) {
  PacedFit f;
  f.step_regions = step_regions;
  if (step_regions.empty()) {
    f.error = "the paced fit needs the step regions";
    return f;
  }
  // (region, pace records, Δ) over every trace's instances.
  std::vector<std::tuple<uint16_t, double, double>> rows;
  for (const Trace* t : traces) {
    const std::vector<Instance> in = Instances(*t, references, step_regions);
    const double pace = Pace(in);
    for (const Instance& i : in) rows.emplace_back(i.region, pace * i.steps, i.extra);
  }
  f.lanes = rows.size();
  if (rows.empty()) {
    f.error = "no fit region with a reference in the instrumented traces";
    return f;
  }
  // Least squares with a constant per region: c from the deviations around each region's means.
  std::map<uint16_t, std::tuple<double, double, double>> mean;  // region -> (sum p, sum Δ, n)
  for (const auto& [r, p, d] : rows) {
    auto& m = mean[r];
    std::get<0>(m) += p, std::get<1>(m) += d, std::get<2>(m) += 1;
  }
  double sxx = 0, sxy = 0;
  for (const auto& [r, p, d] : rows) {
    const auto& m = mean[r];
    const double dp = p - std::get<0>(m) / std::get<2>(m), dd = d - std::get<1>(m) / std::get<2>(m);
    sxx += dp * dp;
    sxy += dp * dd;
  }
  double spread = 0;  // relative to the pace itself: a few lanes' rounding is not a second density
  for (const auto& [r, p, d] : rows) spread = std::max(spread, std::abs(p));
  if (sxx <= 1e-6 * spread * spread * double(rows.size())) {
    f.error = "the paced fit needs instrumented traces whose pace differs (two marker densities, or two lengths)";
    return f;
  }
  f.pace_record_cycles = sxy / sxx;
  for (const auto& [r, m] : mean)
    f.region_constant_cycles[r] = (std::get<1>(m) - f.pace_record_cycles * std::get<0>(m)) / std::get<2>(m);
  return f;
}

StartCosts PacedStartCosts(const Trace& t, const PacedFit& f, const std::map<uint16_t, ReferenceSpans>& references) {
  StartCosts out;
  const double per_step = f.pace_record_cycles * Pace(Instances(t, references, f.step_regions));
  for (uint16_t s : f.step_regions) out[s] = per_step;
  for (const auto& [r, a] : f.region_constant_cycles) out[r] = a;
  return out;
}

}  // namespace strata::region_decoder
