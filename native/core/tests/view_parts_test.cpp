// A top-down view sent in parts before it is whole (Profile::BeginTopDown) and a metric read at
// every node of a lean view (Profile::MetricColumn): bit for bit what the whole view and a view
// keeping every metric give, over many configurations of every H100 fixture and of synthetic
// trees (ties, zeros, merged call sites); and the analyzers' findings from a lean view equal to
// those from a view keeping every metric.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "strata/core/analyze.h"
#include "strata/core/api.h"
#include "test_util.h"

namespace fmt = strata::format;
namespace core = strata::core;
using strata::test::StatsOf;

namespace {

std::vector<std::string> H100Fixtures() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(STRATA_H100_FIXTURES))
    if (e.is_regular_file() && e.path().extension() == ".strata") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

core::ViewOptions Lean(size_t primary, core::FrameFilter filter, bool by_function) {
  core::ViewOptions o;
  o.expand = false;
  o.all_metrics = false;
  o.primary_metric = primary;
  o.filter = filter;
  o.by_function = by_function;
  return o;
}

void ExpectSamePart(const core::ViewPart& want, const core::ViewPart& got, const std::string& where) {
  ASSERT_EQ(want.slice.node, got.slice.node) << where;
  ASSERT_EQ(want.slice.parent, got.slice.parent) << where;
  ASSERT_TRUE(want.slice.more == got.slice.more) << where;
  ASSERT_TRUE(SameBits(want.slice.min_value, got.slice.min_value)) << where << " min_value";
  ASSERT_EQ(want.frame_id, got.frame_id) << where;
  ASSERT_EQ(want.values.size(), got.values.size()) << where;
  for (size_t i = 0; i < want.values.size(); ++i) {
    ASSERT_TRUE(SameBits(want.values[i].inclusive, got.values[i].inclusive)) << where << " node " << i;
    ASSERT_TRUE(SameBits(want.values[i].exclusive, got.values[i].exclusive)) << where << " node " << i;
    ASSERT_EQ(want.values[i].count, got.values[i].count) << where << " node " << i;
  }
}

void ExpectSameView(const core::View& want, const core::View& got, const std::string& where) {
  ASSERT_EQ(want.parent, got.parent) << where;
  ASSERT_EQ(want.frame_id, got.frame_id) << where;
  ASSERT_EQ(want.landing, got.landing) << where;
  ASSERT_EQ(want.line_offset, got.line_offset) << where;
  ASSERT_EQ(want.line_frame, got.line_frame) << where;
  ASSERT_EQ(want.line_value, got.line_value) << where;
  ASSERT_EQ(want.partial, got.partial) << where;
  ASSERT_EQ(want.values.size(), got.values.size()) << where;
  for (size_t i = 0; i < want.values.size(); ++i) {
    ASSERT_TRUE(SameBits(want.values[i].inclusive, got.values[i].inclusive)) << where << " node " << i;
    ASSERT_TRUE(SameBits(want.values[i].exclusive, got.values[i].exclusive)) << where << " node " << i;
    ASSERT_EQ(want.values[i].count, got.values[i].count) << where << " node " << i;
  }
}

// The bounds a viewer asks with, and harder ones (caps, depths, ties at the bound).
std::vector<core::SliceBound> Bounds(double total) {
  return {
      {0.5 / 1600 * total, 100000, 128, 50000},  // the extension's first part
      {0.5 / 1600 * total, 100000, 128, 0},
      {0.01 * total, 40, 3, 0},
      {1e-9 * total, 25, 200, 0},
      {0.0, 1, 2, 0},
      {0.0, SIZE_MAX, 0, 0},
      {0.2 * total, 7, SIZE_MAX, 10},
  };
}

