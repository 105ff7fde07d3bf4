#include "gpu/activity/region_frames.h"

#include <cstdlib>
#include <map>
#include <vector>

#include "gpu/cupti/region_capture.h"
#include "strata/format/layout.h"
#include "strata/format/writer.h"
#include "strata/region_decoder/decode.h"
#include "strata/region_decoder/names.h"

namespace strata::rt::gpu {

std::string AddRegionFrames(Attribution& a, Cct::Unlocked& u) {
  std::vector<regions::Capture> caps = regions::TakeCaptures();
  if (caps.empty()) return "";
  namespace cr = strata::region_decoder;
  uint32_t m_time = u.Metric("region_time", "ns"), m_raw = u.Metric("region_raw_time", "ns"),
           m_wait = u.Metric("region_wait_time", "ns");
  cr::DecodeOptions opts;
  opts.record_cost_cycles = regions::RecordCostCycles();
  std::map<std::string, uint64_t> issues;
  for (const regions::Capture& c : caps) {
    uint32_t kernel = 0;
    for (uint32_t corr : {c.corr, c.outer})
      if (!kernel) {
        auto it = a.kernel_of_corr.find(corr);
        if (it != a.kernel_of_corr.end()) kernel = it->second;
      }
    if (!kernel) {  // its kernel record never came: under <unattributed> (kernel frame made first)
      uint32_t f = a.KernelFrame(u, c.kernel);
      kernel = a.ChildNode(u, a.UnattributedNode(u), f);
    }
    cr::Trace t = cr::Decode(c.bytes.data(), c.bytes.size(), opts);
    // Lanes too short to measure the clock (globaltimer moves in 32 ns steps): the device's SM
    // clock instead, unless STRATA_REGIONS_CYCLES_PER_NS says better.
    if (t.HasIssue(cr::IssueKind::kNoClockRate)) {
      cr::DecodeOptions o = opts;
      const char* r = getenv("STRATA_REGIONS_CYCLES_PER_NS");
      o.cycles_per_ns = r ? atof(r) : c.clock_khz / 1e6;
      if (o.cycles_per_ns > 0) {
        t = cr::Decode(c.bytes.data(), c.bytes.size(), o);
        issues["clock rate from the device attribute"] += 1;
      }
    }
    std::vector<uint32_t> node(t.intervals.size(), 0);
    for (size_t i = 0; i < t.intervals.size(); ++i) {
      const cr::Interval& iv = t.intervals[i];
      uint32_t parent = iv.parent >= 0 && size_t(iv.parent) < i ? node[size_t(iv.parent)] : kernel;
      // A names entry's location (the marker's line) becomes the frame's source line; loop
      // iterations (flagged) nest inside their loop's frame.
      cr::RegionName nl = cr::NameOf(c.names, iv.region);
      uint32_t flags = iv.iteration >= 0 ? strata::format::kFrameFlagIteration : 0;
      uint32_t f = u.Frame(Cct::FrameKind::kRegion, strata::format::kNone, iv.region, nl.name, nl.file, nl.line, flags);
      node[i] = a.ChildNode(u, parent, f);
      u.AddAt(node[i], m_time, iv.duration_ns());
      u.AddAt(node[i], m_raw, iv.raw_duration_ns());
      if (iv.wait_ns >= 0) u.AddAt(node[i], m_wait, iv.wait_ns);
    }
    for (const cr::Issue& is : t.issues) issues[cr::IssueName(is.kind)] += is.count;
    // The raw buffer stays with the profile for the timeline view and later re-decoding, with
    // how it was decoded, so that a later decode gives the same numbers.
    strata::format::RegionLaunch launch;
    launch.kernel = c.kernel;
    launch.correlation_id = c.corr;
    launch.sm_clock_khz = c.clock_khz > 0 ? uint32_t(c.clock_khz) : 0;
    launch.cycles_per_ns = t.cycles_per_ns;
    launch.record_cost_cycles = t.record_cost_cycles;
    for (const auto& [id, n] : c.names) launch.names.push_back({id, n.name, n.file, n.line});
    launch.buffer.assign(reinterpret_cast<const char*>(c.bytes.data()), c.bytes.size());
    u.RegionLaunch(launch);
  }
  std::string s;
  for (auto& [k, n] : issues) s += (s.empty() ? "" : ", ") + k + (n > 1 ? " ×" + std::to_string(n) : "");
  return s.empty() ? "" : "decoder issues: " + s;
}

}  // namespace strata::rt::gpu
