// What every rule reads: the profile's top-down view (compact form, primary metric 0) with the
// derived arrays the rules share (subtree ranges, metric indices by name, totals), and helpers
// that turn a node into a Finding's frames and source location. The view may keep its primary
// metric alone: a metric the rules read is then computed for every node when first read
// (Profile::MetricColumn, the same values), and a few such columns are kept, not every metric of
// every node (a dozen metrics of a million nodes are most of a gigabyte).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "data_loader_frames.h"
#include "run_phases.h"
#include "strata/core/analyze.h"
#include "strata/core/api.h"

namespace strata::core::detail {

// Frame kinds as small integers, numbered as in the format (FrameKindCode): the rules test kinds
// on every node.
enum class Kind : uint8_t { kRoot, kPython, kNative, kOperator, kGpuApi, kKernel, kPc, kRegion, kOther };

class AnalysisContext {
 public:
  // all_phases: judge every phase of the run; otherwise the steady state only (run_phases.h).
  AnalysisContext(const Profile& profile, View top_down, bool all_phases = false, std::string profile_path = "");
  // The profile's file when the caller gave it ("" otherwise): rules that read more than the
  // tree (the captured region buffers) need it.
  const std::string& profile_path() const { return profile_path_; }

  const Profile& profile() const { return profile_; }
  // The ranks of a distributed job whose merged profile this is; nullptr otherwise.
  const RankRun* ranks() const { return ranks_; }
  void set_ranks(const RankRun* ranks) { ranks_ = ranks; }
  const View& view() const { return view_; }
  size_t size() const { return view_.size(); }
  int32_t parent(size_t n) const { return view_.parent[n]; }
  // Preorder: the subtree of n is [n, subtree_end(n)).
  size_t subtree_end(size_t n) const { return end_[n]; }
  const FrameInfo& frame(size_t n) const { return view_.frame(n); }
  NodeMetric metric(size_t n, size_t k) const { return view_.has_all_metrics() ? view_.metric(n, k) : column(k)[n]; }

  std::optional<size_t> metric_index(const std::string& name) const;
  const std::vector<MetricInfo>& metrics() const { return profile_.metrics(); }
  double total(size_t k) const { return size() ? metric(0, k).inclusive : 0.0; }  // every phase
  // The phase of a node's call path, and the metrics restricted to the phases judged (the steady
  // state unless all_phases): what the rules read.
  Phase phase(size_t n) const { return phase_[n]; }
  bool judged(size_t n) const { return phase_[n] == Phase::kSteady; }
  double Incl(size_t n, size_t k) const { return judged_incl(k)[n]; }
  double Excl(size_t n, size_t k) const { return judged_excl(k)[n]; }
  uint64_t Count(size_t n, size_t k) const { return judged(n) ? metric(n, k).count : 0; }
  double Total(size_t k) const { return size() ? judged_incl(k)[0] : 0.0; }
  // What the profile shows of the frameworks (advice names a framework only where it is there).
  bool uses_torch() const { return torch_; }
  bool uses_jax() const { return jax_; }
  bool uses_torch_dataloader() const { return dataloader_; }
  // The thread that runs the user's code: the root's child with the most CPU time among those
  // with a user frame (background threads of libraries, e.g. BLAS pools spinning, are not it);
  // 0 when there is none.
  size_t main_thread() const { return main_thread_; }
  // The steady state's wall time: the main thread's own samples' elapsed_time where the runtime
  // records it (samples of PyTorch's autograd device threads, linked under the forward's path,
  // left out), else the run's duration times the judged share of the main thread's CPU time; the
  // profiler's own time left out. 0 when unknown.
  double judged_wall_ns() const { return judged_wall_ns_; }
  // Lines that call the step a later line of the same function calls too, at a far higher cost
  // per GPU launch (a warm-up loop whose first steps hold one-time work): judged as warm-up.
  struct WarmupSite {
    size_t node;       // the earlier line (warm-up)
    size_t steady;     // the later line it was compared with
    double cost_ratio; // its cost per launch over the later line's
  };
  const std::vector<WarmupSite>& warmup_sites() const { return warmup_sites_; }
  // Per launch, how many times a later loop's cost an earlier line must take to be warm-up.
  static constexpr double kOneTimeCostRatio = 1.5;
  // The profiler's own time under node n in the steady state that metric k (a CPU or wall
  // metric) still holds: measured by the runtime (metric profiler_time, carried by its samples;
  // 0 in profiles without it), less k's samples that landed in Strata's own code (left out of
  // the judged metrics already as the profiler phase).
  double ProfilerNs(size_t n, size_t k) const;
  // The least CPU time a finding may rest on: 10 sampling periods (fewer samples are noise).
  double min_cpu_ns() const { return min_cpu_ns_; }
  // GPU time over judged_wall_ns (0 when unknown).
  double gpu_busy() const;
  std::optional<std::string> meta(const std::string& key) const { return profile_.meta(key); }

