// The record cost a viewer or the CLI asks replay to take out (strata/core/record_cost.h).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <map>
#include <vector>

#include "strata/core/api.h"
#include "strata/core/record_cost.h"

namespace strata::core::regions {

namespace {

[[noreturn]] void Fail(const std::string& why) { throw Error(why); }

bool IsNumber(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// A region id given as a number (taken as is, up to the id space) or a name of `names`.
uint16_t ResolveRegion(const std::string& spec, const RegionNames& names, const std::string& where) {
  if (IsNumber(spec)) {
    const unsigned long id = std::stoul(spec);
    if (id > region_decoder::kMaxRegionId) Fail("region id " + spec + " is out of range (0.." + std::to_string(region_decoder::kMaxRegionId) + ")");
    return uint16_t(id);
  }
  for (const auto& [id, name] : names)
    if (name.name == spec) return id;
  Fail("no region named \"" + spec + "\" in " + where);
}

// The start-up cost per record: given outright or read off a calibration buffer.
double StartupCost(const RecordCostRequest& r) {
  if (r.record_cost_cycles < 0) Fail("the record cost must not be negative");
  if (r.calibration.empty()) return r.record_cost_cycles;
  if (r.record_cost_cycles > 0) Fail("give a calibration buffer or a record cost, not both");
  const double c = CalibrateRecordCost(DecodeFile(r.calibration));
  if (c <= 0) Fail(r.calibration + ": not a calibration buffer (strata::regions::CalibrationKernel)");
  return c;
}

void CheckFitRequest(const RecordCostRequest& r, bool per_step, double startup) {
  const bool times = r.fit_plain_ns > 0 || r.fit_instrumented_ns > 0;
  if (!r.fit_paced_with.empty()) {
    if (r.fit_reference.empty() || r.fit_region.empty() || !per_step || times)
      Fail("the paced fit needs a reference trace, its fit regions (the loops) and the step regions, and no kernel times");
    return;
  }
  if (!r.fit_reference.empty() && times) Fail("fit to a reference trace or to kernel times, not both");
  if (!r.fit_reference.empty() && r.fit_region.empty()) Fail("a fit to a reference trace needs the region to compare");
  if (times && !(r.fit_plain_ns > 0 && r.fit_instrumented_ns > 0)) Fail("a fit to kernel times needs both, plain and instrumented");
  if (per_step && startup <= 0)
    Fail("the per-step fit needs each record's own cost (a calibration buffer or a record cost)");
}

std::string Cycles(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

std::vector<std::string> SplitList(const std::string& s);

// The reference as the note names it: its path, or how many launches' mean.
std::string ReferenceLabel(const RecordCostRequest& r) {
  const std::vector<std::string> paths = SplitList(r.fit_reference);
  if (paths.size() <= 1) return r.fit_reference;
  return "the mean of " + std::to_string(paths.size()) + " references (" + paths[0] + ", ...)";
}

std::string Describe(const AppliedRecordCost& a, const RecordCostRequest& r, const RegionNames& names) {
  if (a.record_cost_cycles == 0 && a.start_cost_cycles.empty()) return "";
  std::string s = "record cost " + Cycles(a.record_cost_cycles) + " cycles";
  for (const auto& [region, cycles] : a.start_cost_cycles) {
    auto n = names.find(region);
    s += " + " + Cycles(cycles) + " a start of " + (n != names.end() ? n->second.name : "region " + std::to_string(region));
  }
  if (!a.fitted) return s;
  if (!r.fit_paced_with.empty()) {
    char p[160];
    std::snprintf(p, sizeof p, ", paced: %.2f cycles a pace-setting record and step, fitted on the kernel's own traces (%zu loops) against ",
                  a.paced.pace_record_cycles, a.paced.lanes);
    return s + p + ReferenceLabel(r);
  }
  char b[200];
  std::snprintf(b, sizeof b, " (%.0f records%s, %.0f extra cycles", a.fit.records,
                a.fit.step_regions.empty() ? "" : (", " + std::to_string(int64_t(a.fit.steps + 0.5)) + " steps").c_str(),
                a.fit.extra_cycles);
  s += ", fitted on the kernel's own pair" + std::string(b);
  if (!r.fit_reference.empty()) {
    s += " a lane in " + r.fit_region + " against " + ReferenceLabel(r) + ", " + std::to_string(a.fit.lanes) + " lanes)";
  } else {
    std::snprintf(b, sizeof b, " on the path, kernel %.0f ns plain, %.0f ns instrumented)", r.fit_plain_ns,
                  r.fit_instrumented_ns);
    s += b;
  }
  if (a.fit.record_cost_cycles < 0 || a.fit.step_cost_cycles < 0)
    s += "; negative: the markers made the kernel faster, replay lengthens its regions";
  return s;
}

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  size_t from = 0;
  while (from <= s.size()) {
    const size_t comma = std::min(s.find(',', from), s.size());
    if (comma > from) out.push_back(s.substr(from, comma - from));
    from = comma + 1;
  }
  return out;
}

// Per fit region (its id in the instrumented trace), the reference's span per lane group: a
// Proton trace (its scopes by name) or a buffer (the instrumented trace's names). Several
// references (launches of the kernel) give their mean: one launch's loop spans move by several
// percent from the next (the H200's Gluon attention: up to 12% at 1024 tokens).
using References = std::map<uint16_t, ReferenceSpans>;
References OneReference(const std::string& path, const RecordCostRequest& r, const RegionNames& names,
                        const std::string& where, double cycles_per_ns) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail(path + ": cannot read");
  std::string head(4096, '\0');
  in.read(&head[0], std::streamsize(head.size()));
  head.resize(size_t(in.gcount()));
  Trace ref;
  RegionNames ref_names = names;
  if (LooksLikeProtonTrace(head)) {
    ProtonImportOptions o;
    o.cycles_per_ns = cycles_per_ns;
    ProtonTrace p = ImportProtonFile(path, o);
    if (!p.ok) Fail(path + ": " + IssueName(p.trace.issues.front().kind) + ": " + p.trace.issues.front().message);
    ref = std::move(p.trace);
    ref_names = std::move(p.names);
  } else {
    DecodeOptions o;
    o.cycles_per_ns = cycles_per_ns;
    ref = DecodeFile(path, o);
    if (ref.lanes.empty()) Fail(path + ": no lanes (not a region buffer or a Proton trace)");
  }
  References out;
  const std::vector<std::string> regions = SplitList(r.fit_region);
  if (regions.empty()) Fail("a fit to a reference trace needs the region to compare");
  for (const std::string& spec : regions) {
    const uint16_t id = ResolveRegion(spec, names, where);
    const ReferenceSpans spans = MeanRegionSpans(ref, ResolveRegion(spec, ref_names, path));
    if (spans.empty()) Fail(path + ": region " + spec + " has no matched interval");
    out[id] = spans;
  }
  return out;
}

References ReferenceCycles(const RecordCostRequest& r, const RegionNames& names, const std::string& where,
                           double cycles_per_ns) {
  const std::vector<std::string> paths = SplitList(r.fit_reference);
  if (paths.empty()) Fail("a fit to a reference trace needs the reference");
  if (paths.size() == 1) return OneReference(paths[0], r, names, where, cycles_per_ns);
  // The mean over the references of each region's mean span per lane group (each launch counts
  // once, whatever its lanes); a lane group missing from one of them is left out.
  std::map<uint16_t, std::map<uint32_t, std::pair<ReferenceSpan, size_t>>> sum;
  for (const std::string& path : paths)
    for (const auto& [region, spans] : OneReference(path, r, names, where, cycles_per_ns))
      for (const auto& [group, span] : spans) {
        auto& s = sum[region][group];
        s.first.cycles += span.cycles;
        s.first.records += span.records;
        ++s.second;
      }
  References out;
  for (const auto& [region, groups] : sum)
    for (const auto& [group, s] : groups)
      if (s.second == paths.size()) out[region][group] = {s.first.cycles / double(s.second), s.first.records / double(s.second)};
  for (const auto& [region, spans] : out)
    if (spans.empty()) Fail("the references share no lane group of region " + std::to_string(region));
  return out;
}

RecordCostFit Fit(const RecordCostRequest& r, const Trace& raw, const References& ref, const std::vector<uint16_t>& steps,
                  double startup) {
  RecordCostFitOptions o;
  o.step_regions = steps;
  o.startup_cost_cycles = steps.empty() ? 0 : startup;
  RecordCostFit f = r.fit_reference.empty() ? FitRecordCostToKernelTime(raw, r.fit_plain_ns, r.fit_instrumented_ns, o)
                                            : FitRecordCostToRegions(raw, ref, o);
  if (!f.ok()) Fail("cannot fit the record cost: " + f.error);
  return f;
}

// "R=C,R=C": each region (id or name) and the cycles each of its starts costs.
StartCosts ParseStartCosts(const std::string& spec, const RegionNames& names, const std::string& where) {
  StartCosts out;
  for (const std::string& item : SplitList(spec)) {
    const size_t eq = item.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      Fail("a start cost is REGION=CYCLES, not \"" + item + "\"");
    char* end = nullptr;
    const std::string value = item.substr(eq + 1);
    const double c = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || *end != '\0' || !std::isfinite(c)) Fail("a start cost is REGION=CYCLES, not \"" + item + "\"");
    out[ResolveRegion(item.substr(0, eq), names, where)] = c;
  }
  return out;
}

std::vector<uint16_t> ParseRegions(const std::string& spec, const RegionNames& names, const std::string& where) {
  std::vector<uint16_t> out;
  for (const std::string& item : SplitList(spec)) out.push_back(ResolveRegion(item, names, where));
  return out;
}

}  // namespace

