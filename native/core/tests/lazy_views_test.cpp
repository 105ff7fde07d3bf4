// What a viewer asks of a large view: a node's statistics computed when asked for (the view keeps
// only the drawn metric), the part of a view wider than a pixel (what is on screen first, then a
// node's part when zoomed into), the sandwich of a function, and the bounds that keep bottom-up
// and sandwich views of a pathological deep recursion from growing with the square of its depth.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "strata/core/api.h"
#include "test_util.h"

namespace fmt = strata::format;
namespace core = strata::core;
using strata::test::StatsOf;

namespace {

std::string Fixture(const char* name) { return std::string(STRATA_REAL_MODELS) + "/" + name; }

core::View Build(const core::Profile& p, core::ViewKind kind, bool all_metrics, core::FrameFilter filter = core::FrameFilter::kAuto,
           size_t primary = 0, bool by_function = false) {
  core::ViewOptions o;
  o.expand = false;
  o.all_metrics = all_metrics;
  o.filter = filter;
  o.primary_metric = primary;
  o.by_function = by_function;
  return p.BuildView(kind, o);
}

void ExpectSame(const core::NodeMetric& want, const core::NodeMetric& got, const std::string& where) {
  auto near = [](double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(a)); };
  EXPECT_TRUE(near(want.inclusive, got.inclusive)) << where << " inclusive " << want.inclusive << " vs " << got.inclusive;
  EXPECT_TRUE(near(want.exclusive, got.exclusive)) << where << " exclusive";
  EXPECT_EQ(want.count, got.count) << where;
  EXPECT_EQ(want.min, got.min) << where;
  EXPECT_EQ(want.max, got.max) << where;
  EXPECT_TRUE(near(want.mean, got.mean)) << where << " mean";
  EXPECT_TRUE(near(want.std, got.std)) << where << " std";
}

// A chain `depth` frames deep alternating f and g (mutual recursion) under main, every frame
// sampled once: its sample paths hold depth^2 / 2 frames, what a whole bottom-up view would be.
std::unique_ptr<core::Profile> DeepRecursion(uint32_t depth) {
  fmt::ProfileWriter w;
  const uint32_t cpu = w.Metric("cpu_time", "ns");
  const uint32_t main_f = w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "main", "/src/r.py", 1);
  const uint32_t f = w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "f", "/src/r.py", 10);
  const uint32_t g = w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "g", "/src/r.py", 20);
  uint32_t node = w.Child(0, main_f);
  for (uint32_t d = 0; d < depth; ++d) {
    node = w.Child(node, d % 2 ? g : f);
    w.AddStats(node, cpu, StatsOf({1000}));
  }
  return core::Profile::FromBytes(w.Serialize());
}

// inclusive = exclusive + children's inclusive, in the values of a view.
void CheckValueSums(const core::View& v) {
  std::vector<double> child(v.size(), 0.0);
  for (size_t i = 1; i < v.size(); ++i) {
    ASSERT_LT(v.parent[i], int32_t(i));
    child[size_t(v.parent[i])] += v.values[i].inclusive;
  }
  for (size_t i = 0; i < v.size(); ++i)
    ASSERT_NEAR(v.values[i].inclusive, v.values[i].exclusive + child[i], 1e-6 * std::max(1.0, v.values[i].inclusive)) << i;
}

uint32_t FunctionOf(const core::View& v, const std::string& name) {
  for (size_t i = 0; i < v.size(); ++i)
    if (v.frame(i).name == name) return (*v.frame_function)[v.frame_id[i]];
  ADD_FAILURE() << "no frame " << name;
  return 0;
}

}  // namespace

