// Top-down, bottom-up and flat numbers on a hand-built tree with recursion; stats merging.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <thread>
#include <cmath>
#include <map>

#include "strata/core/api.h"
#include "test_util.h"

namespace fmt = strata::format;
using strata::core::Profile;
using strata::core::View;
using strata::core::ViewKind;
using strata::test::StatsOf;

namespace {

//  root
//   └ main            excl {1}
//      ├ f            excl {2}
//      │  └ f         excl {3}        (recursion)
//      │     └ g      excl {1, 3}
//      └ g            excl {5}
// A second metric "bytes" sits on g nodes only.
std::unique_ptr<Profile> Tree() {
  fmt::ProfileWriter w;
  uint32_t cpu = w.Metric("cpu_time", "ns");
  uint32_t bytes = w.Metric("bytes", "bytes");
  auto fr = [&](const char* name, uint32_t line) {
    return w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, name, "/src/app.py", line);
  };
  uint32_t a = w.Child(0, fr("main", 1));
  uint32_t b = w.Child(a, fr("f", 2));
  uint32_t c = w.Child(b, fr("f", 3));   // another line of f: same function
  uint32_t d = w.Child(c, fr("g", 4));
  uint32_t e = w.Child(a, fr("g", 5));
  w.AddStats(a, cpu, StatsOf({1}));
  w.AddStats(b, cpu, StatsOf({2}));
  w.AddStats(c, cpu, StatsOf({3}));
  w.AddStats(d, cpu, StatsOf({1, 3}));
  w.AddStats(e, cpu, StatsOf({5}));
  w.AddStats(d, bytes, StatsOf({100}));
  w.AddStats(e, bytes, StatsOf({50}));
  return Profile::FromBytes(w.Serialize());
}

// "main>f>f" style path of every node -> node index.
std::map<std::string, int> Paths(const View& v) {
  std::map<std::string, int> out;
  std::vector<std::string> path(v.parent.size());
  for (size_t i = 0; i < v.parent.size(); ++i) {
    EXPECT_LT(v.parent[i], int32_t(i));
    path[i] = i == 0 ? "" : (v.parent[i] == 0 ? "" : path[size_t(v.parent[i])] + ">") + v.frames[i].name;
    if (i) EXPECT_TRUE(out.emplace(path[i], int(i)).second) << "duplicate " << path[i];
  }
  return out;
}

// Every view keeps inclusive = exclusive + sum(children inclusive) and sorted children.
void CheckInvariants(const View& v, size_t metrics) {
  std::vector<std::vector<double>> child_sum(v.parent.size(), std::vector<double>(metrics, 0));
  for (size_t i = 1; i < v.parent.size(); ++i)
    for (size_t k = 0; k < metrics; ++k) child_sum[size_t(v.parent[i])][k] += v.metrics[i][k].inclusive;
  for (size_t i = 0; i < v.parent.size(); ++i)
    for (size_t k = 0; k < metrics; ++k)
      EXPECT_NEAR(v.metrics[i][k].inclusive, v.metrics[i][k].exclusive + child_sum[i][k], 1e-9) << i;
  std::vector<double> last(v.parent.size(), HUGE_VAL);
  for (size_t i = 1; i < v.parent.size(); ++i) {
    double x = v.metrics[i][0].inclusive;
    EXPECT_LE(x, last[size_t(v.parent[i])]) << "children of " << v.parent[i] << " not sorted";
    last[size_t(v.parent[i])] = x;
  }
}

}  // namespace

