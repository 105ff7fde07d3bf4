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

// Lean: the compared metric's values only (View::values), as the viewer's views are.
View DiffSideView(const Profile& profile, size_t metric) {
  ViewOptions options;
  options.expand = false;
  options.all_metrics = false;
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

// The frames of both runs' tables as small integers: equal exact keys (and equal fuzzy keys)
// get equal ids across the two tables, so that matching a million nodes compares integers.
struct FrameKeys {
  std::vector<uint32_t> exact_a, exact_b, fuzzy_a, fuzzy_b;  // per frame table entry
};

FrameKeys KeysOf(const std::vector<FrameInfo>& ta, const std::vector<FrameInfo>& tb) {
  FrameKeys k;
  std::map<ExactKey, uint32_t> exact;
  std::map<FuzzyKey, uint32_t> fuzzy;
  for (const auto& [table, ex, fz] : {std::tuple{&ta, &k.exact_a, &k.fuzzy_a}, std::tuple{&tb, &k.exact_b, &k.fuzzy_b}}) {
    ex->reserve(table->size());
    fz->reserve(table->size());
    for (const FrameInfo& f : *table) {
      ex->push_back(exact.emplace(ExactOf(f), uint32_t(exact.size())).first->second);
      fz->push_back(fuzzy.emplace(FuzzyOf(f), uint32_t(fuzzy.size())).first->second);
    }
  }
  return k;
}

// A view's children as CSR: node p's are child[offset[p] .. offset[p + 1]), in view order.
struct Children {
  std::vector<uint32_t> offset, child;
  explicit Children(const View& v) : offset(v.size() + 1, 0), child(v.size() ? v.size() - 1 : 0) {
    for (size_t i = 1; i < v.size(); ++i) ++offset[size_t(v.parent[i]) + 1];
    for (size_t i = 0; i < v.size(); ++i) offset[i + 1] += offset[i];
    std::vector<uint32_t> fill(offset.begin(), offset.end() - 1);
    for (size_t i = 1; i < v.size(); ++i) child[fill[size_t(v.parent[i])]++] = uint32_t(i);
  }
};

struct Matching {
  std::vector<int64_t> a_of_b;  // per B node: its A node, -1 when none
  std::vector<DiffMatch> match;  // per B node
  std::vector<uint8_t> a_taken;  // per A node
};

Matching MatchTrees(const View& va, const View& vb) {
  const FrameKeys keys = KeysOf(*va.frame_table, *vb.frame_table);
  const Children ca(va), cb(vb);
  Matching m;
  m.a_of_b.assign(vb.size(), -1);
  m.match.assign(vb.size(), DiffMatch::kOnlyB);
  m.a_taken.assign(va.size(), 0);
  if (vb.size() == 0 || va.size() == 0) return m;
  m.a_of_b[0] = 0;
  m.match[0] = DiffMatch::kExact;
  m.a_taken[0] = 1;
  // Preorder: a parent is matched before its children. Exact matches of a parent's children are
  // taken first, so that a fuzzy match never steals a frame that has its exact twin. A's
  // candidates sorted by key (then by their order in A: the first free one is taken).
  std::vector<std::pair<uint32_t, uint32_t>> by_exact, by_fuzzy;  // (key, A node)
  for (size_t p = 0; p < vb.size(); ++p) {
    const int64_t pa = m.a_of_b[p];
    if (pa < 0 || cb.offset[p] == cb.offset[p + 1]) continue;
    by_exact.clear();
    by_fuzzy.clear();
    for (uint32_t k = ca.offset[size_t(pa)]; k < ca.offset[size_t(pa) + 1]; ++k) {
      const uint32_t c = ca.child[k];
      by_exact.emplace_back(keys.exact_a[va.frame_id[c]], c);
      by_fuzzy.emplace_back(keys.fuzzy_a[va.frame_id[c]], c);
    }
    if (by_exact.empty()) continue;
    std::sort(by_exact.begin(), by_exact.end());
    std::sort(by_fuzzy.begin(), by_fuzzy.end());
    for (uint32_t k = cb.offset[p]; k < cb.offset[p + 1]; ++k) {
      const uint32_t c = cb.child[k];
      const uint32_t key = keys.exact_b[vb.frame_id[c]];
      for (auto it = std::lower_bound(by_exact.begin(), by_exact.end(), std::pair{key, uint32_t(0)});
           it != by_exact.end() && it->first == key; ++it)
        if (!m.a_taken[it->second]) {
          m.a_taken[it->second] = 1;
          m.a_of_b[c] = it->second;
          m.match[c] = DiffMatch::kExact;
          break;
        }
    }
    for (uint32_t k = cb.offset[p]; k < cb.offset[p + 1]; ++k) {
      const uint32_t c = cb.child[k];
      if (m.a_of_b[c] >= 0) continue;
      const uint32_t key = keys.fuzzy_b[vb.frame_id[c]];
      const int64_t line = vb.frame(c).line;
      int64_t best = -1;
      int64_t best_distance = 0;
      for (auto it = std::lower_bound(by_fuzzy.begin(), by_fuzzy.end(), std::pair{key, uint32_t(0)});
           it != by_fuzzy.end() && it->first == key; ++it) {
        if (m.a_taken[it->second]) continue;
        const int64_t distance = std::llabs(int64_t(va.frame(it->second).line) - line);
        if (best < 0 || distance < best_distance) best = it->second, best_distance = distance;
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
// outside other kernels, and the full name of the heaviest. Names per frame table entry, once.
std::map<std::string, std::pair<std::string, double>> Kernels(const View& v) {
  std::map<std::string, std::pair<std::string, double>> out;
  std::map<std::string, double> heaviest;
  const auto& table = *v.frame_table;
  std::vector<uint8_t> kernel_frame(table.size());
  for (size_t f = 0; f < table.size(); ++f) kernel_frame[f] = table[f].kind == "kernel";
  std::vector<std::string> base(table.size());
  std::vector<uint8_t> under(v.size(), 0);  // 1: a kernel frame or below one
  for (size_t i = 1; i < v.size(); ++i) {
    const size_t p = size_t(v.parent[i]);
    const uint32_t f = v.frame_id[i];
    const bool kernel = kernel_frame[f];
    under[i] = under[p] || kernel;
    if (!kernel || under[p]) continue;
    if (base[f].empty()) base[f] = KernelBaseName(table[f].name);
    const double value = v.values[i].inclusive;
    auto& [name, total] = out[base[f]];
    total += value;
    double& h = heaviest[base[f]];
    if (value > h || name.empty()) h = value, name = table[f].name;
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

DiffView DiffProfilesView(const Profile& a, const Profile& b, const std::string& metric, size_t max_rows) {
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
    if (m.a_of_b[i] >= 0) out.a_inclusive[i] = va.values[size_t(m.a_of_b[i])].inclusive;
  for (size_t i = 1; i < vb.size(); ++i)
    out.largest_change = std::max(out.largest_change, std::fabs(vb.values[i].inclusive - out.a_inclusive[i]));

  ProfileDiff& diff = out.diff;
  diff.metric = a.metrics()[ma];
  diff.total_a = a.total(ma);
  diff.total_b = b.total(mb);
  // Every path's row without its frames (a million paths of a large pair): ranked, then only the
  // rows kept get their frames.
  struct Row { double a, b; DiffMatch match; int64_t node_b, node_a; };
  std::vector<Row> rows;
  for (size_t i = 1; i < vb.size(); ++i) {
    const double self_b = vb.values[i].exclusive;
    const double self_a = m.a_of_b[i] >= 0 ? va.values[size_t(m.a_of_b[i])].exclusive : 0;
    if (self_a == 0 && self_b == 0) continue;
    if (self_a != 0 && self_b != 0) {
      ++diff.common_paths;
      if (out.match[i] == DiffMatch::kFuzzy) ++diff.fuzzy_paths;
    }
    rows.push_back({self_a, self_b, out.match[i], int64_t(i), m.a_of_b[i]});
  }
  for (size_t i = 1; i < va.size(); ++i) {
    if (m.a_taken[i]) continue;
    const double self_a = va.values[i].exclusive;
    if (self_a != 0) rows.push_back({self_a, 0, DiffMatch::kOnlyA, -1, int64_t(i)});
  }
  // Two different programs still share a stray path or two (a thread's start, the interpreter's
  // entry): the runs count as unrelated unless what they share is at least 1% of either total.
  double common_a = 0, common_b = 0;
  for (const Row& r : rows) {
    if (r.a != 0 && r.b != 0) common_a += r.a, common_b += r.b;
    if (r.b == 0) ++diff.only_a_paths;
    if (r.a == 0) ++diff.only_b_paths;
  }
  constexpr double kRelatedShare = 0.01;
  if (diff.common_paths == 0 ||
      (common_a < kRelatedShare * std::fabs(diff.total_a) && common_b < kRelatedShare * std::fabs(diff.total_b)))
    throw Error("no call path with " + name + " is common to both profiles" +
                (diff.common_paths ? " (the " + std::to_string(diff.common_paths) + " they share hold under 1% of either run)" : std::string()) +
                ": not two runs of one program?");
  std::stable_sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) {
    return std::fabs(x.b - x.a) > std::fabs(y.b - y.a);
  });
  const size_t kept = max_rows == 0 ? rows.size() : std::min(max_rows, rows.size());
  diff.rows.reserve(kept);
  for (size_t k = 0; k < kept; ++k) {
    const Row& r = rows[k];
    diff.rows.push_back({r.node_b >= 0 ? PathOf(vb, size_t(r.node_b)) : PathOf(va, size_t(r.node_a)), r.a, r.b, r.match, r.node_b});
  }
  const auto ka = Kernels(va), kb = Kernels(vb);
  diff.appeared = OnlyIn(kb, ka);
  diff.vanished = OnlyIn(ka, kb);
  return out;
}

ProfileDiff DiffProfiles(const Profile& a, const Profile& b, const std::string& metric, size_t max_rows) {
  return DiffProfilesView(a, b, metric, max_rows).diff;
}

}  // namespace strata::core
