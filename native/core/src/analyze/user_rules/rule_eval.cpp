#include "rule_eval.h"

#include <fnmatch.h>

#include <algorithm>

#include "../../value_format.h"

namespace strata::core::detail {

namespace {

enum class Func { kInclusive, kExclusive, kCount, kMean, kMin, kMax, kStd, kShare, kSelfShare };

Func FuncOf(const std::string& func) {
  if (func == "inclusive") return Func::kInclusive;
  if (func == "exclusive") return Func::kExclusive;
  if (func == "count") return Func::kCount;
  if (func == "mean") return Func::kMean;
  if (func == "min") return Func::kMin;
  if (func == "max") return Func::kMax;
  if (func == "std") return Func::kStd;
  if (func == "share") return Func::kShare;
  return Func::kSelfShare;
}

double Value(const AnalysisContext& cx, size_t n, size_t k, Func func) {
  // The judged phases (the steady state unless all phases are asked for), as the built-in rules;
  // mean, min, max and std are a node's own statistics, 0 outside the judged phases.
  const NodeMetric& m = cx.metric(n, k);
  double total = cx.Total(k);
  if (!cx.judged(n) && func != Func::kInclusive && func != Func::kShare) return 0;
  switch (func) {
    case Func::kInclusive: return cx.Incl(n, k);
    case Func::kExclusive: return m.exclusive;
    case Func::kCount: return double(m.count);
    case Func::kMean: return m.mean;
    case Func::kMin: return m.min;
    case Func::kMax: return m.max;
    case Func::kStd: return m.std;
    case Func::kShare: return total > 0 ? cx.Incl(n, k) / total : 0;
    case Func::kSelfShare: return total > 0 ? m.exclusive / total : 0;
  }
  return 0;
}

double Value(const AnalysisContext& cx, size_t n, size_t k, const std::string& func) {
  return Value(cx, n, k, FuncOf(func));
}

bool Compare(double a, const std::string& op, double b) {
  if (op == ">") return a > b;
  if (op == ">=") return a >= b;
  if (op == "<") return a < b;
  if (op == "<=") return a <= b;
  if (op == "==") return a == b;
  return a != b;
}

bool Glob(const std::string& pattern, const std::string& s) {
  return pattern == "*" || fnmatch(pattern.c_str(), s.c_str(), 0) == 0;
}

bool MatchFrame(const FrameMatcher& m, const FrameInfo& f) {
  return (m.kind == "*" || m.kind == f.kind) && Glob(m.name, f.name) && Glob(m.file, f.file);
}

// Whether matcher i matches frame-table entry f, computed once per (matcher, frame).
class FrameMatchCache {
 public:
  FrameMatchCache(const std::vector<FrameMatcher>& pattern, const std::vector<FrameInfo>& table)
      : pattern_(pattern), table_(table), memo_(pattern.size(), std::vector<int8_t>(table.size(), -1)) {}
  bool operator()(size_t i, uint32_t frame) {
    int8_t& m = memo_[i][frame];
    if (m < 0) m = MatchFrame(pattern_[i], table_[frame]) ? 1 : 0;
    return m;
  }