// Every metric of every node, computed on demand from a view that keeps only the drawn metric,
// equals what a view keeping all of them holds: top-down and bottom-up, both frame filters, by
// function, on a real 13-metric training profile from the H100.
TEST(LazyViews, NodeMetricsOnDemandEqualTheKeptOnes) {
  auto p = core::Profile::Open(Fixture("resnet50_train.strata"));
  const auto gpu = core::FindMetric(*p, "gpu_time");
  ASSERT_TRUE(gpu);
  struct Case { core::ViewKind kind; core::FrameFilter filter; size_t primary; bool by_function; };
  for (const Case c : {Case{core::ViewKind::kTopDown, core::FrameFilter::kPython, 0, false}, Case{core::ViewKind::kTopDown, core::FrameFilter::kAll, *gpu, false},
                       Case{core::ViewKind::kTopDown, core::FrameFilter::kPython, 0, true}, Case{core::ViewKind::kBottomUp, core::FrameFilter::kPython, *gpu, false},
                       Case{core::ViewKind::kBottomUp, core::FrameFilter::kAll, 0, false}}) {
    const core::View all = Build(*p, c.kind, true, c.filter, c.primary, c.by_function);
    const core::View lean = Build(*p, c.kind, false, c.filter, c.primary, c.by_function);
    ASSERT_TRUE(all.has_all_metrics());
    ASSERT_FALSE(lean.has_all_metrics());
    ASSERT_EQ(all.size(), lean.size());
    EXPECT_EQ(all.parent, lean.parent);
    EXPECT_EQ(all.frame_id, lean.frame_id);
    const size_t m = all.metric_count;
    // Every node of small views; a spread of a large one's.
    const size_t step = std::max<size_t>(1, all.size() / 400);
    for (size_t i = 0; i < all.size(); i += step) {
      EXPECT_EQ(lean.values[i].inclusive, all.metric(i, c.primary).inclusive);
      EXPECT_EQ(lean.values[i].count, all.metric(i, c.primary).count);
      const auto got = p->NodeMetrics(lean, i);
      ASSERT_EQ(got.size(), m);
      for (size_t k = 0; k < m; ++k)
        ExpectSame(all.metric(i, k), got[k], std::string(core::ViewKindName(c.kind)) + " node " + std::to_string(i) + " metric " + p->metrics()[k].name);
    }
    EXPECT_TRUE(p->NodeMetrics(lean, lean.size()).empty()) << "an unknown node has none";
  }
}

// The part wider than a bound: kept nodes reach it, every kept node's parent is kept, the kept
// children are a prefix of each node's children, `more` marks exactly the nodes with a child
// left out, and every child left out is under the reported bound.
TEST(LazyViews, SliceKeepsWhatIsWiderThanTheBound) {
  auto p = core::Profile::Open(Fixture("gpt2_train.strata"));
  const core::View v = Build(*p, core::ViewKind::kTopDown, false);
  ASSERT_GT(v.size(), 10000u);
  const double total = v.values[0].inclusive;
  for (const core::SliceBound b : {core::SliceBound{total / 3200, SIZE_MAX, SIZE_MAX, 0}, core::SliceBound{0.0, 500, SIZE_MAX, 0},
                             core::SliceBound{total / 100000, 2000, SIZE_MAX, 0}}) {
    const core::ViewSlice s = core::SliceView(v, 0, b);
    ASSERT_FALSE(s.node.empty());
    EXPECT_EQ(s.node[0], 0u);
    EXPECT_LE(s.node.size(), b.max_nodes);
    EXPECT_LT(s.node.size(), v.size()) << "a large view is cut";
    std::vector<int32_t> index(v.size(), -1);
    for (size_t j = 0; j < s.node.size(); ++j) {
      if (j) {
        ASSERT_GT(s.node[j], s.node[j - 1]) << "preorder";
        ASSERT_GE(s.parent[j], 0);
        ASSERT_EQ(s.node[size_t(s.parent[j])], uint32_t(v.parent[s.node[j]])) << "parent kept";
        EXPECT_GE(v.values[s.node[j]].inclusive, std::min(b.min_value, s.min_value));
      }
      index[s.node[j]] = int32_t(j);
    }
    EXPECT_GT(s.min_value, 0.0);
    // Children left out: after the kept ones, under min_value, their parent marked.
    std::vector<uint8_t> seen_cut(v.size(), 0), more(v.size(), 0);
    for (size_t i = 1; i < v.size(); ++i) {
      const int32_t pi = index[size_t(v.parent[i])];
      if (pi < 0) continue;
      if (index[i] < 0) {
        seen_cut[size_t(v.parent[i])] = 1;
        more[size_t(v.parent[i])] = 1;
        EXPECT_LT(v.values[i].inclusive, s.min_value) << i;
      } else {
        EXPECT_FALSE(seen_cut[size_t(v.parent[i])]) << "kept child " << i << " after one left out";
      }
    }
    for (size_t j = 0; j < s.node.size(); ++j) {
      EXPECT_EQ(s.more[j] != core::LeftOut::kNone, more[s.node[j]] != 0) << s.node[j];
      EXPECT_NE(s.more[j], core::LeftOut::kAny) << "no depth bound, additive values";
    }
  }
  // A node's part, and a small subtree taken whole.
  size_t deep = 0;
  for (size_t i = 1; i < v.size(); ++i)
    if (v.values[i].inclusive < total / 50 && v.values[i].inclusive > total / 500) { deep = i; break; }
  ASSERT_GT(deep, 0u);
  const core::ViewSlice part = core::SliceView(v, deep, core::SliceBound{0.0, SIZE_MAX, SIZE_MAX, 0});
  EXPECT_EQ(part.node[0], deep);
  EXPECT_EQ(part.parent[0], -1);
  EXPECT_EQ(part.min_value, 0.0) << "nothing left out";
  for (core::LeftOut x : part.more) EXPECT_EQ(x, core::LeftOut::kNone);
  const core::ViewSlice whole = core::SliceView(v, deep, core::SliceBound{total, SIZE_MAX, 0, part.node.size()});
  EXPECT_EQ(whole.node, part.node);
  EXPECT_THROW(core::SliceView(v, v.size(), core::SliceBound{}), core::Error);
}

