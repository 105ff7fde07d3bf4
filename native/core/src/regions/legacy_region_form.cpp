// The old form of region launches and iteration frames, converted on read (legacy_region_form.h).
#include "legacy_region_form.h"

#include <cstdlib>
#include <map>
#include <string_view>

#include "strata/core/regions.h"

namespace strata::core::regions::detail {

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
  *corr = digits.empty() ? 0 : std::strtoull(digits.c_str(), nullptr, 10);
  return true;
}

// The region_info text: "names=<table>", "cycles_per_ns=<rate>", "record_cost_cycles=<c>" lines.
void ReadInfo(std::string_view text, CapturedLaunch* l) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    auto value = [&](std::string_view key, std::string* out) {
      if (line.substr(0, key.size()) != key) return false;
      *out = std::string(line.substr(key.size()));
      return true;
    };
    std::string v;
    if (value("names=", &v)) l->names = ParseNameTable(v);
    else if (value("cycles_per_ns=", &v)) l->cycles_per_ns = std::atof(v.c_str());
    else if (value("record_cost_cycles=", &v)) l->record_cost_cycles = std::atof(v.c_str());
  }
}

}  // namespace

std::vector<CapturedLaunch> LegacyLaunches(const fmt::ProfileReader& r) {
  std::map<uint32_t, std::string_view> info;  // module -> its region_info text
  for (size_t i = 0; i < r.blob_count(); ++i)
    if (r.blob(i).kind == fmt::BlobKind::kRegionInfo) info[r.blob(i).module] = r.blob(i).bytes;
  std::vector<CapturedLaunch> out;
  for (size_t i = 0; i < r.blob_count(); ++i) {
    fmt::BlobView b = r.blob(i);
    if (b.kind != fmt::BlobKind::kRegionBuffer) continue;
    CapturedLaunch l;
    const std::string module(r.string(r.modules()[b.module].path));
    if (!ParseModulePath(module, &l.mangled, &l.correlation_id)) l.mangled = module;
    l.bytes = std::string(b.bytes);
    if (auto it = info.find(b.module); it != info.end()) ReadInfo(it->second, &l);
    out.push_back(std::move(l));
  }
  return out;
}

bool TakeLegacyIterationSuffix(std::string* name) {
  if (name->size() <= kIterationSuffix.size() ||
      std::string_view(*name).substr(name->size() - kIterationSuffix.size()) != kIterationSuffix)
    return false;
  name->resize(name->size() - kIterationSuffix.size());
  return true;
}

}  // namespace strata::core::regions::detail