TEST(Views, TopDown) {
  auto p = Tree();
  View v = p->BuildView(ViewKind::kTopDown);
  ASSERT_EQ(v.parent.size(), 6u);
  EXPECT_EQ(v.parent[0], -1);
  EXPECT_EQ(v.frames[0].kind, "root");
  auto at = Paths(v);
  EXPECT_DOUBLE_EQ(v.metrics[0][0].inclusive, 15);
  EXPECT_DOUBLE_EQ(v.metrics[at["main"]][0].inclusive, 15);
  EXPECT_DOUBLE_EQ(v.metrics[at["main"]][0].exclusive, 1);
  EXPECT_DOUBLE_EQ(v.metrics[at["main>f"]][0].inclusive, 9);
  EXPECT_DOUBLE_EQ(v.metrics[at["main>f>f"]][0].inclusive, 7);
  EXPECT_DOUBLE_EQ(v.metrics[at["main>f>f>g"]][0].inclusive, 4);
  EXPECT_EQ(v.metrics[at["main>f>f>g"]][0].count, 2u);
  EXPECT_DOUBLE_EQ(v.metrics[at["main>f>f>g"]][0].mean, 2);
  EXPECT_DOUBLE_EQ(v.metrics[at["main>f>f>g"]][0].std, 1);
  EXPECT_DOUBLE_EQ(v.metrics[at["main>g"]][0].inclusive, 5);
  EXPECT_DOUBLE_EQ(v.metrics[at["main>g"]][1].inclusive, 50);
  EXPECT_DOUBLE_EQ(v.metrics[at["main"]][1].inclusive, 150);
  // main's children: f (9) before g (5); preorder puts f's subtree first.
  EXPECT_EQ(at["main>f"], 2);
  EXPECT_EQ(at["main>g"], 5);
  CheckInvariants(v, 2);
  // Ordered by the second metric: f (100, through f>g) still before g (50).
  View by_bytes = p->BuildView(ViewKind::kTopDown, 1);
  EXPECT_EQ(Paths(by_bytes)["main>f"], 2);
}

TEST(Views, BottomUp) {
  auto p = Tree();
  View v = p->BuildView(ViewKind::kBottomUp);
  auto at = Paths(v);
  ASSERT_EQ(at.size(), 10u);
  EXPECT_DOUBLE_EQ(v.metrics[0][0].inclusive, 15);
  // Roots are the leaf functions.
  EXPECT_DOUBLE_EQ(v.metrics[at["g"]][0].inclusive, 9);
  EXPECT_DOUBLE_EQ(v.metrics[at["f"]][0].inclusive, 5);
  EXPECT_DOUBLE_EQ(v.metrics[at["main"]][0].inclusive, 1);
  EXPECT_DOUBLE_EQ(v.metrics[at["main"]][0].exclusive, 1);
  EXPECT_DOUBLE_EQ(v.metrics[at["g"]][0].exclusive, 0);
  EXPECT_DOUBLE_EQ(v.metrics[at["g>main"]][0].inclusive, 5);
  EXPECT_DOUBLE_EQ(v.metrics[at["g>main"]][0].exclusive, 5);
  EXPECT_DOUBLE_EQ(v.metrics[at["g>f"]][0].inclusive, 4);
  EXPECT_DOUBLE_EQ(v.metrics[at["g>f>f"]][0].inclusive, 4);
  EXPECT_DOUBLE_EQ(v.metrics[at["g>f>f>main"]][0].inclusive, 4);
  EXPECT_EQ(v.metrics[at["g>f>f>main"]][0].count, 2u);
  EXPECT_DOUBLE_EQ(v.metrics[at["f>main"]][0].inclusive, 2);
  EXPECT_DOUBLE_EQ(v.metrics[at["f>f"]][0].inclusive, 3);
  EXPECT_DOUBLE_EQ(v.metrics[at["f>f>main"]][0].exclusive, 3);
  // Roots in descending order: g, f, main.
  EXPECT_EQ(v.parent[1], 0);
  EXPECT_EQ(v.frames[1].name, "g");
  EXPECT_DOUBLE_EQ(v.metrics[at["g"]][1].inclusive, 150);
  CheckInvariants(v, 2);
}

TEST(Views, Flat) {
  auto p = Tree();
  View v = p->BuildView(ViewKind::kFlat);
  auto at = Paths(v);
  ASSERT_EQ(v.parent.size(), 4u);
  for (size_t i = 1; i < 4; ++i) EXPECT_EQ(v.parent[i], 0);
  EXPECT_DOUBLE_EQ(v.metrics[0][0].inclusive, 15);
  EXPECT_DOUBLE_EQ(v.metrics[at["main"]][0].inclusive, 15);
  EXPECT_DOUBLE_EQ(v.metrics[at["main"]][0].exclusive, 1);
  // f: recursion counted once per path: 2 + 3 + 4, not 9 + 7.
  EXPECT_DOUBLE_EQ(v.metrics[at["f"]][0].inclusive, 9);
  EXPECT_DOUBLE_EQ(v.metrics[at["f"]][0].exclusive, 5);
  EXPECT_EQ(v.metrics[at["f"]][0].count, 2u);
  // g: its two call paths; exclusive stats merged with Chan's formula: values {1, 3, 5}.
  const auto& g = v.metrics[at["g"]][0];
  EXPECT_DOUBLE_EQ(g.inclusive, 9);
  EXPECT_DOUBLE_EQ(g.exclusive, 9);
  EXPECT_EQ(g.count, 3u);
  EXPECT_DOUBLE_EQ(g.min, 1);
  EXPECT_DOUBLE_EQ(g.max, 5);
  EXPECT_DOUBLE_EQ(g.mean, 3);
  EXPECT_NEAR(g.std, std::sqrt(8.0 / 3.0), 1e-12);
  // The frame shown for f is its heaviest node (line 2, inclusive 9).
  EXPECT_EQ(v.frames[at["f"]].line, 2u);
  EXPECT_DOUBLE_EQ(v.metrics[at["g"]][1].exclusive, 150);
  EXPECT_EQ(v.metrics[at["g"]][1].count, 2u);
}