 private:
  const std::vector<FrameMatcher>& pattern_;
  const std::vector<FrameInfo>& table_;
  std::vector<std::vector<int8_t>> memo_;
};

// Does `pattern` match the whole `path` (frame ids, root side first)? "..." matches any run.
bool MatchPath(const std::vector<FrameMatcher>& pattern, const std::vector<uint32_t>& path, FrameMatchCache& match,
               std::vector<char>& cur, std::vector<char>& next) {
  // dp over (pattern index, path index), small sizes.
  const size_t P = pattern.size(), N = path.size();
  cur.assign(N + 1, 0);
  next.assign(N + 1, 0);
  cur[0] = 1;  // empty pattern prefix matches empty path prefix
  for (size_t i = 0; i < P; ++i) {
    std::fill(next.begin(), next.end(), 0);
    for (size_t j = 0; j <= N; ++j) {
      if (!cur[j]) continue;
      if (pattern[i].any_run) {
        for (size_t t = j; t <= N; ++t) next[t] = 1;
        break;
      }
      if (j < N && match(i, path[j])) next[j + 1] = 1;
    }
    std::swap(cur, next);
  }
  return cur[N];
}

std::string Fill(const AnalysisContext& cx, const UserRule& rule, size_t n, const std::string& message) {
  std::string out;
  const FrameInfo& f = cx.frame(n);
  for (size_t i = 0; i < message.size(); ++i) {
    if (message[i] != '{') { out += message[i]; continue; }
    size_t close = message.find('}', i);
    if (close == std::string::npos) { out += message.substr(i); break; }
    std::string key = message.substr(i + 1, close - i - 1);
    i = close;
    if (key == "name") out += f.name;
    else if (key == "file") out += f.file;
    else if (key == "line") out += std::to_string(f.line);
    else if (key == "kind") out += f.kind;
    else if (key == "location") { FindingFrame l = cx.Location(n); out += Where(l.name, l.file, l.line); }
    else {
      size_t open = key.find('('), end = key.find(')');
      auto k = open != std::string::npos && end != std::string::npos ? cx.metric_index(key.substr(open + 1, end - open - 1))
                                                                      : std::nullopt;
      if (!k) { out += "{" + key + "}"; continue; }
      std::string func = key.substr(0, open);
      double v = Value(cx, n, *k, func);
      bool time = cx.metrics()[*k].unit == "ns";
      if (func == "share" || func == "self_share") out += Percent(v);
      else if (func == "count") out += Count(v);
      else out += time ? Duration(v) : Number(v);
    }
  }
  (void)rule;
  return out;
}

}  // namespace

bool RunUserRule(const AnalysisContext& cx, const UserRule& rule, std::vector<Finding>& out, std::string* error) {
  std::vector<size_t> metric(rule.when.size());
  for (size_t i = 0; i < rule.when.size(); ++i) {
    auto k = cx.metric_index(rule.when[i].metric);
    if (!k) {
      std::string names;
      for (const auto& m : cx.metrics()) names += (names.empty() ? "" : ", ") + m.name;
      *error = rule.file + ":" + std::to_string(rule.when[i].line) + ": rule '" + rule.id + "': unknown metric '" +
               rule.when[i].metric + "' (the profile has: " + (names.empty() ? "none" : names) + ")";
      return false;
    }
    metric[i] = *k;
  }
  std::vector<FrameMatcher> pattern = rule.path;
  if (!rule.anchored && (pattern.empty() || !pattern.front().any_run)) pattern.insert(pattern.begin(), FrameMatcher{true});
  std::vector<Func> funcs;
  for (const auto& p : rule.when) funcs.push_back(FuncOf(p.func));
  std::vector<std::pair<double, size_t>> hits;
  std::vector<uint32_t> path;
  std::vector<char> cur, next;
  FrameMatchCache match(pattern, *cx.view().frame_table);
  for (size_t n = 1; n < cx.size(); ++n) {
    bool ok = true;
    for (size_t i = 0; i < rule.when.size() && ok; ++i) {
      const Predicate& p = rule.when[i];
      double v = Value(cx, n, metric[i], funcs[i]);
      if (p.percent && (funcs[i] == Func::kInclusive || funcs[i] == Func::kExclusive))
        v = cx.total(metric[i]) > 0 ? v / cx.total(metric[i]) : 0;
      ok = Compare(v, p.op, p.value);
    }
    if (!ok) continue;
    if (!rule.path.empty()) {
      path.clear();
      for (int32_t v = int32_t(n); v > 0; v = cx.parent(size_t(v))) path.push_back(cx.view().frame_id[size_t(v)]);
      std::reverse(path.begin(), path.end());
      if (!MatchPath(pattern, path, match, cur, next)) continue;
    }
    hits.push_back({rule.when.empty() ? 0.0 : cx.metric(n, metric[0]).inclusive, n});
  }
  std::sort(hits.begin(), hits.end(), [](auto& a, auto& b) { return a.first > b.first; });
  if (hits.size() > rule.max_findings) hits.resize(rule.max_findings);
  for (const auto& [w, n] : hits) {
    Finding f = cx.Make(rule.id, rule.severity, n, Fill(cx, rule, n, rule.message));
    for (size_t i = 0; i < rule.when.size(); ++i) {
      const auto& m = cx.metrics()[metric[i]];
      f.evidence.push_back({rule.when[i].func + "(" + m.name + ")", Value(cx, n, metric[i], rule.when[i].func),
                            rule.when[i].func == "share" || rule.when[i].func == "self_share" ? "share"
                            : rule.when[i].func == "count"                                    ? "count"
                                                                                                : m.unit});
    }
    out.push_back(std::move(f));
  }
  return true;
}

}  // namespace strata::core::detail
