#include "gpu/activity/pc_sample_frames.h"

#include <cstdio>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gpu/activity/pc_detail.h"
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

  // Where each record's samples land: the launch's own node when CUPTI tagged the launch
  // (serialized), else the function's nodes by their GPU time.
  struct Part {
    size_t record;
    double share;
  };
  std::vector<Part> parts;
  std::vector<PcShare> shares;
  std::unordered_map<uint64_t, std::unordered_map<uint64_t, std::unordered_map<const std::string*, uint32_t>>> site_of;
  uint32_t sites = 0;
  uint32_t unknown_kernel = 0;
  for (size_t i = 0; i < recs.size(); ++i) {
    const pcs::PcRecord& r = recs[i];
    uint64_t total = samples_of(r);
    if (!total) continue;
    auto [sit, fresh] = site_of[r.crc][r.pc].emplace(r.function, sites);
    sites += fresh;
    std::vector<std::pair<uint32_t, double>> targets;  // kernel node, share
    size_t original = 0;  // the target whose share is no copy (pc_detail.h): the heaviest
    if (r.corr) {
      auto k = a.kernel_of_corr.find(r.corr);
      if (k != a.kernel_of_corr.end()) targets.emplace_back(k->second, 1.0);
    }
    if (targets.empty()) {
      auto k = a.kernel_nodes.find(*r.function);
      if (k != a.kernel_nodes.end()) {
        double sum = 0, heaviest = -1;
        for (auto& [node, w] : k->second) sum += w;
        for (auto& [node, w] : k->second) {
          if (w > heaviest) heaviest = w, original = targets.size();
          targets.emplace_back(node, w / sum);
        }
      }
    }
    if (targets.empty()) {  // a kernel whose activity record never came (should not happen)
      if (!unknown_kernel) {
        uint32_t f = a.KernelFrame(u, "<kernel without activity record>");
        unknown_kernel = a.ChildNode(u, a.UnattributedNode(u), f);
      }
      targets.emplace_back(unknown_kernel, 1.0);
    }
    for (size_t t = 0; t < targets.size(); ++t) {
      parts.push_back({i, targets[t].second});
      shares.push_back({targets[t].first, sit->second, double(total) * targets[t].second, t != original});
    }
  }
  PcDetailPlan plan = PlanPcDetail(shares, pcs::DetailBudget());

  // The profile carries, per cubin, the code of the functions with itemized PCs only.
  std::unordered_map<uint64_t, std::vector<std::string>> coded;  // crc -> functions
  std::set<std::pair<uint64_t, const std::string*>> seen;
  for (size_t j = 0; j < parts.size(); ++j) {
    const pcs::PcRecord& r = recs[parts[j].record];
    if (plan.itemized[j] && seen.emplace(r.crc, r.function).second) coded[r.crc].push_back(*r.function);
  }
  std::unordered_map<uint64_t, uint32_t> modules;  // crc -> module
  // The rest, per kernel node in first-seen order: pc_samples, then by stall id.
  std::unordered_map<uint32_t, size_t> rest_of;
  std::vector<std::pair<uint32_t, std::vector<double>>> rest;
  for (size_t j = 0; j < parts.size(); ++j) {
    const pcs::PcRecord& r = recs[parts[j].record];
    const double share = parts[j].share;
    const uint32_t kernel_node = shares[j].kernel_node;
    if (!plan.itemized[j]) {
      auto [it, fresh] = rest_of.emplace(kernel_node, rest.size());
      if (fresh) rest.emplace_back(kernel_node, std::vector<double>(1 + m_stall.size(), 0.0));
      std::vector<double>& sums = rest[it->second].second;
      sums[0] += shares[j].samples;
      for (size_t s = 0; s < r.counts.size() && s < m_stall.size(); ++s) sums[1 + s] += double(r.counts[s]) * share;
      continue;
    }
    auto mit = modules.find(r.crc);
    if (mit == modules.end()) {
      char hex[32];
      snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)r.crc);
      uint32_t m = u.Module(std::string("cubin:") + hex, hex, 0);
      std::string bytes = pcs::SampledCode(r.crc, coded[r.crc]);
      if (!bytes.empty()) u.Blob(m, strata::format::BlobKind::kCubin, bytes);
      mit = modules.emplace(r.crc, m).first;
    }
    uint32_t frame = u.Frame(Cct::FrameKind::kPc, mit->second, r.pc, *r.function, "", 0);
    uint32_t node = a.ChildNode(u, kernel_node, frame);
    u.AddAt(node, m_samples, shares[j].samples);
    for (size_t s = 0; s < r.counts.size() && s < m_stall.size(); ++s)
      if (r.counts[s]) u.AddAt(node, m_stall[s], double(r.counts[s]) * share);
  }
  for (auto& [node, sums] : rest) {
    u.AddAt(node, m_samples, sums[0]);
    for (size_t s = 0; s < m_stall.size(); ++s)
      if (sums[1 + s] > 0) u.AddAt(node, m_stall[s], sums[1 + s]);
  }
  pcs::PcDetailNote note;
  note.pairs = plan.pairs;
  note.pairs_itemized = plan.pairs_itemized;
  note.sites = plan.sites;
  note.sites_itemized = plan.sites_itemized;
  note.samples = plan.samples;
  note.samples_itemized = plan.samples_itemized;
  note.site_samples_itemized = plan.site_samples_itemized;
  pcs::NoteDetail(note);
}

}  // namespace strata::rt::gpu
