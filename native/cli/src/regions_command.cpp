// strata regions: decodes an in-kernel region buffer (docs/regions.md) read back after a launch,
// replays it (removing the per-record cost when a calibration buffer is given) and prints a
// per-region summary, the decoded trace as JSON, or a Chrome/Perfetto trace.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "strata/core/api.h"
#include "strata/core/names_file.h"
#include "strata/core/overlap.h"
#include "strata/core/profile_regions.h"
#include "strata/core/proton_import.h"
#include "strata/core/record_cost.h"
#include "strata/core/regions.h"

namespace strata::cli {

namespace rg = strata::core::regions;

namespace {

std::string RegionLabel(const rg::RegionNames& names, uint16_t id, bool iteration) {
  auto it = names.find(id);
  return rg::RegionFrameLabel(it != names.end() ? it->second.name : "region", iteration) + " (" + std::to_string(id) + ")";
}

// Per lane group (rg::GroupShares): in a warp-specialized kernel, what each role spends its
// time on (a producer waiting on empty slots, a consumer on full ones).
std::string GroupBreakdown(const rg::Trace& t, const rg::RegionNames& names) {
  const std::vector<rg::GroupShare> groups = rg::GroupShares(t);
  if (groups.empty()) return "";
  const char* kind = t.lanes.front().meta.grouping == 0 ? "warp group" : t.lanes.front().meta.grouping == 1 ? "warp" : "lane group";
  std::string out = "per " + std::string(kind) + " (time in each region / its lanes' outermost regions):\n";
  for (const rg::GroupShare& g : groups) {
    out += "  " + std::string(kind) + " " + std::to_string(g.group) + " (" + std::to_string(g.lanes) + " lanes):";
    if (g.regions.empty()) out += " no regions";
    for (size_t i = 0; i < g.regions.size(); ++i) {
      char share[32];
      std::snprintf(share, sizeof share, " %.1f%%", 100.0 * g.regions[i].share);
      out += (i ? "," : "") + std::string(" ") + RegionLabel(names, g.regions[i].region, false) + share;
    }
    out += "\n";
  }
  return out;
}

std::string Summary(const rg::Trace& t, const rg::RegionNames& names, const std::string& first_line = "") {
  struct Acc { size_t n = 0; double ns = 0, raw_ns = 0, wait_ns = 0, max_ns = 0; size_t waits = 0; };
  // A loop and its iterations share a region id: separate rows, as in the profile's frames.
  std::map<std::pair<uint16_t, bool>, Acc> by_region;
  for (const auto& iv : t.intervals) {
    Acc& a = by_region[{iv.region, iv.iteration >= 0}];
    ++a.n;
    a.ns += iv.duration_ns();
    a.raw_ns += iv.raw_duration_ns();
    a.max_ns = std::max(a.max_ns, iv.duration_ns());
    if (iv.wait_ns >= 0) { a.wait_ns += iv.wait_ns; ++a.waits; }
  }
  char line[512];
  std::string out;
  std::string step;
  for (const auto& [region, cycles] : t.start_cost_cycles)
    step += " + " + std::to_string(int64_t(std::lround(cycles))) + " a start of " + RegionLabel(names, region, false);
  std::snprintf(line, sizeof line, "%zu lanes, %zu intervals, %.4f cycles/ns, record cost %.1f cycles%s%s\n",
                t.lanes.size(), t.intervals.size(), t.cycles_per_ns, t.record_cost_cycles, step.c_str(),
                t.record_cost_cycles != 0 || !t.start_cost_cycles.empty() ? " (replayed)"
                                                               : " (no replay: give --calibration, --record-cost or a --fit-*)");
  out += first_line.empty() ? std::string(line) : first_line;
  out += "region                                    count    total us     mean ns      max ns   raw mean ns   wait mean ns\n";
  for (const auto& [key, a] : by_region) {
    std::string name = RegionLabel(names, key.first, key.second);
    std::snprintf(line, sizeof line, "%-40.40s %7zu %11.1f %11.1f %11.1f %13.1f %14s\n", name.c_str(), a.n, a.ns / 1e3,
                  a.ns / double(a.n), a.max_ns, a.raw_ns / double(a.n),
                  a.waits ? std::to_string(int64_t(a.wait_ns / double(a.waits))).c_str() : "-");
    out += line;
  }
  out += GroupBreakdown(t, names);
  for (const auto& is : t.issues) {
    std::snprintf(line, sizeof line, "issue: %s%s: %s\n", rg::IssueName(is.kind),
                  is.lane >= 0 ? (" (lane " + std::to_string(is.lane) + ")").c_str() : "", is.message.c_str());
    out += line;
  }
  if (t.issues.empty()) out += "no issues\n";
  return out;
}

bool ReadSmall(const std::string& path, std::string* out) {
  std::ifstream in(path);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

// stdout, or the file written atomically: a half-written trace is never left behind.
int Emit(const std::string& out, const std::string& output) {
  if (output.empty()) {
    std::fwrite(out.data(), 1, out.size(), stdout);
    return std::fflush(stdout) == 0 ? 0 : kExitError;
  }
  std::string tmp = output + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!(f << out) || !f.flush()) {
      std::remove(tmp.c_str());
      std::fprintf(stderr, "strata: %s: cannot write\n", output.c_str());
      return kExitError;
    }
  }
  if (std::rename(tmp.c_str(), output.c_str()) != 0) {
    std::remove(tmp.c_str());
    std::fprintf(stderr, "strata: %s: cannot write\n", output.c_str());
    return kExitError;
  }
  std::fprintf(stderr, "strata: wrote %s\n", output.c_str());
  return 0;
}

// --critical-path: the overlap analysis of the decoded trace, as text, JSON or SARIF findings.
std::string CriticalPath(const rg::Trace& t, const rg::RegionNames& names, const RegionsOptions& options,
                         const std::string& kernel, const std::string& first_line) {
  const strata::core::overlap::OverlapAnalysis a = strata::core::overlap::AnalyzeOverlap(t, names);
  if (options.format == "json") return strata::core::overlap::OverlapToJson(a, t, names);
  if (options.format == "sarif") {
    strata::core::AnalysisResult r;
    r.findings = strata::core::overlap::OverlapFindingsAsFindings(a, names, kernel);
    return strata::core::FindingsSarif(r, options.file.empty() ? options.proton : options.file);
  }
  return first_line + strata::core::overlap::OverlapToText(a, t, names);
}

rg::RecordCostRequest CostRequest(const RegionsOptions& o) {
  rg::RecordCostRequest r;
  r.record_cost_cycles = o.record_cost;
  r.calibration = o.calibration;
  r.start_costs = o.start_cost;
  r.step_regions = o.step_regions;
  r.fit_reference = o.fit_reference;
  r.fit_region = o.fit_region;
  r.fit_paced_with = o.fit_paced;
  if (o.fit_kernel_ns.size() == 2) {
    r.fit_plain_ns = o.fit_kernel_ns[0];
    r.fit_instrumented_ns = o.fit_kernel_ns[1];
  }
  return r;
}

// A fitted record cost is news to the reader (the trace's JSON and summary carry the cost itself).
void NoteFit(const rg::AppliedRecordCost& a) {
  if (a.fitted) std::fprintf(stderr, "strata: %s\n", a.note.c_str());
}

// --proton: a Triton kernel's Proton trace (or hatchet) in place of a region buffer.
int RunProton(const RegionsOptions& options) {
  std::string text;
  if (!ReadSmall(options.proton, &text)) {
    std::fprintf(stderr, "strata: %s: cannot read\n", options.proton.c_str());
    return kExitError;
  }
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '[') {  // Proton's default data: a scope tree
    rg::HatchetTable table = rg::ImportProtonHatchet(text);
    if (!table.error.empty()) {
      std::fprintf(stderr, "strata: %s: %s\n", options.proton.c_str(), table.error.c_str());
      return kExitError;
    }
    if (options.format == "chrome") {
      std::fprintf(stderr, "strata: %s: a hatchet file has no timeline (record with data=\"trace\")\n",
                   options.proton.c_str());
      return kExitError;
    }
    std::string out;
    if (options.format == "json") {
      out = rg::HatchetToJson(table);
    } else {
      for (const auto& r : table.rows) {
        out += std::string(2 * r.depth, ' ') + r.path.substr(r.path.rfind('/') == std::string::npos ? 0 : r.path.rfind('/') + 1);
        for (const auto& [k, v] : r.metrics) {
          char buf[96];
          std::snprintf(buf, sizeof buf, "  %s=%.6g", k.c_str(), v);
          out += buf;
        }
        out += "\n";
      }
    }
    return Emit(out, options.output);
  }
  rg::ProtonImportOptions import;
  import.cycles_per_ns = options.cycles_per_ns;
  rg::ProtonTrace p = rg::ImportProtonTrace(text, import);
  if (!p.ok) {
    const auto& is = p.trace.issues.front();
    std::fprintf(stderr, "strata: %s: %s: %s\n", options.proton.c_str(), rg::IssueName(is.kind), is.message.c_str());
    return kExitError;
  }
  if (options.format == "sarif" && !options.critical_path) {
    std::fprintf(stderr, "strata: --format sarif goes with --critical-path\n");
    return kExitUsage;
  }
  NoteFit(rg::ApplyProtonRecordCost(CostRequest(options), p));
  std::string out;
  if (options.critical_path) {
    out = CriticalPath(p.trace, p.names, options, p.kernels.empty() ? "" : p.kernels.front(), "");
  } else if (options.format == "json") {
    out = rg::ProtonToJson(p);
  } else if (options.format == "chrome") {
    out = rg::ToChromeTrace(p.trace, p.names);
  } else {
    std::string kernels;
    for (const auto& k : p.kernels) kernels += (kernels.empty() ? "" : ", ") + k;
    char line[512];
    std::snprintf(line, sizeof line, "Proton trace: %zu lanes, %zu intervals, kernels: %s; %s\n", p.trace.lanes.size(),
                  p.trace.intervals.size(), kernels.c_str(),
                  options.cycles_per_ns > 0 ? ("cycles converted at " + std::to_string(options.cycles_per_ns) + " cycles/ns").c_str()
                                            : "durations in cycles (Proton's 1 GHz axis)");
    out = Summary(p.trace, p.names, line);
  }
  return Emit(out, options.output);
}
}  // namespace

