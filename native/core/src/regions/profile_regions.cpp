// The region buffers a profile carries (strata/core/profile_regions.h).
#include "strata/core/profile_regions.h"

#include <llvm/Demangle/Demangle.h>

#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "../rewrite.h"
#include "strata/core/api.h"
#include "strata/format/layout.h"
#include "strata/format/reader.h"

namespace strata::core::regions {

namespace fmt = strata::format;

namespace {

constexpr std::string_view kModulePrefix = "regions:";

// "regions:<mangled>#<corr>" -> mangled, corr. false when the path is not of that form.
bool ParseModulePath(std::string_view path, std::string* mangled, uint64_t* corr) {
  if (path.substr(0, kModulePrefix.size()) != kModulePrefix) return false;
  path.remove_prefix(kModulePrefix.size());
  size_t hash = path.rfind('#');
  if (hash == std::string_view::npos) return false;
  *mangled = std::string(path.substr(0, hash));
  std::string digits(path.substr(hash + 1));
  char* end = nullptr;
  *corr = digits.empty() ? 0 : std::strtoull(digits.c_str(), &end, 10);
  return true;
}

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
  std::map<uint32_t, std::string_view> info;  // module -> its region_info text
  for (size_t i = 0; i < r.blob_count(); ++i)
    if (r.blob(i).kind == fmt::BlobKind::kRegionInfo) info[r.blob(i).module] = r.blob(i).bytes;
  for (size_t i = 0; i < r.blob_count(); ++i) {
    fmt::BlobView b = r.blob(i);
    if (b.kind != fmt::BlobKind::kRegionBuffer) continue;
    CapturedLaunch l;
    l.module = std::string(r.string(r.modules()[b.module].path));
    if (!ParseModulePath(l.module, &l.mangled, &l.correlation_id)) l.mangled = l.module;
    l.kernel = llvm::demangle(l.mangled);
    l.bytes = std::string(b.bytes);
    if (auto it = info.find(b.module); it != info.end()) {
      std::string_view text = it->second;
      while (!text.empty()) {
        size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        auto value = [&](std::string_view key) -> std::optional<std::string> {
          if (line.substr(0, key.size()) != key) return std::nullopt;
          return std::string(line.substr(key.size()));
        };
        if (auto v = value("names=")) l.names_table = *v;
        else if (auto v = value("cycles_per_ns=")) l.cycles_per_ns = std::atof(v->c_str());
        else if (auto v = value("record_cost_cycles=")) l.record_cost_cycles = std::atof(v->c_str());
      }
      for (const auto& [id, name] : ParseNames(l.names_table)) out.names[id] = name;
    }
    l.index = out.launches.size();
    out.launches.push_back(std::move(l));
  }
  // Names: the region frames (address = id). A loop's iterations carry " (iteration)".
  for (const fmt::FrameRecord& f : r.frames()) {
    if (f.kind != uint32_t(fmt::FrameKind::kRegion) || f.address > 0xFFFF) continue;
    std::string name(r.string(f.name));
    const uint16_t id = uint16_t(f.address);
    const bool iteration = HasIterationSuffix(name);
    if (iteration) name.resize(name.size() - kIterationSuffix.size());
    if (name.empty() || name == "region " + std::to_string(id)) continue;
    // The marker's line, where the names table gave one, is the frame's source line.
    if (f.line > 0 && !r.string(f.file).empty()) name += "@" + std::string(r.string(f.file)) + ":" + std::to_string(f.line);
    if (!iteration || !out.names.count(id)) out.names[id] = name;
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
  std::vector<unsigned char> bytes = detail::ReadProfileBytes(profile_path);
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
  json names = json::object();
  for (const auto& [id, name] : regions.names) names[std::to_string(id)] = name;
  json j{{"launches", launches}, {"names", names}, {"cycles_per_ns", regions.cycles_per_ns}};
  return j.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace strata::core::regions