// Every part asked for as a viewer would (the root's, then the parts of nodes with children left
// out, a few levels down with lower bounds), from the parts and from the whole view; then the
// whole view; then parts again once it is whole.
void CheckParts(const core::Profile& p, const core::ViewOptions& o, const std::string& name) {
  const core::View want = p.BuildView(core::ViewKind::kTopDown, o);
  auto parts = p.BeginTopDown(o);
  ASSERT_EQ(parts->size(), want.size()) << name;
  if (want.size() == 0) return;
  const double total = want.values[0].inclusive;
  for (const auto& b : Bounds(total)) {
    const std::string where = name + " bound " + std::to_string(b.min_value) + "/" + std::to_string(b.max_nodes) + "/" +
                              std::to_string(b.max_depth) + "/" + std::to_string(b.whole_up_to);
    core::ViewPart first = parts->Part(0, b);
    ExpectSamePart(core::CutViewPart(want, 0, b), first, where + " root");
    // Down three levels: each node with children left out, with a bound a quarter of the last.
    std::vector<std::pair<uint32_t, double>> todo;
    for (size_t j = 0; j < first.slice.node.size() && todo.size() < 12; ++j)
      if (first.slice.more[j] != core::LeftOut::kNone) todo.push_back({first.slice.node[j], b.min_value / 4});
    for (int level = 0; level < 3 && !todo.empty(); ++level) {
      std::vector<std::pair<uint32_t, double>> next;
      for (const auto& [node, min] : todo) {
        core::SliceBound lower = b;
        lower.min_value = min;
        const core::ViewPart got = parts->Part(node, lower);
        ExpectSamePart(core::CutViewPart(want, node, lower), got, where + " node " + std::to_string(node));
        for (size_t j = 1; j < got.slice.node.size() && next.size() < 12; ++j)
          if (got.slice.more[j] != core::LeftOut::kNone) next.push_back({got.slice.node[j], min / 4});
      }
      todo.swap(next);
    }
  }
  ASSERT_FALSE(parts->has_whole());
  ExpectSameView(want, *parts->Whole(), name + " whole");
  ASSERT_TRUE(parts->has_whole());
  const core::SliceBound b = Bounds(total)[0];
  ExpectSamePart(core::CutViewPart(want, 0, b), parts->Part(0, b), name + " root after whole");
}

void CheckColumns(const core::Profile& p, core::FrameFilter filter, bool by_function, const std::string& name) {
  core::ViewOptions all = Lean(0, filter, by_function);
  all.all_metrics = true;
  const core::View full = p.BuildView(core::ViewKind::kTopDown, all);
  const core::View lean = p.BuildView(core::ViewKind::kTopDown, Lean(0, filter, by_function));
  ASSERT_EQ(full.parent, lean.parent) << name;
  for (size_t k = 0; k < p.metrics().size(); ++k) {
    const std::vector<core::NodeMetric> column = p.MetricColumn(lean, k);
    ASSERT_EQ(column.size(), full.size()) << name;
    for (size_t i = 0; i < column.size(); ++i) {
      const core::NodeMetric& w = full.metric(i, k);
      const core::NodeMetric& g = column[i];
      const std::string where = name + " metric " + p.metrics()[k].name + " node " + std::to_string(i);
      ASSERT_TRUE(SameBits(w.inclusive, g.inclusive)) << where << ": " << w.inclusive << " vs " << g.inclusive;
      ASSERT_TRUE(SameBits(w.exclusive, g.exclusive)) << where;
      ASSERT_EQ(w.count, g.count) << where;
      ASSERT_TRUE(SameBits(w.min, g.min) && SameBits(w.max, g.max) && SameBits(w.mean, g.mean) && SameBits(w.std, g.std)) << where;
    }
  }
}

// A random tree of `n` nodes: `sites` distinct call sites (siblings of one site merge), values
// drawn from a few (ties), some nodes without values, two metrics.
std::unique_ptr<core::Profile> RandomTree(uint32_t n, uint32_t sites, uint32_t seed) {
  std::mt19937 rng(seed);
  fmt::ProfileWriter w;
  const uint32_t cpu = w.Metric("cpu_time", "ns");
  const uint32_t gpu = w.Metric("gpu_time", "ns");
  std::vector<uint32_t> frames;
  // Three frames per site (addresses apart, one line): siblings of one site merge in the view.
  for (uint32_t s = 0; s < sites; ++s)
    for (uint64_t a = 0; a < 3; ++a)
      frames.push_back(w.Frame(fmt::FrameKind::kPython, fmt::kNone, a, "f" + std::to_string(s % 7), "/src/r.py", s + 1));
  std::vector<uint32_t> nodes{0};
  for (uint32_t i = 1; i < n; ++i) {
    // Mostly near the last nodes (deep paths), sometimes anywhere (wide levels).
    const size_t up = rng() % 4 == 0 ? rng() % nodes.size() : nodes.size() - 1 - rng() % std::min<size_t>(nodes.size(), 8);
    const uint32_t node = w.Child(nodes[up], frames[rng() % frames.size()]);
    if (node == nodes.back() || std::find(nodes.begin(), nodes.end(), node) != nodes.end()) continue;
    nodes.push_back(node);
    if (rng() % 5) w.AddStats(node, cpu, StatsOf({double(1000 * (1 + rng() % 4))}));
    if (rng() % 3 == 0) w.AddStats(node, gpu, StatsOf({double(rng() % 7), double(rng() % 3)}));
  }
  return core::Profile::FromBytes(w.Serialize());
}

}  // namespace