  Kind kind(size_t n) const { return node_[n].kind; }
  uint32_t function(size_t n) const { return node_[n].function; }
  size_t function_count() const { return function_count_; }  // function ids are below this
  bool is_backward_op(size_t n) const { return node_[n].backward; }  // autograd backward operator
  LoaderFrame loader_frame(size_t n) const { return node_[n].loader; }  // PyTorch DataLoader's part

  FindingFrame Frame(size_t n) const;
  std::vector<FindingFrame> Path(size_t n) const;  // root excluded
  // The node's frame when it has a file and line, else the nearest caller that has one.
  FindingFrame Location(size_t n) const;
  // The nearest Python frame at or above n, or -1.
  int32_t PythonAncestor(size_t n) const { return python_anc_[n]; }
  // The user's own code: a source file outside installed packages, the standard library
  // (site-packages, dist-packages, lib/pythonX.Y, <frozen ...>), system headers and libraries,
  // and code generated at run time (Inductor's /tmp/torchinductor_*, Triton's cache).
  bool IsUserFrame(size_t n) const { return node_[n].user; }
  // The nearest frame at or above n in the user's own code with a file and line, or -1.
  int32_t UserAncestor(size_t n) const { return user_anc_[n]; }
  // Where a finding on n belongs: the deepest user frame at or above n, else the nearest frame
  // with a file and line, else -1 (no source known).
  int32_t Anchor(size_t n) const;
  Finding Make(const std::string& rule, const std::string& severity, size_t node, std::string message) const;

 private:
  const Profile& profile_;
  View view_;
  std::string profile_path_;
  const RankRun* ranks_ = nullptr;
  std::vector<size_t> end_;
  // A lean view's metrics, each computed for every node when first read; the ones read last are
  // kept within a memory budget (a column of a million nodes is 56 MB).
  const std::vector<NodeMetric>& column(size_t k) const;
  mutable std::vector<std::vector<NodeMetric>> columns_;  // by metric (empty: not kept)
  mutable std::vector<size_t> columns_used_;  // least recently read first
  std::vector<Kind> frame_kind_;       // per frame_table entry
  std::vector<char> frame_backward_;   // per frame_table entry
  std::vector<char> frame_user_;       // per frame_table entry
  // The same per node, read by every rule on every node: copied once in node order (a frame
  // table look-up per node and rule is a cache miss each over a large profile).
  struct NodeFacts {
    uint32_t function = 0;
    Kind kind = Kind::kOther;
    bool user = false, backward = false;
    PhaseMark mark = PhaseMark::kNone;
    uint8_t frameworks = 0;  // 1 torch, 2 JAX, 4 torch's DataLoader
    LoaderFrame loader = LoaderFrame::kNone;
  };
  std::vector<NodeFacts> node_;
  size_t function_count_ = 0;
  std::vector<Phase> phase_;           // per node
  std::vector<int32_t> user_anc_, python_anc_;  // per node (-1: none)
  bool torch_ = false, jax_ = false, dataloader_ = false;
  size_t main_thread_ = 0;
  double judged_wall_ns_ = 0;
  std::vector<char> other_thread_;  // per node: samples of another thread linked under the main thread's path
  std::vector<WarmupSite> warmup_sites_;
  std::optional<size_t> elapsed_metric_, cpu_metric_;
  void MarkOtherThreads(std::optional<size_t> elapsed);
  void MarkWarmupCallSites(size_t cost_metric);
  std::vector<double> SteadyCost(size_t k) const;
  std::vector<char> StrataFrames() const;  // per node: Strata's own code, in the profiler phase
  std::optional<size_t> profiler_metric_;
  mutable std::map<size_t, std::vector<double>> sampled_in_profiler_;  // per metric k, see ProfilerNs
  double min_cpu_ns_ = 0;
  // Per metric, computed on first use: inclusive over the judged phases.
  const std::vector<double>& judged_incl(size_t k) const;
  mutable std::vector<std::vector<double>> judged_incl_;
  // Per metric, with judged_incl: each node's exclusive value over the judged phases, dense (the
  // rules read it on every node; the view's per-node records hold every metric's statistics).
  const std::vector<double>& judged_excl(size_t k) const {
    if (judged_excl_[k].size() != size()) judged_incl(k);
    return judged_excl_[k];
  }
  mutable std::vector<std::vector<double>> judged_excl_;
};

}  // namespace strata::core::detail
