// A profile's kernels with GPU code: the cubin and listing blobs of each pc frame's module, the
// function whose demangled name is the kernel frame's, and the pc frames' samples by stall
// reason (metrics stall_<reason>; pc_samples alone where the reasons are absent).
#include <llvm/Demangle/Demangle.h>

#include <map>

#include "../gpu_code/sass_listing.h"
#include "../rewrite.h"
#include "strata/core/api.h"
#include "strata/core/sass_deps.h"
#include "strata/format/reader.h"

namespace strata::core {
namespace fmt = strata::format;

std::map<std::string, ProfileGpuCode> ReadProfileGpuCode(const std::string& path) {
  std::vector<unsigned char> bytes = detail::ReadProfileBytes(path);
  std::map<std::string, ProfileGpuCode> code;
  try {
    fmt::ProfileReader r = fmt::ProfileReader::Parse(bytes.data(), bytes.size());
    for (size_t i = 0; i < r.blob_count(); ++i) {
      fmt::BlobView b = r.blob(i);
      if (b.module >= r.modules().size) continue;
      ProfileGpuCode& c = code[std::string(r.string(r.modules()[b.module].path))];
      if (b.kind == fmt::BlobKind::kCubin) c.cubin = std::string(b.bytes);
      else if (b.kind == fmt::BlobKind::kSassListing) c.listing = std::string(b.bytes);
    }
  } catch (const fmt::ReadError& e) {
    throw Error(e.what());
  }
  return code;
}

std::string ListingFunctionOf(std::string_view listing, const std::string& kernel) {
  gpu::SassListing l = gpu::ParseSassListing(listing);
  for (const auto& [name, _] : l.functions)
    if (name == kernel || llvm::demangle(name) == kernel) return name;
  return "";
}

std::vector<ProfileKernelCode> ReadProfileKernelCode(const std::string& path) {
  std::unique_ptr<Profile> profile = Profile::Open(path);
  std::map<std::string, ProfileGpuCode> code = ReadProfileGpuCode(path);
  View v = profile->BuildView(ViewKind::kTopDown, ViewOptions{});
  std::vector<std::pair<size_t, std::string>> reasons;  // metric, reason
  std::optional<size_t> pc_samples;
  for (size_t k = 0; k < profile->metrics().size(); ++k) {
    const std::string& n = profile->metrics()[k].name;
    if (n.rfind("stall_", 0) == 0 && n != "stall_sample_count" && n != "stall_samples_data_dropped") reasons.push_back({k, n.substr(6)});
    if (n == "pc_samples") pc_samples = k;
  }
  std::vector<std::vector<NodeMetric>> columns;
  for (const auto& [k, _] : reasons) columns.push_back(profile->MetricColumn(v, k));
  std::vector<NodeMetric> pcs;
  if (pc_samples) pcs = profile->MetricColumn(v, *pc_samples);
  std::optional<std::vector<NodeMetric>> block, dynamic;  // launch configuration of the kernels
  for (size_t k = 0; k < profile->metrics().size(); ++k) {
    if (profile->metrics()[k].name == "block_size") block = profile->MetricColumn(v, k);
    if (profile->metrics()[k].name == "dynamic_shared_bytes") dynamic = profile->MetricColumn(v, k);
  }
  std::map<std::pair<std::string, std::string>, ProfileKernelCode> kernels;  // (module, kernel name)
  for (size_t n = 1; n < v.size(); ++n) {
    const FrameInfo& f = v.frame(n);
    if (f.kind != "pc" || f.module.empty()) continue;
    const int32_t parent = v.parent[n];
    if (parent < 0 || v.frame(size_t(parent)).kind != "kernel") continue;
    auto c = code.find(f.module);
    if (c == code.end() || c->second.listing.empty()) continue;
    ProfileKernelCode& kc = kernels[{f.module, v.frame(size_t(parent)).name}];
    if (kc.kernel.empty()) {
      kc.kernel = v.frame(size_t(parent)).name;
      kc.cubin = c->second.cubin;
      kc.listing = c->second.listing;
      if (block) kc.threads = uint32_t((*block)[size_t(parent)].max);
      if (dynamic) kc.dynamic_shared_bytes = uint64_t((*dynamic)[size_t(parent)].max);
    }
    auto& at = kc.samples[f.address];
    bool any = false;
    for (size_t r = 0; r < reasons.size(); ++r)
      if (columns[r][n].exclusive > 0) at[reasons[r].second] += columns[r][n].exclusive, any = true;
    if (!any && pc_samples && pcs[n].exclusive > 0) at[""] += pcs[n].exclusive;
  }
  std::vector<ProfileKernelCode> out;
  for (auto& [key, kc] : kernels) {
    kc.function = ListingFunctionOf(kc.listing, kc.kernel);
    if (!kc.function.empty()) out.push_back(std::move(kc));
  }
  return out;
}

}  // namespace strata::core