TEST(Views, StatsMergeMatchesDirectComputation) {
  // Many nodes of one function with random values: the merged stats equal those of all values.
  fmt::ProfileWriter w;
  uint32_t m = w.Metric("cpu_time", "ns");
  uint32_t leaf = w.Frame(fmt::FrameKind::kOperator, fmt::kNone, 0, "aten::mm", "", 0);
  std::vector<double> all;
  uint64_t seed = 7;
  for (int caller = 0; caller < 50; ++caller) {
    uint32_t c = w.Child(0, w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "f" + std::to_string(caller), "/a.py", 1));
    uint32_t n = w.Child(c, leaf);
    fmt::MetricStats s;
    for (int i = 0; i <= caller % 7; ++i) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      double x = double(seed >> 40) / 1e3 + 1e6;  // large offset: tests numerical stability
      s.Add(x);
      all.push_back(x);
    }
    w.AddStats(n, m, s);
  }
  auto p = Profile::FromBytes(w.Serialize());
  double mean = 0;
  for (double x : all) mean += x;
  mean /= double(all.size());
  double var = 0;
  for (double x : all) var += (x - mean) * (x - mean);
  var /= double(all.size());
  for (ViewKind kind : {ViewKind::kFlat, ViewKind::kBottomUp}) {
    View v = p->BuildView(kind);
    int mm = -1;
    for (size_t i = 0; i < v.frames.size(); ++i) if (v.frames[i].name == "aten::mm" && v.parent[i] == 0) mm = int(i);
    ASSERT_GE(mm, 0);
    const auto& s = v.metrics[size_t(mm)][0];
    EXPECT_DOUBLE_EQ(s.inclusive, mean * double(all.size()));
    if (kind == ViewKind::kFlat) {
      EXPECT_EQ(s.count, all.size());
      EXPECT_NEAR(s.mean, mean, 1e-6);
      EXPECT_NEAR(s.std, std::sqrt(var), 1e-6 * std::sqrt(var) + 1e-9);
    }
  }
}

TEST(Views, MetricOutOfRange) {
  auto p = Tree();
  EXPECT_THROW(p->BuildView(ViewKind::kTopDown, 2), strata::core::Error);
  EXPECT_EQ(strata::core::FindMetric(*p, "bytes").value(), 1u);
  EXPECT_FALSE(strata::core::FindMetric(*p, "nope").has_value());
  EXPECT_THROW(strata::core::ParseViewKind("sideways"), strata::core::Error);
  EXPECT_EQ(strata::core::ParseViewKind("bottom-up"), ViewKind::kBottomUp);
}

TEST(Views, ConcurrentBuildView) {
  auto p = Tree();
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        View v = p->BuildView(ViewKind(i % 3));
        if (v.metrics[0][0].inclusive == 15) ++ok;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 160);
}