// The depth bound: what a screen of rows shows. Nodes at the bound keep no children, marked
// kAny (their children may be as wide as they are).
TEST(LazyViews, SliceStopsAtADepth) {
  constexpr uint32_t kDepth = 2000;
  auto p = DeepRecursion(kDepth);
  const core::View v = Build(*p, core::ViewKind::kTopDown, false);
  const core::ViewSlice s = core::SliceView(v, 0, core::SliceBound{0.0, SIZE_MAX, 50, 0});
  ASSERT_EQ(s.node.size(), 51u) << "the root and 50 levels of a chain";
  EXPECT_EQ(s.more.back(), core::LeftOut::kAny);
  for (size_t j = 0; j + 1 < s.node.size(); ++j) EXPECT_EQ(s.more[j], core::LeftOut::kNone);
  EXPECT_EQ(s.min_value, 0.0) << "nothing narrow left out";
  // The part under the last node goes on 50 more levels.
  const core::ViewSlice next = core::SliceView(v, s.node.back(), core::SliceBound{0.0, SIZE_MAX, 50, 0});
  EXPECT_EQ(next.node.size(), 51u);
  EXPECT_EQ(next.node[0], s.node.back());
}

// The sandwich from the core, on a hand-built tree: as speedscope's (and the webview's former
// one): callers merged by function outwards, callees merged under the function, recursion once.
TEST(LazyViews, SandwichOfAFunction) {
  //  root ─ main ─ train:1 ─ forward (10: self 4, kernel 6)
  //              └ train:2 ─ forward (5: self 5)
  //              └ f ─ g ─ f ─ g (recursion; f self 1 at each)
  fmt::ProfileWriter w;
  const uint32_t cpu = w.Metric("cpu_time", "ns");
  auto fr = [&](const char* name, uint32_t line) { return w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, name, "/src/t.py", line); };
  const uint32_t main_n = w.Child(0, fr("main", 1));
  const uint32_t t1 = w.Child(main_n, fr("train", 2)), t2 = w.Child(main_n, fr("train", 3));
  const uint32_t f1 = w.Child(t1, fr("forward", 10)), f2 = w.Child(t2, fr("forward", 10));
  const uint32_t k = w.Child(f1, w.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "gemm", "", 0));
  w.AddStats(f1, cpu, StatsOf({4}));
  w.AddStats(k, cpu, StatsOf({6}));
  w.AddStats(f2, cpu, StatsOf({5}));
  uint32_t r = main_n;
  for (int d = 0; d < 4; ++d) { r = w.Child(r, fr(d % 2 ? "g" : "f", 20 + d % 2)); w.AddStats(r, cpu, StatsOf({1})); }
  auto p = core::Profile::FromBytes(w.Serialize());
  const core::View v = Build(*p, core::ViewKind::kTopDown, false);
  const auto sw = core::BuildSandwich(v, FunctionOf(v, "forward"));
  EXPECT_EQ(sw.calls, 2u);
  EXPECT_TRUE(sw.partial.empty());
  ASSERT_EQ(sw.callers.size(), 3u);  // forward ← train (lines merged) ← main
  EXPECT_EQ(sw.callers.frame(1).name, "train");
  EXPECT_EQ(sw.callers.frame(2).name, "main");
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(sw.callers.values[i].inclusive, 15);
  EXPECT_EQ(sw.callers.values[2].exclusive, 15);
  ASSERT_EQ(sw.callees.size(), 2u);  // forward (self 9) → gemm 6
  EXPECT_EQ(sw.callees.values[0].inclusive, 15);
  EXPECT_EQ(sw.callees.values[0].exclusive, 9);
  EXPECT_EQ(sw.callees.frame(1).name, "gemm");
  CheckValueSums(sw.callers);
  CheckValueSums(sw.callees);
  const auto rec = core::BuildSandwich(v, FunctionOf(v, "f"));
  EXPECT_EQ(rec.calls, 1u) << "recursion counts once per path";
  EXPECT_EQ(rec.callees.values[0].inclusive, 4);
  EXPECT_EQ(rec.callees.size(), 4u);  // f → g → f → g
  // A function no longer in the view: no calls, empty trees.
  EXPECT_EQ(core::BuildSandwich(v, 1u << 30).calls, 0u);
  EXPECT_THROW(core::BuildSandwich(Build(*p, core::ViewKind::kBottomUp, false), 0), core::Error);
}

