#include "gpu/activity/region_frames.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

#include "gpu/cupti/region_capture.h"
#include "strata/core/regions.h"

namespace strata::rt::gpu {

std::string AddRegionFrames(Attribution& a, Cct::Unlocked& u) {
  std::vector<regions::Capture> caps = regions::TakeCaptures();
  if (caps.empty()) return "";
  namespace cr = strata::core::regions;
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
    std::map<uint16_t, std::string> names = cr::ParseNames(c.names);
    std::vector<uint32_t> node(t.intervals.size(), 0);
    for (size_t i = 0; i < t.intervals.size(); ++i) {
      const cr::Interval& iv = t.intervals[i];
      uint32_t parent = iv.parent >= 0 && size_t(iv.parent) < i ? node[size_t(iv.parent)] : kernel;
      // A names entry's "@file:line" (the marker's line) becomes the frame's source line.
      cr::NameLocation nl = cr::RegionNameLocation(names, iv.region);
      if (iv.iteration >= 0) nl.name += cr::kIterationSuffix;  // loop iterations nest inside their loop
      uint32_t f = u.Frame(Cct::FrameKind::kRegion, strata::format::kNone, iv.region, nl.name, nl.file, uint32_t(nl.line));
      node[i] = a.ChildNode(u, parent, f);
      u.AddAt(node[i], m_time, iv.duration_ns());
      u.AddAt(node[i], m_raw, iv.raw_duration_ns());
      if (iv.wait_ns >= 0) u.AddAt(node[i], m_wait, iv.wait_ns);
    }
    for (const cr::Issue& is : t.issues) issues[cr::IssueName(is.kind)] += is.count;
    // The raw buffer stays with the profile for the timeline view and later re-decoding.
    uint32_t m = u.Module("regions:" + c.kernel + "#" + std::to_string(c.corr), "", 0);
    std::string bytes(reinterpret_cast<const char*>(c.bytes.data()), c.bytes.size());
    u.Blob(m, strata::format::BlobKind::kRegionBuffer, bytes);
    // How it was decoded, so that a later decode of the raw buffer gives the same numbers.
    char info[160];
    snprintf(info, sizeof(info), "cycles_per_ns=%.6f\nrecord_cost_cycles=%.3f\n", t.cycles_per_ns, t.record_cost_cycles);
    u.Blob(m, strata::format::BlobKind::kRegionInfo, "names=" + c.names + "\n" + info);
  }
  std::string s;
  for (auto& [k, n] : issues) s += (s.empty() ? "" : ", ") + k + (n > 1 ? " ×" + std::to_string(n) : "");
  return s.empty() ? "" : "decoder issues: " + s;
}

}  // namespace strata::rt::gpu