TEST(ViewParts, PartsAndWholeEqualTheBuiltViewOnSyntheticTrees) {
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    auto p = RandomTree(seed % 2 ? 3000 : 600, seed % 3 ? 40 : 5, seed);
    for (size_t primary : {size_t(0), size_t(1)})
      for (bool by_function : {false, true})
        CheckParts(*p, Lean(primary, core::FrameFilter::kAll, by_function),
                   "seed " + std::to_string(seed) + " metric " + std::to_string(primary) + (by_function ? " by function" : ""));
  }
}

TEST(ViewParts, PartsAndWholeEqualTheBuiltViewOnH100Fixtures) {
  size_t checked = 0;
  for (const std::string& path : H100Fixtures()) {
    auto p = core::Profile::Open(path);
    std::vector<size_t> primaries{0};
    if (p->metrics().size() > 1) primaries.push_back(p->metrics().size() - 1);
    for (size_t primary : primaries)
      for (core::FrameFilter filter : {core::FrameFilter::kAll, core::FrameFilter::kPython})
        for (bool by_function : {false, true}) {
          CheckParts(*p, Lean(primary, filter, by_function),
                     path + " metric " + std::to_string(primary) + (filter == core::FrameFilter::kPython ? " python" : " all") +
                         (by_function ? " by function" : ""));
          ++checked;
        }
  }
  EXPECT_GE(checked, 100u);
}

TEST(ViewParts, AViewPartNamesOnlyNodesSentBefore) {
  auto p = RandomTree(3000, 40, 7);
  auto parts = p->BeginTopDown(Lean(0, core::FrameFilter::kAll, false));
  EXPECT_THROW(parts->Part(parts->size(), core::SliceBound{}), core::Error);
  const core::ViewPart first = parts->Part(0, core::SliceBound{0, SIZE_MAX, 1, 0});
  // A node past the first level was not sent yet; one of the first level was.
  EXPECT_THROW(parts->Part(first.slice.node.back() + 1, core::SliceBound{}), core::Error);
  EXPECT_NO_THROW(parts->Part(first.slice.node.back(), core::SliceBound{}));
  // Once whole, any node.
  parts->Whole();
  EXPECT_NO_THROW(parts->Part(first.slice.node.back() + 1, core::SliceBound{}));
}

TEST(ViewParts, MetricColumnsEqualTheAllMetricsViewOnH100Fixtures) {
  for (const std::string& path : H100Fixtures()) {
    auto p = core::Profile::Open(path);
    // Every frame (stored nodes one to one, or merged by call site) and the Python view by function
    // (folded and merged by function): the two ends of how view nodes gather stored ones.
    CheckColumns(*p, core::FrameFilter::kAll, false, path + " all");
    CheckColumns(*p, core::FrameFilter::kPython, true, path + " python by function");
  }
  for (uint32_t seed = 1; seed <= 4; ++seed) CheckColumns(*RandomTree(3000, seed * 7, seed), core::FrameFilter::kAll, false, "random");
}

TEST(ViewParts, MetricColumnRefusesWhatItCannotAnswer) {
  auto p = RandomTree(600, 5, 3);
  const core::View lean = p->BuildView(core::ViewKind::kTopDown, Lean(0, core::FrameFilter::kAll, false));
  EXPECT_THROW(p->MetricColumn(lean, 2), core::Error);
  const core::View bottom_up = p->BuildView(core::ViewKind::kBottomUp, Lean(0, core::FrameFilter::kAll, false));
  EXPECT_THROW(p->MetricColumn(bottom_up, 0), core::Error);
  auto other = RandomTree(300, 5, 4);
  EXPECT_THROW(other->MetricColumn(lean, 0), core::Error);
}

TEST(ViewParts, AnalyzersFindTheSameFromALeanView) {
  for (const std::string& path : H100Fixtures()) {
    auto p = core::Profile::Open(path);
    for (bool all_phases : {false, true}) {
      core::AnalyzeOptions ao;
      ao.all_phases = all_phases;
      core::ViewOptions o = Lean(0, core::FrameFilter::kAll, false);
      const std::string lean = core::FindingsJson(core::Analyze(*p, p->BuildView(core::ViewKind::kTopDown, o), ao), path);
      o.all_metrics = true;
      const std::string full = core::FindingsJson(core::Analyze(*p, p->BuildView(core::ViewKind::kTopDown, o), ao), path);
      EXPECT_EQ(full, lean) << path << (all_phases ? " all phases" : "");
    }
  }
}