// A deep mutual recursion (300,000 frames, every one sampled): a whole bottom-up view would walk
// 4.5e10 frames and the sandwich's callees hold a 300,000-node chain. Both are bounded and say
// so in one line; the time is all there.
TEST(LazyViews, DeepRecursionIsBoundedWithAMessage) {
  constexpr uint32_t kDepth = 300000;
  auto p = DeepRecursion(kDepth);
  const double total = 1000.0 * kDepth;
  const core::View bu = Build(*p, core::ViewKind::kBottomUp, false);
  EXPECT_FALSE(bu.partial.empty());
  EXPECT_NE(bu.partial.find("left out"), std::string::npos) << bu.partial;
  EXPECT_LT(bu.size(), size_t(1) << 25);
  EXPECT_DOUBLE_EQ(bu.values[0].inclusive, total);
  CheckValueSums(bu);
  const core::View td = Build(*p, core::ViewKind::kTopDown, false);
  EXPECT_EQ(td.size(), kDepth + 2u);
  const auto sw = core::BuildSandwich(td, FunctionOf(td, "g"));
  EXPECT_EQ(sw.calls, 1u);
  EXPECT_LE(sw.callees.size(), core::SandwichBounds{}.max_nodes);
  EXPECT_NE(sw.partial.find("callees are capped"), std::string::npos) << sw.partial;
  EXPECT_DOUBLE_EQ(sw.callees.values[0].inclusive, total - 1000.0);
  CheckValueSums(sw.callees);
  // Callers walked past their budget: the heaviest calls keep theirs.
  const core::View td_all = Build(*p, core::ViewKind::kTopDown, false);
  core::SandwichBounds tight;
  tight.max_nodes = 100;
  tight.max_steps = 50;
  const auto cut = core::BuildSandwich(td_all, FunctionOf(td_all, "g"), tight);
  EXPECT_LE(cut.callers.size(), 100u);
  EXPECT_LE(cut.callees.size(), 100u);
  EXPECT_NE(cut.partial.find("partial sandwich"), std::string::npos);
  CheckValueSums(cut.callers);
  CheckValueSums(cut.callees);
}

// Memory: the view a viewer keeps holds the drawn metric only (a fraction of every metric's).
TEST(LazyViews, LeanViewHoldsOneMetric) {
  auto p = core::Profile::Open(Fixture("resnet50_train.strata"));
  ASSERT_GT(p->metrics().size(), 5u);
  const core::View all = Build(*p, core::ViewKind::kTopDown, true);
  const core::View lean = Build(*p, core::ViewKind::kTopDown, false);
  EXPECT_EQ(all.metric_values.size(), all.size() * all.metric_count);
  EXPECT_TRUE(lean.metric_values.empty());
  EXPECT_EQ(lean.values.size(), lean.size());
  const size_t all_bytes = all.metric_values.size() * sizeof(core::NodeMetric) + all.values.size() * sizeof(core::NodeValue);
  const size_t lean_bytes = lean.values.size() * sizeof(core::NodeValue) + lean.landing.size() * sizeof(uint32_t);
  EXPECT_LT(lean_bytes * 10, all_bytes) << lean_bytes << " vs " << all_bytes;
}
