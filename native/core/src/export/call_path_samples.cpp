#include "call_path_samples.h"

namespace strata::core::detail {

CallPathSamples CollectCallPathSamples(const Profile& profile) {
  CallPathSamples out;
  const auto& infos = profile.metrics();
  for (size_t m = 0; m < infos.size(); ++m)
    if (infos[m].nature == MetricNature::kAdditive) out.metrics.push_back(m);

  ViewOptions options;
  options.expand = false;
  options.filter = FrameFilter::kAll;
  const View view = profile.BuildView(ViewKind::kTopDown, options);
  out.frames = view.frame_table;

  // Preorder with parent[i] < i: each node's path is its parent's plus itself.
  std::vector<std::vector<uint32_t>> paths(view.size());
  for (size_t i = 1; i < view.size(); ++i) {
    const int32_t parent = view.parent[i];
    if (parent > 0) paths[i] = paths[size_t(parent)];
    paths[i].push_back(view.frame_id[i]);
  }
  for (size_t i = 0; i < view.size(); ++i) {
    CallPathSample sample;
    bool any = false;
    for (size_t m : out.metrics) {
      const double v = view.metric(i, m).exclusive;
      sample.values.push_back(v);
      any = any || v != 0;
    }
    if (!any) continue;
    sample.path = paths[i];
    out.samples.push_back(std::move(sample));
  }
  return out;
}

std::string ExportFrameName(const FrameInfo& f) {
  std::string name = f.name.empty() ? "[" + f.kind + "]" : f.name;
  for (size_t i = 0; i < f.fused_lines.size(); ++i) {
    const SourceLine& l = f.fused_lines[i];
    const size_t slash = l.file.rfind('/');
    name += (i ? ", " : ": ") + (slash == std::string::npos ? l.file : l.file.substr(slash + 1)) + ":" + std::to_string(l.line);
  }
  return name;
}

}  // namespace strata::core::detail
