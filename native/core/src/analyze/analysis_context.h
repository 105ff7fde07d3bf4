// What every rule reads: the profile's top-down view (compact form, primary metric 0) with the
// derived arrays the rules share (subtree ranges, metric indices by name, totals), and helpers
// that turn a node into a Finding's frames and source location.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "strata/core/analyze.h"
#include "strata/core/api.h"

namespace strata::core::detail {

class AnalysisContext {
 public:
  explicit AnalysisContext(const Profile& profile);

  const Profile& profile() const { return profile_; }
  const View& view() const { return view_; }
  size_t size() const { return view_.size(); }
  int32_t parent(size_t n) const { return view_.parent[n]; }
  // Preorder: the subtree of n is [n, subtree_end(n)).
  size_t subtree_end(size_t n) const { return end_[n]; }
  const FrameInfo& frame(size_t n) const { return view_.frame(n); }
  const NodeMetric& metric(size_t n, size_t k) const { return view_.metric(n, k); }

  std::optional<size_t> metric_index(const std::string& name) const;
  const std::vector<MetricInfo>& metrics() const { return profile_.metrics(); }
  double total(size_t k) const { return totals_[k]; }
  std::optional<std::string> meta(const std::string& key) const { return profile_.meta(key); }

  bool is_backward_op(size_t n) const;  // an autograd backward operator frame

  FindingFrame Frame(size_t n) const;
  std::vector<FindingFrame> Path(size_t n) const;  // root excluded
  // The node's frame when it has a file and line, else the nearest caller that has one.
  FindingFrame Location(size_t n) const;
  // The nearest Python frame at or above n (the user's line), or -1.
  int32_t PythonAncestor(size_t n) const;
  Finding Make(const std::string& rule, const std::string& severity, size_t node, std::string message) const;

 private:
  const Profile& profile_;
  View view_;
  std::vector<size_t> end_;
  std::vector<double> totals_;
};

}  // namespace strata::core::detail
