// strata/core/profile_diff.h: both runs' views matched from the root down, child by child
// (exact frame first, then the fuzzy key at the nearest line), then one row per call path.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "strata/core/profile_diff.h"

namespace strata::core {
namespace {

// kind, name, file, line, and a fused kernel's lines (file, line): another fused group is
// another frame even where the names are equal.
using ExactKey = std::tuple<std::string, std::string, std::string, uint32_t, std::vector<std::pair<std::string, uint32_t>>>;
using FuzzyKey = std::tuple<std::string, std::string, std::string>;            // kind, base name, file

ExactKey ExactOf(const FrameInfo& f) {
  std::vector<std::pair<std::string, uint32_t>> fused;
  for (const SourceLine& l : f.fused_lines) fused.emplace_back(l.file, l.line);
  return {f.kind, f.name, f.file, f.line, std::move(fused)};
}
FuzzyKey FuzzyOf(const FrameInfo& f) {
  return {f.kind, f.kind == "kernel" ? KernelBaseName(f.name) : f.name, f.file};
}

size_t MetricIndex(const Profile& profile, const std::string& name, const char* which) {
  const auto m = FindMetric(profile, name);
  if (!m) throw Error(std::string("profile ") + which + " has no metric '" + name + "'");
  if (profile.metrics()[*m].nature != MetricNature::kAdditive)
    throw Error("'" + name + "' is an attribute (its values do not add up along paths): diff an additive metric");
  return *m;
}

View DiffSideView(const Profile& profile, size_t metric) {
  ViewOptions options;
  options.expand = false;
  options.filter = FrameFilter::kAuto;
  options.primary_metric = metric;
  return profile.BuildView(ViewKind::kTopDown, options);
}

std::vector<FrameInfo> PathOf(const View& view, size_t node) {
  std::vector<FrameInfo> path;
  for (size_t n = node; n > 0; n = size_t(view.parent[n])) path.push_back(view.frame(n));
  std::reverse(path.begin(), path.end());
  return path;
}

struct Matching {
  std::vector<int64_t> a_of_b;  // per B node: its A node, -1 when none
  std::vector<DiffMatch> match;  // per B node
  std::vector<uint8_t> a_taken;  // per A node
};

Matching MatchTrees(const View& va, const View& vb) {
  std::vector<std::vector<uint32_t>> children(va.size());
  for (size_t i = 1; i < va.size(); ++i) children[size_t(va.parent[i])].push_back(uint32_t(i));
  Matching m;
  m.a_of_b.assign(vb.size(), -1);
  m.match.assign(vb.size(), DiffMatch::kOnlyB);
  m.a_taken.assign(va.size(), 0);
  if (vb.size() == 0 || va.size() == 0) return m;
  m.a_of_b[0] = 0;
  m.match[0] = DiffMatch::kExact;
  m.a_taken[0] = 1;
  // Preorder: a parent is matched before its children. Exact matches of a parent's children are
  // taken first, so that a fuzzy match never steals a frame that has its exact twin.
  std::vector<std::vector<uint32_t>> b_children(vb.size());
  for (size_t i = 1; i < vb.size(); ++i) b_children[size_t(vb.parent[i])].push_back(uint32_t(i));
  for (size_t p = 0; p < vb.size(); ++p) {
    const int64_t pa = m.a_of_b[p];
    if (pa < 0 || b_children[p].empty()) continue;
    const auto& candidates = children[size_t(pa)];
    std::map<ExactKey, std::vector<uint32_t>> exact;
    for (uint32_t c : candidates) exact[ExactOf(va.frame(c))].push_back(c);
    for (uint32_t c : b_children[p]) {
      auto it = exact.find(ExactOf(vb.frame(c)));
      if (it == exact.end()) continue;
      for (uint32_t ca : it->second)
        if (!m.a_taken[ca]) {
          m.a_taken[ca] = 1;
          m.a_of_b[c] = ca;
          m.match[c] = DiffMatch::kExact;
          break;
        }
    }
    for (uint32_t c : b_children[p]) {
      if (m.a_of_b[c] >= 0) continue;
      const FrameInfo& fb = vb.frame(c);
      const FuzzyKey key = FuzzyOf(fb);
      int64_t best = -1;
      int64_t best_distance = 0;
      for (uint32_t ca : candidates) {
        if (m.a_taken[ca] || FuzzyOf(va.frame(ca)) != key) continue;
        const int64_t distance = std::llabs(int64_t(va.frame(ca).line) - int64_t(fb.line));
        if (best < 0 || distance < best_distance) best = ca, best_distance = distance;
      }
      if (best < 0) continue;
      m.a_taken[size_t(best)] = 1;
      m.a_of_b[c] = best;
      m.match[c] = DiffMatch::kFuzzy;
    }
  }
  return m;
}

// A path is fuzzy when any of its frames matched fuzzily.
std::vector<DiffMatch> PathMatch(const View& vb, const Matching& m) {
  std::vector<DiffMatch> out(m.match);
  for (size_t i = 1; i < vb.size(); ++i)
    if (out[i] == DiffMatch::kExact && out[size_t(vb.parent[i])] == DiffMatch::kFuzzy) out[i] = DiffMatch::kFuzzy;
  return out;
}

// Kernels by base name: time of the kernel frames (inclusive: their PC and region frames in)
// outside other kernels, and the full name of the heaviest.
std::map<std::string, std::pair<std::string, double>> Kernels(const View& v, size_t metric) {
  std::map<std::string, std::pair<std::string, double>> out;
  std::map<std::string, double> heaviest;
  std::vector<uint8_t> under(v.size(), 0);  // 1: a kernel frame or below one
  for (size_t i = 1; i < v.size(); ++i) {
    const size_t p = size_t(v.parent[i]);
    const bool kernel = v.frame(i).kind == "kernel";
    under[i] = under[p] || kernel;
    if (!kernel || under[p]) continue;
    const double value = v.metric(i, metric).inclusive;
    auto& [name, total] = out[KernelBaseName(v.frame(i).name)];
    total += value;
    double& h = heaviest[KernelBaseName(v.frame(i).name)];
    if (value > h || name.empty()) h = value, name = v.frame(i).name;
  }
  return out;
}

std::vector<KernelChange> OnlyIn(const std::map<std::string, std::pair<std::string, double>>& have,
                                 const std::map<std::string, std::pair<std::string, double>>& other) {
  std::vector<KernelChange> out;
  for (const auto& [base, named] : have)
    if (!other.count(base) && named.second > 0) out.push_back({named.first, named.second});
  std::stable_sort(out.begin(), out.end(), [](const KernelChange& x, const KernelChange& y) { return x.value > y.value; });
  return out;
}

}  // namespace

const char* DiffMatchName(DiffMatch match) {
  switch (match) {
    case DiffMatch::kExact: return "exact";
    case DiffMatch::kFuzzy: return "fuzzy";
    case DiffMatch::kOnlyB: return "only in B";
    case DiffMatch::kOnlyA: return "only in A";
  }
  return "?";
}

std::string KernelBaseName(const std::string& name) {
  std::string out;
  int angle = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    // "operator<" / "operator<<" are names, not template brackets.
    if (c == '<' && !(i >= 8 && name.compare(i - 8, 8, "operator") == 0)) { ++angle; continue; }
    if (c == '>' && angle > 0) { --angle; continue; }
    if (angle == 0) out.push_back(c);
  }
  // The parameter list: the last balanced "(...)" that ends the name.
  if (!out.empty() && out.back() == ')') {
    int depth = 0;
    for (size_t i = out.size(); i-- > 0;) {
      if (out[i] == ')') ++depth;
      else if (out[i] == '(' && --depth == 0) { out.erase(i); break; }
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

DiffView DiffProfilesView(const Profile& a, const Profile& b, const std::string& metric) {
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
  const View va = DiffSideView(a, ma);
  DiffView out;
  out.metric_b = mb;
  out.view = DiffSideView(b, mb);
  const View& vb = out.view;
  const Matching m = MatchTrees(va, vb);
  out.match = PathMatch(vb, m);
  out.a_inclusive.assign(vb.size(), 0);
  for (size_t i = 0; i < vb.size(); ++i)
    if (m.a_of_b[i] >= 0) out.a_inclusive[i] = va.metric(size_t(m.a_of_b[i]), ma).inclusive;

  ProfileDiff& diff = out.diff;
  diff.metric = a.metrics()[ma];
  diff.total_a = a.total(ma);
  diff.total_b = b.total(mb);
  for (size_t i = 1; i < vb.size(); ++i) {
    const double self_b = vb.metric(i, mb).exclusive;
    const double self_a = m.a_of_b[i] >= 0 ? va.metric(size_t(m.a_of_b[i]), ma).exclusive : 0;
    if (self_a == 0 && self_b == 0) continue;
    if (self_a != 0 && self_b != 0) {
      ++diff.common_paths;
      if (out.match[i] == DiffMatch::kFuzzy) ++diff.fuzzy_paths;
    }
    diff.rows.push_back({PathOf(vb, i), self_a, self_b, out.match[i], int64_t(i)});
  }
  for (size_t i = 1; i < va.size(); ++i) {
    if (m.a_taken[i]) continue;
    const double self_a = va.metric(i, ma).exclusive;
    if (self_a != 0) diff.rows.push_back({PathOf(va, i), self_a, 0, DiffMatch::kOnlyA, -1});
  }
  // Two different programs still share a stray path or two (a thread's start, the interpreter's
  // entry): the runs count as unrelated unless what they share is at least 1% of either total.
  double common_a = 0, common_b = 0;
  for (const DiffRow& r : diff.rows)
    if (r.a != 0 && r.b != 0) common_a += r.a, common_b += r.b;
  constexpr double kRelatedShare = 0.01;
  if (diff.common_paths == 0 ||
      (common_a < kRelatedShare * std::fabs(diff.total_a) && common_b < kRelatedShare * std::fabs(diff.total_b)))
    throw Error("no call path with " + name + " is common to both profiles" +
                (diff.common_paths ? " (the " + std::to_string(diff.common_paths) + " they share hold under 1% of either run)" : std::string()) +
                ": not two runs of one program?");
  std::stable_sort(diff.rows.begin(), diff.rows.end(), [](const DiffRow& x, const DiffRow& y) {
    return std::fabs(x.change()) > std::fabs(y.change());
  });
  const auto ka = Kernels(va, ma), kb = Kernels(vb, mb);
  diff.appeared = OnlyIn(kb, ka);
  diff.vanished = OnlyIn(ka, kb);
  return out;
}

ProfileDiff DiffProfiles(const Profile& a, const Profile& b, const std::string& metric) {
  return DiffProfilesView(a, b, metric).diff;
}

}  // namespace strata::core