// A 1M-node tree shaped like a real program (the times are printed, not checked: timings belong
// in benchmarks): 5000 functions, each calling a
// few fixed callees (a call graph), paths up to 40 deep, a third of the nodes sampled. (The
// bottom-up view is as large as the sum of the sampled nodes' depths when paths share few
// suffixes, as here: several million nodes.)
TEST(Views, MillionNodes) {
  fmt::ProfileWriter w;
  uint32_t m = w.Metric("cpu_time", "ns");
  const int kFunctions = 5000;
  std::vector<uint32_t> frames;
  for (int i = 0; i < kFunctions; ++i)
    frames.push_back(w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "function_number_" + std::to_string(i),
                             "/src/some/long/path/module_" + std::to_string(i % 100) + ".py", uint32_t(i)));
  uint64_t seed = 1;
  auto rnd = [&] { seed = seed * 6364136223846793005ull + 1442695040888963407ull; return seed >> 33; };
  std::vector<std::array<uint32_t, 6>> callees(kFunctions);
  for (auto& c : callees) for (auto& x : c) x = uint32_t(rnd() % kFunctions);
  std::vector<uint32_t> node_fn{0}, depth{0};
  fmt::MetricStats one = StatsOf({1000});
  while (w.node_count() < 1000000) {
    uint32_t parent = uint32_t(rnd() % w.node_count());
    if (depth[parent] >= 40) continue;
    uint32_t fn = parent == 0 ? uint32_t(rnd() % 8) : callees[node_fn[parent]][rnd() % 6];
    size_t before = w.node_count();
    uint32_t n = w.Child(parent, frames[fn]);
    if (w.node_count() > before) { node_fn.push_back(fn); depth.push_back(depth[parent] + 1); }
    if (rnd() % 3 == 0) w.AddStats(n, m, one);
  }
  auto t0 = std::chrono::steady_clock::now();
  auto p = Profile::FromBytes(w.Serialize());
  std::printf("Open: %.3f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  for (bool expand : {false, true})
    for (ViewKind kind : {ViewKind::kTopDown, ViewKind::kFlat, ViewKind::kBottomUp}) {
      if (expand && kind == ViewKind::kBottomUp) continue;  // slow by nature: per-node copies
      strata::core::ViewOptions o;
      o.expand = expand;
      t0 = std::chrono::steady_clock::now();
      View v = p->BuildView(kind, o);
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("BuildView(%s, expand=%d) over %zu nodes: %zu view nodes in %.3f s\n",
                  strata::core::ViewKindName(kind), int(expand), p->node_count(), v.size(), s);
      EXPECT_NEAR(v.metric(0, 0).inclusive, p->total(0), 1e-3);
    }
}

// Samples at different instructions of one source line are separate stored nodes (the runtime
// keys native frames by PC); top-down shows one node per call site, with merged statistics.
TEST(Views, TopDownMergesSiblingsOfOneCallSite) {
  fmt::ProfileWriter w;
  uint32_t m = w.Metric("cpu_time", "ns");
  uint32_t mod = w.Module("/nonexistent/libwork.so", "", 0x1000);
  auto add = [&](uint32_t parent, uint64_t addr, uint32_t line, std::vector<double> values) {
    uint32_t node = w.Child(parent, w.Frame(fmt::FrameKind::kNative, mod, addr, "work", "work.cpp", line));
    fmt::MetricStats s;
    for (double v : values) s.Add(v);
    if (!values.empty()) w.AddStats(node, m, s);
    return node;
  };
  uint32_t a = add(0, 0x10, 7, {1, 2});
  add(0, 0x14, 7, {3});
  add(0, 0x20, 8, {10});
  add(a, 0x30, 9, {4});  // a child under the first PC of line 7
  auto p = Profile::FromBytes(w.Serialize());
  View v = p->BuildView(ViewKind::kTopDown);
  ASSERT_EQ(v.size(), 4u);  // root, work:7 (merged), its child work:9, work:8
  auto at = [&](uint32_t line) {
    for (size_t i = 1; i < v.size(); ++i) if (v.frame(i).line == line) return i;
    return size_t(0);
  };
  size_t l7 = at(7), l8 = at(8), l9 = at(9);
  ASSERT_TRUE(l7 && l8 && l9);
  EXPECT_DOUBLE_EQ(v.metrics[l8][0].inclusive, 10);
  EXPECT_DOUBLE_EQ(v.metrics[l7][0].inclusive, 10);  // 1+2+3 + child 4
  EXPECT_DOUBLE_EQ(v.metrics[l7][0].exclusive, 6);
  EXPECT_EQ(v.metrics[l7][0].count, 3u);
  EXPECT_DOUBLE_EQ(v.metrics[l7][0].max, 3);
  EXPECT_EQ(v.parent[l9], int32_t(l7));
  EXPECT_EQ(v.parent[l8], 0);
  EXPECT_DOUBLE_EQ(v.metrics[0][0].inclusive, 20);
}