namespace {

// The paced fit over the decoded trace and the others named in the request (`load` reads one).
PacedFit FitPaced(const RecordCostRequest& r, const Trace& main, const References& ref, const std::vector<uint16_t>& steps,
                  const std::function<Trace(const std::string&)>& load) {
  std::vector<Trace> others;
  for (const std::string& path : SplitList(r.fit_paced_with)) others.push_back(load(path));
  std::vector<const Trace*> all{&main};
  for (const Trace& t : others) all.push_back(&t);
  PacedFit f = FitPacedRecordCost(all, ref, steps);
  if (!f.ok()) Fail("cannot fit the paced record cost: " + f.error);
  return f;
}

}  // namespace

DecodeOptions ResolveBufferRecordCost(const RecordCostRequest& r, const RegionNames& names, DecodeOptions base,
                                      const std::function<Trace(const DecodeOptions&)>& decode, AppliedRecordCost* applied) {
  const double startup = StartupCost(r);
  const std::string where = "the region names";
  const std::vector<uint16_t> steps = ParseRegions(r.step_regions, names, where);
  if (!steps.empty() && !r.Fits()) Fail("step regions are for a fit (give their cost with a start cost instead)");
  AppliedRecordCost a;
  DecodeOptions o = base;
  o.record_cost_cycles = startup;
  o.start_cost_cycles = ParseStartCosts(r.start_costs, names, where);
  if (r.Fits()) {
    CheckFitRequest(r, !steps.empty(), startup);
    DecodeOptions raw = base;
    raw.record_cost_cycles = 0;
    raw.start_cost_cycles.clear();
    const Trace t = decode(raw);
    References ref;
    if (!r.fit_reference.empty()) ref = ReferenceCycles(r, names, where, t.cycles_per_ns);
    a.fitted = true;
    if (!r.fit_paced_with.empty()) {
      a.paced = FitPaced(r, t, ref, steps, [&](const std::string& path) {
        DecodeOptions po = raw;
        po.cycles_per_ns = t.cycles_per_ns;
        Trace other = DecodeFile(path, po);
        if (other.lanes.empty()) Fail(path + ": no lanes (not a region buffer)");
        return other;
      });
      o.record_cost_cycles = 0;
      for (const auto& [region, cycles] : PacedStartCosts(t, a.paced, ref)) o.start_cost_cycles[region] = cycles;
    } else {
      a.fit = Fit(r, t, ref, steps, startup);
      a.fit.ApplyTo(o);
    }
  }
  a.record_cost_cycles = o.record_cost_cycles;
  a.start_cost_cycles = o.start_cost_cycles;
  a.note = Describe(a, r, names);
  if (applied) *applied = a;
  return o;
}

