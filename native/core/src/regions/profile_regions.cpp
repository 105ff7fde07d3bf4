// The region launches a profile carries (strata/core/profile_regions.h).
#include "strata/core/profile_regions.h"

#include <llvm/Demangle/Demangle.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "../rewrite.h"
#include "legacy_region_form.h"
#include "names_json.h"
#include "region_frames.h"
#include "strata/core/api.h"
#include "strata/format/layout.h"
#include "strata/format/reader.h"

namespace strata::core::regions {

namespace fmt = strata::format;

namespace {

double SumRaw(const Trace& t) {
  double s = 0;
  for (const Interval& iv : t.intervals) s += iv.raw_duration_ns();
  return s;
}

}  // namespace

bool LooksLikeProfile(const unsigned char* data, size_t size) {
  return size >= sizeof fmt::kMagic && std::memcmp(data, fmt::kMagic, sizeof fmt::kMagic) == 0;
}

bool FileLooksLikeProfile(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  unsigned char magic[sizeof fmt::kMagic];
  size_t n = std::fread(magic, 1, sizeof magic, f);
  std::fclose(f);
  return LooksLikeProfile(magic, n);
}

ProfileRegions ReadProfileRegions(const unsigned char* data, size_t size) {
  ProfileRegions out;
  fmt::ProfileReader r;
  try {
    r = fmt::ProfileReader::Parse(data, size);
  } catch (const fmt::ReadError& e) {
    throw Error(e.what());
  }
  if (r.region_launches_version() > fmt::kRegionLaunchesVersion)
    throw Error("the profile's region launches are of format version " + std::to_string(r.region_launches_version()) +
                ", newer than this Strata reads (" + std::to_string(fmt::kRegionLaunchesVersion) + ")");
  if (r.region_launches_version() == 0) {
    out.launches = detail::LegacyLaunches(r);
  } else {
    for (size_t i = 0; i < r.region_launch_count(); ++i) {
      const fmt::RegionLaunchView v = r.region_launch(i);
      CapturedLaunch l;
      l.mangled = std::string(v.kernel);
      l.correlation_id = v.correlation_id;
      l.sm_clock_khz = v.sm_clock_khz;
      l.cycles_per_ns = v.cycles_per_ns;
      l.record_cost_cycles = v.record_cost_cycles;
      for (const fmt::RegionNameRecord& n : v.names)
        l.names[uint16_t(n.region)] = RegionName{std::string(r.string(n.name)), std::string(r.string(n.file)), n.line};
      l.bytes = std::string(v.buffer);
      out.launches.push_back(std::move(l));
    }
  }
  for (size_t i = 0; i < out.launches.size(); ++i) {
    out.launches[i].index = i;
    out.launches[i].kernel = llvm::demangle(out.launches[i].mangled);
    for (const auto& [id, name] : out.launches[i].names) out.names[id] = name;
  }
  // Names from the region frames (address = id), the marker's line where the names table gave
  // one; a loop's name from its own frame rather than an iteration's.
  for (const fmt::FrameRecord& f : r.frames()) {
    if (f.kind != uint32_t(fmt::FrameKind::kRegion) || f.address > 0xFFFF) continue;
    const detail::StoredRegionFrame rf = detail::ReadRegionFrame(r, f);
    const uint16_t id = uint16_t(f.address);
    if (rf.name.empty() || rf.name == "region " + std::to_string(id)) continue;
    RegionName name{rf.name, "", 0};
    if (f.line > 0 && !r.string(f.file).empty()) { name.file = std::string(r.string(f.file)); name.line = f.line; }
    if (!rf.iteration || !out.names.count(id)) out.names[id] = name;
  }
  if (out.launches.empty()) return out;
  // The rate the runtime used where a buffer alone has none (the device's SM clock): every
  // interval's raw duration went into `region_raw_time`, so the launches without a rate of
  // their own account for what the others do not, at cycles / rate each.
  uint32_t raw_metric = fmt::kNone;
  for (uint32_t m = 0; m < r.metrics().size; ++m)
    if (r.string(r.metrics()[m].name) == "region_raw_time") raw_metric = m;
  if (raw_metric == fmt::kNone) return out;
  double total_ns = 0;
  for (const fmt::NodeMetricRecord& nm : r.node_metrics())
    if (nm.metric == raw_metric) total_ns += nm.sum;
  double cycles = 0, rated_ns = 0;
  for (const CapturedLaunch& l : out.launches) {
    const auto* p = reinterpret_cast<const uint8_t*>(l.bytes.data());
    Trace t = Decode(p, l.bytes.size());
    if (!t.HasIssue(IssueKind::kNoClockRate)) {
      rated_ns += SumRaw(t);
      continue;
    }
    DecodeOptions one;
    one.cycles_per_ns = 1;  // raw durations in cycles
    cycles += SumRaw(Decode(p, l.bytes.size(), one));
  }
  if (cycles > 0 && total_ns - rated_ns > 0) out.cycles_per_ns = cycles / (total_ns - rated_ns);
  return out;
}

ProfileRegions ReadProfileRegions(const std::string& profile_path) {
  std::vector<unsigned char> bytes = core::detail::ReadProfileBytes(profile_path);
  return ReadProfileRegions(bytes.data(), bytes.size());
}

Trace DecodeLaunch(const ProfileRegions& regions, size_t launch, const DecodeOptions& options) {
  const CapturedLaunch& l = regions.launches.at(launch);
  const std::string& b = l.bytes;
  const auto* p = reinterpret_cast<const uint8_t*>(b.data());
  DecodeOptions given = options;  // what the runtime used, unless the caller says otherwise
  if (given.cycles_per_ns <= 0 && l.cycles_per_ns > 0) given.cycles_per_ns = l.cycles_per_ns;
  if (given.record_cost_cycles <= 0 && l.record_cost_cycles > 0) given.record_cost_cycles = l.record_cost_cycles;
  Trace t = Decode(p, b.size(), given);
  if (options.cycles_per_ns <= 0 && regions.cycles_per_ns > 0 && t.HasIssue(IssueKind::kNoClockRate)) {
    DecodeOptions o = given;
    o.cycles_per_ns = regions.cycles_per_ns;
    t = Decode(p, b.size(), o);
  }
  return t;
}

std::string LaunchesToJson(const ProfileRegions& regions) {
  using nlohmann::json;
  json launches = json::array();
  for (const CapturedLaunch& l : regions.launches)
    launches.push_back({{"index", l.index},
                        {"kernel", l.kernel},
                        {"mangled", l.mangled},
                        {"correlation_id", l.correlation_id},
                        {"bytes", l.bytes.size()}});
  json j{{"launches", launches}, {"regions", NamesJson(regions.names)}, {"cycles_per_ns", regions.cycles_per_ns}};
  return j.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace strata::core::regions