// Merging is recursive: the children of two merged sibling nodes merge with each other (cousins
// in the stored tree), while the same line under another call site stays apart.
TEST(Views, TopDownMergesChildrenOfMergedNodes) {
  fmt::ProfileWriter w;
  uint32_t m = w.Metric("cpu_time", "ns");
  uint32_t mod = w.Module("/nonexistent/libwork.so", "", 0x1000);
  auto add = [&](uint32_t parent, uint64_t addr, uint32_t line, double value) {
    uint32_t node = w.Child(parent, w.Frame(fmt::FrameKind::kNative, mod, addr, "work", "work.cpp", line));
    fmt::MetricStats s;
    s.Add(value);
    w.AddStats(node, m, s);
    return node;
  };
  uint32_t a = add(0, 0x10, 7, 1);   // line 7, first PC
  uint32_t b = add(0, 0x14, 7, 2);   // line 7, second PC: merges with a
  uint32_t c = add(0, 0x20, 8, 4);   // line 8
  uint32_t a9 = add(a, 0x30, 9, 8);  // line 9 under both PCs of line 7: one node
  add(b, 0x34, 9, 16);
  add(c, 0x38, 9, 32);               // line 9 under line 8: its own node
  add(a9, 0x40, 10, 64);             // under the merged line 9
  auto p = Profile::FromBytes(w.Serialize());
  View v = p->BuildView(ViewKind::kTopDown);
  ASSERT_EQ(v.size(), 6u);  // root, 7, 7>9, 7>9>10, 8, 8>9
  // Preorder, heaviest first: 7 (1+2+8+16+64 = 91) before 8 (4+32 = 36).
  std::vector<uint32_t> lines;
  for (size_t i = 1; i < v.size(); ++i) lines.push_back(v.frame(i).line);
  EXPECT_EQ(lines, (std::vector<uint32_t>{7, 9, 10, 8, 9}));
  EXPECT_EQ(v.parent, (std::vector<int32_t>{-1, 0, 1, 2, 0, 4}));
  EXPECT_DOUBLE_EQ(v.metrics[1][0].inclusive, 91);
  EXPECT_DOUBLE_EQ(v.metrics[1][0].exclusive, 3);
  EXPECT_DOUBLE_EQ(v.metrics[2][0].inclusive, 88);
  EXPECT_DOUBLE_EQ(v.metrics[2][0].exclusive, 24);
  EXPECT_EQ(v.metrics[2][0].count, 2u);
  EXPECT_DOUBLE_EQ(v.metrics[3][0].inclusive, 64);
  EXPECT_DOUBLE_EQ(v.metrics[4][0].inclusive, 36);
  EXPECT_DOUBLE_EQ(v.metrics[5][0].inclusive, 32);
  EXPECT_DOUBLE_EQ(v.metrics[0][0].inclusive, 127);
}

// Bottom-up bounds: a 200,000-deep recursion sampled at every node holds 2e10 frames on its
// sample paths (one inverted chain shared by all of them, so no share cut applies): the view
// stops at a depth from the leaf and says so, instead of walking for hours or exhausting memory.
TEST(Views, BottomUpOfADeepRecursionIsBoundedAndSaysSo) {
  fmt::ProfileWriter w;
  uint32_t m = w.Metric("cpu_time", "ns");
  uint32_t f = w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "recurse", "/src/r.py", 3);
  uint32_t node = 0;
  for (int i = 0; i < 200000; ++i) {
    node = w.Child(node, i % 2 ? f : w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "recurse", "/src/r.py", 4));
    w.AddStats(node, m, StatsOf({1}));
  }
  auto p = Profile::FromBytes(w.Serialize());
  auto t0 = std::chrono::steady_clock::now();
  View v = p->BuildView(ViewKind::kBottomUp);
  std::printf("bottom-up of a 200k-deep recursion: %zu nodes in %.3f s\n", v.size(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  EXPECT_NE(v.partial.find("callers more than"), std::string::npos) << v.partial;
  EXPECT_NEAR(v.metric(0, 0).inclusive, 200000, 1e-6);
  EXPECT_TRUE(p->BuildView(ViewKind::kTopDown).partial.empty());
  // Inclusive = exclusive + children everywhere, cut paths included.
  std::vector<double> children(v.size(), 0.0);
  for (size_t i = 1; i < v.size(); ++i) children[size_t(v.parent[i])] += v.metric(i, 0).inclusive;
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v.metric(i, 0).inclusive, v.metric(i, 0).exclusive + children[i], 1e-6) << i;
}