int RunRegions(const RegionsOptions& options) {
  const bool profile = !options.file.empty() && rg::FileLooksLikeProfile(options.file);
  if ((options.list || options.launch >= 0) && !profile) {
    std::fprintf(stderr, "strata: %s: --list and --launch take a profile recorded with --regions\n",
                 options.file.empty() ? options.proton.c_str() : options.file.c_str());
    return kExitError;
  }
  if (options.critical_path && options.format == "chrome") {
    std::fprintf(stderr, "strata: --critical-path prints text, json or sarif\n");
    return kExitUsage;
  }
  if (!options.proton.empty()) return RunProton(options);
  rg::RegionNames names = rg::ParseNameTable(options.names);
  if (!options.names_file.empty()) {
    // Its names only: the clock rate stays --cycles-per-ns's (or the buffer's).
    std::string why;
    std::optional<rg::NamesFile> file = rg::ReadNamesFile(options.names_file, &why);
    if (!file) {
      std::fprintf(stderr, "strata: %s: %s\n", options.names_file.c_str(), why.c_str());
      return kExitError;
    }
    names.insert(file->names.begin(), file->names.end());
  }
  rg::DecodeOptions decode;
  decode.cycles_per_ns = options.cycles_per_ns;
  const rg::RecordCostRequest cost = CostRequest(options);
  rg::AppliedRecordCost applied;
  rg::Trace trace;
  std::string first_line, kernel;
  if (profile) {
    // A profile: its captured launches' raw buffers (blobs), names from its region frames.
    rg::ProfileRegions pr = rg::ReadProfileRegions(options.file);
    if (pr.launches.empty()) {
      std::fprintf(stderr, "strata: %s: no region buffers in this profile (record with strata record --regions)\n",
                   options.file.c_str());
      return kExitError;
    }
    if (options.list) {
      std::string out;
      if (options.format == "json") {
        out = rg::LaunchesToJson(pr);
      } else if (options.format == "chrome") {
        std::fprintf(stderr, "strata: --list prints text or json\n");
        return kExitUsage;
      } else {
        out = "launch  correlation       bytes  kernel\n";
        for (const auto& l : pr.launches) {
          char line[96];
          std::snprintf(line, sizeof line, "%6zu  %11llu  %10zu  ", l.index, (unsigned long long)l.correlation_id,
                        l.bytes.size());
          out += line + l.kernel + "\n";
        }
      }
      return Emit(out, options.output);
    }
    const size_t n = options.launch < 0 ? 0 : size_t(options.launch);
    if (n >= pr.launches.size()) {
      std::fprintf(stderr, "strata: %s: no launch %zu (the profile has %zu captured launch%s: 0..%zu)\n",
                   options.file.c_str(), n, pr.launches.size(), pr.launches.size() == 1 ? "" : "es",
                   pr.launches.size() - 1);
      return kExitError;
    }
    for (const auto& [id, name] : pr.names) names.emplace(id, name);  // --names first
    decode = rg::ResolveBufferRecordCost(cost, names, decode, [&](const rg::DecodeOptions& o) { return rg::DecodeLaunch(pr, n, o); },
                                         &applied);
    trace = rg::DecodeLaunch(pr, n, decode);
    const auto& l = pr.launches[n];
    kernel = l.kernel;
    first_line = "launch " + std::to_string(n) + " of " + std::to_string(pr.launches.size()) + ": " + l.kernel +
                 " (correlation " + std::to_string(l.correlation_id) + ", " + std::to_string(l.bytes.size()) + " bytes)\n";
  } else {
    decode = rg::ResolveBufferRecordCost(cost, names, decode, [&](const rg::DecodeOptions& o) { return rg::DecodeFile(options.file, o); },
                                         &applied);
    trace = rg::DecodeFile(options.file, decode);
  }
  // Nothing decodable (unreadable, not a region buffer, nothing finalized): one line, non-zero.
  if (trace.lanes.empty() && !trace.issues.empty()) {
    std::fprintf(stderr, "strata: %s: %s: %s\n", options.file.c_str(), rg::IssueName(trace.issues.front().kind),
                 trace.issues.front().message.c_str());
    return kExitError;
  }
  if (options.format == "sarif" && !options.critical_path) {
    std::fprintf(stderr, "strata: --format sarif goes with --critical-path\n");
    return kExitUsage;
  }
  NoteFit(applied);
  if (options.critical_path) return Emit(CriticalPath(trace, names, options, kernel, first_line), options.output);
  std::string out = options.format == "json"     ? rg::ToJson(trace, names)
                    : options.format == "chrome" ? rg::ToChromeTrace(trace, names)
                                                 : first_line + Summary(trace, names);
  return Emit(out, options.output);
}

}  // namespace strata::cli
