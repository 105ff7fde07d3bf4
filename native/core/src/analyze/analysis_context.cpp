#include "analysis_context.h"

#include <regex>

namespace strata::core::detail {

AnalysisContext::AnalysisContext(const Profile& profile) : profile_(profile) {
  ViewOptions vo;
  vo.primary_metric = 0;
  vo.expand = false;  // rules read the compact form
  view_ = profile.BuildView(ViewKind::kTopDown, vo);
  const size_t n = view_.size();
  end_.assign(n, 0);
  // Preorder with parent < id: a node's subtree ends where the next node outside it starts.
  for (size_t i = n; i-- > 0;) {
    if (end_[i] == 0) end_[i] = i + 1;
    if (i > 0) {
      size_t p = size_t(view_.parent[i]);
      if (end_[i] > end_[p]) end_[p] = end_[i];
    }
  }
  totals_.resize(profile.metrics().size());
  for (size_t k = 0; k < totals_.size(); ++k) totals_[k] = n ? view_.metric(0, k).inclusive : 0;
}

std::optional<size_t> AnalysisContext::metric_index(const std::string& name) const {
  return FindMetric(profile_, name);
}

bool AnalysisContext::is_backward_op(size_t n) const {
  const FrameInfo& f = frame(n);
  if (f.kind != "operator") return false;
  // PyTorch names autograd nodes "<Op>Backward<k>"; the engine's wrapper frame is
  // "autograd::engine::evaluate_function: <Op>Backward<k>".
  static const std::regex kBackward("(Backward[0-9]*$)|(^autograd::engine::evaluate_function)");
  return std::regex_search(f.name, kBackward);
}

FindingFrame AnalysisContext::Frame(size_t n) const {
  const FrameInfo& f = frame(n);
  return FindingFrame{f.kind, f.name, f.file, f.line};
}

std::vector<FindingFrame> AnalysisContext::Path(size_t n) const {
  std::vector<FindingFrame> path;
  for (int32_t v = int32_t(n); v > 0; v = parent(size_t(v))) path.push_back(Frame(size_t(v)));
  return {path.rbegin(), path.rend()};
}

FindingFrame AnalysisContext::Location(size_t n) const {
  for (int32_t v = int32_t(n); v > 0; v = parent(size_t(v))) {
    const FrameInfo& f = frame(size_t(v));
    if (!f.file.empty() && f.line > 0) return Frame(size_t(v));
  }
  return FindingFrame{};
}

int32_t AnalysisContext::PythonAncestor(size_t n) const {
  for (int32_t v = int32_t(n); v > 0; v = parent(size_t(v)))
    if (frame(size_t(v)).kind == "python") return v;
  return -1;
}

Finding AnalysisContext::Make(const std::string& rule, const std::string& severity, size_t node,
                              std::string message) const {
  Finding f;
  f.rule = rule;
  f.severity = severity;
  f.message = std::move(message);
  f.node = int32_t(node);
  f.location = Location(node);
  f.path = Path(node);
  return f;
}

}  // namespace strata::core::detail
