// strata/core/profile_diff.h: self values per call path of each run, keyed by the frames' typed
// fields, merged into rows.
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "strata/core/profile_diff.h"

namespace strata::core {
namespace {

// kind, name, file, line, and a fused kernel's lines (file, line): another fused group is
// another frame even where the names are equal.
using FrameKey = std::tuple<std::string, std::string, std::string, uint32_t, std::vector<std::pair<std::string, uint32_t>>>;
using PathKey = std::vector<FrameKey>;

FrameKey KeyOf(const FrameInfo& f) {
  std::vector<std::pair<std::string, uint32_t>> fused;
  for (const SourceLine& l : f.fused_lines) fused.emplace_back(l.file, l.line);
  return {f.kind, f.name, f.file, f.line, std::move(fused)};
}

struct PathValue {
  std::vector<FrameInfo> path;
  double a = 0, b = 0;
  bool in_a = false, in_b = false;
};

void AddSelfValues(const Profile& profile, size_t metric, bool is_a, std::map<PathKey, PathValue>* out) {
  ViewOptions options;
  options.expand = false;
  options.filter = FrameFilter::kAuto;
  options.primary_metric = metric;
  const View view = profile.BuildView(ViewKind::kTopDown, options);
  std::vector<PathKey> keys(view.size());
  for (size_t i = 1; i < view.size(); ++i) {
    keys[i] = keys[size_t(view.parent[i])];
    keys[i].push_back(KeyOf(view.frame(i)));
    const double v = view.metric(i, metric).exclusive;
    if (v == 0) continue;
    PathValue& row = (*out)[keys[i]];
    if (row.path.empty())
      for (size_t n = i; n > 0; n = size_t(view.parent[n])) row.path.insert(row.path.begin(), view.frame(n));
    (is_a ? row.a : row.b) += v;
    (is_a ? row.in_a : row.in_b) = true;
  }
}

size_t MetricIndex(const Profile& profile, const std::string& name, const char* which) {
  const auto m = FindMetric(profile, name);
  if (!m) throw Error(std::string("profile ") + which + " has no metric '" + name + "'");
  if (profile.metrics()[*m].nature != MetricNature::kAdditive)
    throw Error("'" + name + "' is an attribute (its values do not add up along paths): diff an additive metric");
  return *m;
}

}  // namespace

ProfileDiff DiffProfiles(const Profile& a, const Profile& b, const std::string& metric) {
  std::string name = metric;
  if (name.empty()) {
    for (const MetricInfo& m : a.metrics())
      if (m.nature == MetricNature::kAdditive && FindMetric(b, m.name)) {
        name = m.name;
        break;
      }
    if (name.empty()) throw Error("the two profiles have no additive metric in common");
  }
  const size_t ma = MetricIndex(a, name, "A"), mb = MetricIndex(b, name, "B");

  std::map<PathKey, PathValue> paths;
  AddSelfValues(a, ma, true, &paths);
  AddSelfValues(b, mb, false, &paths);

  ProfileDiff diff;
  diff.metric = a.metrics()[ma];
  diff.total_a = a.total(ma);
  diff.total_b = b.total(mb);
  for (auto& [key, value] : paths) {
    if (value.in_a && value.in_b) ++diff.common_paths;
    diff.rows.push_back({std::move(value.path), value.a, value.b});
  }
  if (diff.common_paths == 0)
    throw Error("no call path with " + name + " is common to both profiles: not two runs of one program?");
  std::stable_sort(diff.rows.begin(), diff.rows.end(), [](const DiffRow& x, const DiffRow& y) {
    return std::fabs(x.change()) > std::fabs(y.change());
  });
  return diff;
}

}  // namespace strata::core
