// The record cost a viewer or the CLI asks replay to take out (strata/core/record_cost.h).
#include <algorithm>
#include <cctype>
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
  if (!r.fit_reference.empty() && times) Fail("fit to a reference trace or to kernel times, not both");
  if (!r.fit_reference.empty() && r.fit_region.empty()) Fail("a fit to a reference trace needs the region to compare");
  if (times && !(r.fit_plain_ns > 0 && r.fit_instrumented_ns > 0)) Fail("a fit to kernel times needs both, plain and instrumented");
  if (r.step_cost_cycles > 0) Fail("a fit finds the step cost: give a step region, not a step cost");
  if (per_step && startup <= 0)
    Fail("the per-step fit needs each record's own cost (a calibration buffer or a record cost)");
}

std::string Cycles(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

std::string Describe(const AppliedRecordCost& a, const RecordCostRequest& r, const std::string& region_label,
                     const std::string& step_label) {
  if (a.record_cost_cycles <= 0 && a.step_cost_cycles == 0) return "";
  std::string s = "record cost " + Cycles(a.record_cost_cycles) + " cycles";
  if (a.step_region >= 0) s += " + " + Cycles(a.step_cost_cycles) + " a step (" + step_label + ")";
  if (!a.fitted) return s;
  char b[160];
  std::snprintf(b, sizeof b, " (%.0f records%s, %.0f extra cycles", a.fit.records,
                a.step_region >= 0 ? (", " + std::to_string(int64_t(a.fit.steps + 0.5)) + " steps").c_str() : "",
                a.fit.extra_cycles);
  s += ", fitted on the kernel's own pair" + std::string(b);
  if (!r.fit_reference.empty()) {
    s += " a lane in " + region_label + " against " + r.fit_reference + ", " + std::to_string(a.fit.lanes) + " lanes)";
  } else {
    std::snprintf(b, sizeof b, " on the path, kernel %.0f ns plain, %.0f ns instrumented)", r.fit_plain_ns,
                  r.fit_instrumented_ns);
    s += b;
  }
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
// Proton trace (its scopes by name) or a buffer (the instrumented trace's names).
using References = std::map<uint16_t, ReferenceSpans>;
References ReferenceCycles(const RecordCostRequest& r, const RegionNames& names, const std::string& where,
                           double cycles_per_ns) {
  std::ifstream in(r.fit_reference, std::ios::binary);
  if (!in) Fail(r.fit_reference + ": cannot read");
  std::string head(4096, '\0');
  in.read(&head[0], std::streamsize(head.size()));
  head.resize(size_t(in.gcount()));
  Trace ref;
  RegionNames ref_names = names;
  if (LooksLikeProtonTrace(head)) {
    ProtonImportOptions o;
    o.cycles_per_ns = cycles_per_ns;
    ProtonTrace p = ImportProtonFile(r.fit_reference, o);
    if (!p.ok) Fail(r.fit_reference + ": " + IssueName(p.trace.issues.front().kind) + ": " + p.trace.issues.front().message);
    ref = std::move(p.trace);
    ref_names = std::move(p.names);
  } else {
    DecodeOptions o;
    o.cycles_per_ns = cycles_per_ns;
    ref = DecodeFile(r.fit_reference, o);
    if (ref.lanes.empty()) Fail(r.fit_reference + ": no lanes (not a region buffer or a Proton trace)");
  }
  References out;
  const std::vector<std::string> regions = SplitList(r.fit_region);
  if (regions.empty()) Fail("a fit to a reference trace needs the region to compare");
  for (const std::string& spec : regions) {
    const uint16_t id = ResolveRegion(spec, names, where);
    const ReferenceSpans spans = MeanRegionSpans(ref, ResolveRegion(spec, ref_names, r.fit_reference));
    if (spans.empty()) Fail(r.fit_reference + ": region " + spec + " has no matched interval");
    out[id] = spans;
  }
  return out;
}

RecordCostFit Fit(const RecordCostRequest& r, const Trace& raw, const References& ref, int32_t step_region, double startup) {
  RecordCostFitOptions o;
  o.step_region = step_region;
  o.startup_cost_cycles = step_region >= 0 ? startup : 0;
  RecordCostFit f = r.fit_reference.empty() ? FitRecordCostToKernelTime(raw, r.fit_plain_ns, r.fit_instrumented_ns, o)
                                            : FitRecordCostToRegions(raw, ref, o);
  if (!f.ok()) Fail("cannot fit the record cost: " + f.error);
  if (f.record_cost_cycles < 0 || f.step_cost_cycles < 0)
    Fail("the fitted record cost is negative (" + Cycles(f.record_cost_cycles) + " a record, " + Cycles(f.step_cost_cycles) +
         " a step): the instrumented kernel ran faster than the reference");
  return f;
}

}  // namespace

DecodeOptions ResolveBufferRecordCost(const RecordCostRequest& r, const RegionNames& names, DecodeOptions base,
                                      const std::function<Trace(const DecodeOptions&)>& decode, AppliedRecordCost* applied) {
  const double startup = StartupCost(r);
  const int32_t step = r.step_region.empty() ? -1 : int32_t(ResolveRegion(r.step_region, names, "the region names"));
  if (r.step_cost_cycles < 0) Fail("the step cost must not be negative");
  if (r.step_cost_cycles > 0 && step < 0 && !r.Fits()) Fail("a step cost needs the step region");
  AppliedRecordCost a;
  DecodeOptions o = base;
  if (r.Fits()) {
    CheckFitRequest(r, step >= 0, startup);
    DecodeOptions raw = base;
    raw.record_cost_cycles = 0;
    raw.step_cost_cycles = 0;
    raw.step_region = -1;
    const Trace t = decode(raw);
    References ref;
    if (!r.fit_reference.empty()) ref = ReferenceCycles(r, names, "the region names", t.cycles_per_ns);
    a.fit = Fit(r, t, ref, step, startup);
    a.fitted = true;
    a.fit.ApplyTo(o);
  } else {
    o.record_cost_cycles = startup;
    o.step_cost_cycles = r.step_cost_cycles;
    o.step_region = step;
  }
  a.record_cost_cycles = o.record_cost_cycles;
  a.step_cost_cycles = o.step_cost_cycles;
  a.step_region = o.step_region;
  a.note = Describe(a, r, r.fit_region, r.step_region);
  if (applied) *applied = a;
  return o;
}

AppliedRecordCost ApplyProtonRecordCost(const RecordCostRequest& r, ProtonTrace& p) {
  const double startup = StartupCost(r);
  const int32_t step = r.step_region.empty() ? -1 : int32_t(ResolveRegion(r.step_region, p.names, "the Proton trace"));
  if (r.step_cost_cycles < 0) Fail("the step cost must not be negative");
  if (r.step_cost_cycles > 0 && step < 0 && !r.Fits()) Fail("a step cost needs the step region");
  AppliedRecordCost a;
  a.record_cost_cycles = startup;
  a.step_cost_cycles = r.step_cost_cycles;
  a.step_region = step;
  if (r.Fits()) {
    CheckFitRequest(r, step >= 0, startup);
    References ref;
    if (!r.fit_reference.empty()) ref = ReferenceCycles(r, p.names, "the Proton trace", p.trace.cycles_per_ns);
    a.fit = Fit(r, p.trace, ref, step, startup);
    a.fitted = true;
    a.record_cost_cycles = a.fit.record_cost_cycles;
    a.step_cost_cycles = a.fit.step_cost_cycles;
  }
  if (a.record_cost_cycles > 0 || a.step_cost_cycles > 0) {
    const std::string step_name = step >= 0 ? p.names.at(uint16_t(step)).name : "";
    const std::string why = ReplayProtonTrace(p, a.record_cost_cycles, a.step_cost_cycles, step_name);
    if (!why.empty()) Fail(why);
  }
  a.note = Describe(a, r, r.fit_region, r.step_region);
  return a;
}

}  // namespace strata::core::regions
