#include "gpu/activity/pc_sample_frames.h"

#include <cstdio>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gpu/cupti/pc_sampling.h"

namespace strata::rt::gpu {

void AddPcSampleFrames(Attribution& a, Cct::Unlocked& u) {
  std::vector<pcs::PcRecord> recs = pcs::TakeRecords();
  if (recs.empty()) return;
  std::vector<std::string> names = pcs::StallNames();
  uint32_t m_samples = u.Metric("pc_samples", "count");
  std::vector<uint32_t> m_stall(names.size());
  for (size_t i = 0; i < names.size(); ++i) m_stall[i] = u.Metric("stall_" + names[i], "count");
  auto samples_of = [](const pcs::PcRecord& r) {
    uint64_t total = 0;
    for (uint32_t c : r.counts) total += c;
    return total;
  };
  // The profile carries, per cubin, the code of the functions with samples only.
  std::unordered_map<uint64_t, std::vector<std::string>> sampled;  // crc -> functions
  std::set<std::pair<uint64_t, const std::string*>> seen;  // (crc, function) pairs listed
  for (const pcs::PcRecord& r : recs)
    if (samples_of(r) && seen.emplace(r.crc, r.function).second) sampled[r.crc].push_back(*r.function);
  std::unordered_map<uint64_t, uint32_t> modules;  // crc -> module
  uint32_t unknown_kernel = 0;
  for (const pcs::PcRecord& r : recs) {
    uint64_t total = samples_of(r);
    if (!total) continue;
    auto mit = modules.find(r.crc);
    if (mit == modules.end()) {
      char hex[32];
      snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)r.crc);
      uint32_t m = u.Module(std::string("cubin:") + hex, hex, 0);
      std::string bytes = pcs::SampledCode(r.crc, sampled[r.crc]);
      if (!bytes.empty()) u.Blob(m, strata::format::BlobKind::kCubin, bytes);
      mit = modules.emplace(r.crc, m).first;
    }
    uint32_t frame = u.Frame(Cct::FrameKind::kPc, mit->second, r.pc, *r.function, "", 0);
    std::vector<std::pair<uint32_t, double>> targets;  // kernel node, share
    if (r.corr) {
      auto k = a.kernel_of_corr.find(r.corr);
      if (k != a.kernel_of_corr.end()) targets.emplace_back(k->second, 1.0);
    }
    if (targets.empty()) {
      auto k = a.kernel_nodes.find(*r.function);
      if (k != a.kernel_nodes.end()) {
        double sum = 0;
        for (auto& [node, w] : k->second) sum += w;
        for (auto& [node, w] : k->second) targets.emplace_back(node, w / sum);
      }
    }
    if (targets.empty()) {  // a kernel whose activity record never came (should not happen)
      if (!unknown_kernel) {
        uint32_t f = a.KernelFrame(u, "<kernel without activity record>");
        unknown_kernel = a.ChildNode(u, a.UnattributedNode(u), f);
      }
      targets.emplace_back(unknown_kernel, 1.0);
    }
    for (auto& [kernel_node, share] : targets) {
      uint32_t node = a.ChildNode(u, kernel_node, frame);
      u.AddAt(node, m_samples, double(total) * share);
      for (size_t s = 0; s < r.counts.size() && s < m_stall.size(); ++s)
        if (r.counts[s]) u.AddAt(node, m_stall[s], double(r.counts[s]) * share);
    }
  }
}

}  // namespace strata::rt::gpu
