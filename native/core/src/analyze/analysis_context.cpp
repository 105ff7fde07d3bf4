#include "analysis_context.h"

#include <algorithm>

#include "strata/format/layout.h"


namespace strata::core::detail {

static_assert(int(Kind::kRegion) == int(format::FrameKind::kRegion) && int(Kind::kPython) == int(format::FrameKind::kPython),
              "Kind is numbered as the format's FrameKind");

AnalysisContext::AnalysisContext(const Profile& profile, View top_down, bool all_phases, std::string profile_path)
    : profile_(profile), view_(std::move(top_down)), profile_path_(std::move(profile_path)) {
  if (view_.kind != ViewKind::kTopDown) throw Error("the analyzers need the top-down view");
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
  const auto& table = *view_.frame_table;
  frame_kind_.assign(table.size(), Kind::kOther);
  frame_backward_.assign(table.size(), 0);
  frame_user_.assign(table.size(), 0);
  for (size_t i = 0; i < table.size(); ++i) {
    const int code = FrameKindCode(table[i].kind);
    if (code >= 0 && code < int(Kind::kOther)) frame_kind_[i] = Kind(code);
    // PyTorch names autograd nodes "<Op>Backward<k>"; the engine's wrapper frame is
    // "autograd::engine::evaluate_function: <Op>Backward<k>".
    const std::string& file = table[i].file;
    auto has = [&](const char* part) { return file.find(part) != std::string::npos; };
    frame_user_[i] = !file.empty() && table[i].line > 0 && file[0] != '<' && !has("/site-packages/") &&
                     !has("/dist-packages/") && !has("/lib/python") && file.rfind("/usr/include/", 0) != 0 &&
                     file.rfind("/usr/lib/", 0) != 0 && file.rfind("/usr/local/cuda", 0) != 0 &&
                     !has("/torchinductor_") && !has("/.triton/") && !has("/triton/runtime/");
    if (has("/torch/") || table[i].module.find("libtorch") != std::string::npos) torch_ = true;
    if (has("/jax/") || has("/jaxlib/") || table[i].module.find("xla_") != std::string::npos) jax_ = true;
    if (has("/torch/utils/data/")) dataloader_ = true;
    if (frame_kind_[i] == Kind::kOperator) {
      const std::string& nm = table[i].name;
      size_t b = nm.rfind("Backward");
      bool digits = b != std::string::npos;
      for (size_t c = b + 8; digits && c < nm.size(); ++c) digits = nm[c] >= '0' && nm[c] <= '9';
      frame_backward_[i] = digits || nm.rfind("autograd::engine::evaluate_function", 0) == 0;
    }
  }
  for (uint32_t f : *view_.frame_function) function_count_ = std::max<size_t>(function_count_, size_t(f) + 1);
  // Phases: preorder, so a parent's phase is known before its children's. The outermost marking
  // frame decides (a compilation inside an import is import time).
  std::vector<PhaseMark> marks(table.size());
  for (size_t i = 0; i < table.size(); ++i) marks[i] = all_phases ? PhaseMark::kNone : FramePhaseMark(table[i]);
  phase_.assign(n, Phase::kSteady);
  for (size_t v = 1; v < n; ++v) {
    Phase up = phase_[size_t(view_.parent[v])];
    if (up != Phase::kSteady) { phase_[v] = up; continue; }
    switch (marks[view_.frame_id[v]]) {
      case PhaseMark::kNone: break;
      case PhaseMark::kImport: phase_[v] = Phase::kImport; break;
      case PhaseMark::kConstruction: phase_[v] = Phase::kConstruction; break;
      case PhaseMark::kCompilation: phase_[v] = Phase::kCompilation; break;
      case PhaseMark::kWarmup: phase_[v] = Phase::kWarmup; break;
      case PhaseMark::kConstructorCall: {
        // A library object built by the user's own line (the model, the optimizer); a constructor
        // called by library code is part of whatever that code does.
        int32_t py = view_.parent[v];
        while (py > 0 && kind(size_t(py)) != Kind::kPython) py = view_.parent[size_t(py)];
        if (py > 0 && IsUserFrame(size_t(py))) phase_[v] = Phase::kConstruction;
        break;
      }
    }
  }
  judged_incl_.resize(profile.metrics().size());
  totals_.resize(profile.metrics().size());
  for (size_t k = 0; k < totals_.size(); ++k) totals_[k] = n ? view_.metric(0, k).inclusive : 0;
}

const std::vector<double>& AnalysisContext::judged_incl(size_t k) const {
  std::vector<double>& v = judged_incl_[k];
  if (v.size() != size()) {
    v.assign(size(), 0.0);
    for (size_t i = size(); i-- > 0;) {
      if (judged(i)) v[i] += metric(i, k).exclusive;
      if (i > 0) v[size_t(parent(i))] += v[i];
    }
  }
  return v;
}

std::optional<size_t> AnalysisContext::metric_index(const std::string& name) const {
  return FindMetric(profile_, name);
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
    if (kind(size_t(v)) == Kind::kPython) return v;
  return -1;
}

int32_t AnalysisContext::UserAncestor(size_t n) const {
  for (int32_t v = int32_t(n); v > 0; v = parent(size_t(v)))
    if (IsUserFrame(size_t(v))) return v;
  return -1;
}

int32_t AnalysisContext::Anchor(size_t n) const {
  int32_t user = UserAncestor(n);
  if (user > 0) return user;
  for (int32_t v = int32_t(n); v > 0; v = parent(size_t(v)))
    if (!frame(size_t(v)).file.empty() && frame(size_t(v)).line > 0) return v;
  return -1;
}

Finding AnalysisContext::Make(const std::string& rule, const std::string& severity, size_t node,
                              std::string message) const {
  Finding f;
  f.rule = rule;
  f.severity = severity;
  f.message = std::move(message);
  f.node = int32_t(node);
  int32_t at = Anchor(node);
  f.location = at > 0 ? Frame(size_t(at)) : FindingFrame{};
  f.path = Path(node);
  return f;
}

}  // namespace strata::core::detail