AppliedRecordCost ApplyProtonRecordCost(const RecordCostRequest& r, ProtonTrace& p) {
  const double startup = StartupCost(r);
  const std::string where = "the Proton trace";
  const std::vector<uint16_t> steps = ParseRegions(r.step_regions, p.names, where);
  if (!steps.empty() && !r.Fits()) Fail("step regions are for a fit (give their cost with a start cost instead)");
  AppliedRecordCost a;
  a.record_cost_cycles = startup;
  a.start_cost_cycles = ParseStartCosts(r.start_costs, p.names, where);
  if (r.Fits()) {
    CheckFitRequest(r, !steps.empty(), startup);
    References ref;
    if (!r.fit_reference.empty()) ref = ReferenceCycles(r, p.names, where, p.trace.cycles_per_ns);
    a.fitted = true;
    DecodeOptions o;
    o.start_cost_cycles = a.start_cost_cycles;
    if (!r.fit_paced_with.empty()) {
      // Another Proton trace numbers its scopes in the order it met them: map by name onto ours.
      References mine = ref;
      a.paced = FitPaced(r, p.trace, ref, steps, [&](const std::string& path) {
        ProtonImportOptions io;
        io.cycles_per_ns = p.trace.cycles_per_ns;
        ProtonTrace other = ImportProtonFile(path, io);
        if (!other.ok) Fail(path + ": " + IssueName(other.trace.issues.front().kind) + ": " + other.trace.issues.front().message);
        std::map<uint16_t, uint16_t> to_mine;
        for (const auto& [id, n] : other.names)
          for (const auto& [mid, mn] : p.names)
            if (mn.name == n.name) to_mine[id] = mid;
        for (Interval& iv : other.trace.intervals) {
          auto m = to_mine.find(iv.region);
          iv.region = m == to_mine.end() ? uint16_t(region_decoder::kMaxRegionId) : m->second;
        }
        return std::move(other.trace);
      });
      o.record_cost_cycles = 0;
      for (const auto& [region, cycles] : PacedStartCosts(p.trace, a.paced, mine)) o.start_cost_cycles[region] = cycles;
    } else {
      a.fit = Fit(r, p.trace, ref, steps, startup);
      a.fit.ApplyTo(o);
    }
    a.record_cost_cycles = o.record_cost_cycles;
    a.start_cost_cycles = o.start_cost_cycles;
  }
  if (a.record_cost_cycles != 0 || !a.start_cost_cycles.empty()) ReplayProtonTrace(p, a.record_cost_cycles, a.start_cost_cycles);
  a.note = Describe(a, r, p.names);
  return a;
}

}  // namespace strata::core::regions
