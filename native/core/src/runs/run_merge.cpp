#include "strata/core/run_merge.h"

#include <filesystem>
#include <string>
#include <unordered_map>

#include "member_profile.h"
#include "strata/format/reader.h"
#include "strata/format/writer.h"

namespace strata::core {
namespace {

namespace fmt = strata::format;

// Copies one process's tree under a new process frame below the writer's root.
void AddProcess(const RunMember& m, const fmt::ProfileReader& r, fmt::ProfileWriter* w) {
  std::vector<uint32_t> module_of(r.modules().size);
  for (size_t i = 0; i < r.modules().size; ++i) {
    const auto& mod = r.modules()[i];
    module_of[i] = w->Module(r.string(mod.path), r.string(mod.build_id), mod.load_bias);
  }
  std::vector<uint32_t> frame_of(r.frames().size);
  for (size_t i = 0; i < r.frames().size; ++i) {
    const auto& f = r.frames()[i];
    const uint32_t module = f.module == fmt::kNone ? fmt::kNone : module_of[f.module];
    std::vector<fmt::SourceLine> fused;  // a fused kernel's lines travel with its frame
    for (const auto& l : r.frame_source_lines(uint32_t(i), fmt::SourceLinesRole::kFused))
      fused.push_back({std::string(r.string(l.file)), std::string(r.string(l.function)), l.line});
    frame_of[i] = w->Frame(fmt::FrameKind(f.kind), module, f.address, r.string(f.name), r.string(f.file), f.line, f.flags,
                           fmt::SourceLinesRole::kFused, fused);
  }
  std::vector<uint32_t> metric_of(r.metrics().size);
  for (size_t i = 0; i < r.metrics().size; ++i)
    metric_of[i] = w->Metric(r.string(r.metrics()[i].name), r.string(r.metrics()[i].unit));

  const uint32_t process_frame = w->Frame(fmt::FrameKind::kProcess, fmt::kNone, uint64_t(m.pid < 0 ? 0 : m.pid),
                                          ProcessFrameName(m), "", 0);
  // Parents precede children in the stored tree (the reader checked it): one pass.
  std::vector<uint32_t> node_of(r.nodes().size);
  node_of[0] = w->Child(0, process_frame);
  for (size_t i = 1; i < r.nodes().size; ++i)
    node_of[i] = w->Child(node_of[r.nodes()[i].parent], frame_of[r.nodes()[i].frame]);
  for (const auto& nm : r.node_metrics()) {
    fmt::MetricStats s;
    s.count = nm.count;
    s.sum = nm.sum;
    s.min = nm.min;
    s.max = nm.max;
    s.m2 = nm.m2;
    w->AddStats(node_of[nm.node], metric_of[nm.metric], s);
  }
  for (size_t i = 0; i < r.blob_count(); ++i) {
    const fmt::BlobView b = r.blob(i);
    w->Blob(module_of[b.module], b.kind, b.bytes);
  }
}

}  // namespace

std::string ProcessFrameName(const RunMember& member) {
  const std::string pid = "pid " + std::to_string(member.pid);
  return member.command.empty() ? pid : member.command + " (" + pid + ")";
}

std::unique_ptr<Profile> MergeRun(const std::vector<RunMember>& members, const OpenOptions& options) {
  if (members.empty()) throw Error("no process to merge");
  fmt::ProfileWriter w;
  for (size_t k = 0; k < members.size(); ++k) {
    const RunMember& m = members[k];
    std::vector<unsigned char> bytes;
    const fmt::ProfileReader r = detail::ParseMemberProfile(m.path, &bytes);
    if (k == 0)
      for (const auto& e : r.meta()) w.Meta(r.string(e.key), r.string(e.value));
    AddProcess(m, r, &w);
  }
  w.Meta("processes", std::to_string(members.size()));
  w.Meta("run", std::filesystem::path(members.front().path).parent_path().string());
  return Profile::FromBytes(w.Serialize(), options);
}

}  // namespace strata::core
