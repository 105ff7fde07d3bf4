// SumLines: per source line, each metric's inclusive value over the paths through it, the
// outermost frame of each path counted once (recursion does not count twice).
#include <gtest/gtest.h>

#include <map>

#include "strata/core/api.h"
#include "test_util.h"

namespace fmt = strata::format;
using strata::core::Profile;
using strata::test::StatsOf;

namespace {

// root → main(a.py:1) → f(a.py:5) → f(a.py:5) [recursion] → g(b.py:3)
//                     → g(b.py:3)
//      → main(a.py:1) on another thread's path (native in between) → h(a.py:9)
//      → native (no file) → x(a.py:0, no line) → g(b.py:3)
std::unique_ptr<Profile> Paths() {
  fmt::ProfileWriter w;
  uint32_t cpu = w.Metric("cpu_time", "ns");
  uint32_t gpu = w.Metric("gpu_time", "ns");
  auto py = [&](const char* name, const char* file, uint32_t line) {
    return w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, name, file, line);
  };
  uint32_t main_f = py("main", "/w/a.py", 1), f_f = py("f", "/w/a.py", 5), g_f = py("g", "/w/b.py", 3);
  uint32_t mod = w.Module("/nonexistent/libx.so", "", 0);
  uint32_t native_f = w.Frame(fmt::FrameKind::kNative, mod, 0x10, "start_thread", "", 0);
  uint32_t main1 = w.Child(0, main_f);
  uint32_t f1 = w.Child(main1, f_f);
  uint32_t f2 = w.Child(f1, f_f);
  uint32_t g1 = w.Child(f2, g_f);
  uint32_t g2 = w.Child(main1, g_f);
  uint32_t thread = w.Child(0, native_f);
  uint32_t main2 = w.Child(thread, main_f);
  uint32_t h = w.Child(main2, py("h", "/w/a.py", 9));
  uint32_t x = w.Child(thread, py("x", "/w/a.py", 0));
  uint32_t g3 = w.Child(x, g_f);
  w.AddStats(main1, cpu, StatsOf({20}));
  w.AddStats(f1, cpu, StatsOf({20}));
  w.AddStats(f2, cpu, StatsOf({20}));
  w.AddStats(g1, cpu, StatsOf({10}));
  w.AddStats(g2, cpu, StatsOf({20}));
  w.AddStats(g2, gpu, StatsOf({7}));
  w.AddStats(main2, cpu, StatsOf({5}));
  w.AddStats(h, cpu, StatsOf({25}));
  w.AddStats(g3, cpu, StatsOf({4}));
  return Profile::FromBytes(w.Serialize());
}

}  // namespace

TEST(LineTotals, OutermostFramePerPath) {
  auto p = Paths();
  strata::core::LineTotals t = strata::core::SumLines(*p, {0, 1});
  std::map<std::string, std::vector<double>> at;  // "file:line"
  for (const auto& l : t.lines) EXPECT_TRUE(at.emplace(l.file + ":" + std::to_string(l.line), l.values).second) << l.file << ":" << l.line;
  ASSERT_EQ(t.totals.size(), 2u);
  EXPECT_DOUBLE_EQ(t.totals[0], 124);
  EXPECT_DOUBLE_EQ(t.totals[1], 7);
  EXPECT_DOUBLE_EQ(at["/w/a.py:1"][0], 90 + 30);   // main on both paths
  EXPECT_DOUBLE_EQ(at["/w/a.py:5"][0], 50);        // recursive f: the outer frame only (not 50 + 30)
  EXPECT_DOUBLE_EQ(at["/w/a.py:9"][0], 25);
  EXPECT_DOUBLE_EQ(at["/w/b.py:3"][0], 10 + 20 + 4);  // g on three paths
  EXPECT_DOUBLE_EQ(at["/w/b.py:3"][1], 7);
  EXPECT_EQ(at.count("/w/a.py:0"), 0u) << "a frame without a line is no line";
  EXPECT_EQ(at.size(), 4u);
  EXPECT_TRUE(strata::core::SumLines(*p, {}).lines.size() == 4u);
  EXPECT_THROW(strata::core::SumLines(*p, {2}), strata::core::Error);
}

// root → train(t.py:10) → fwd(t.py:4) → MmBackward0 (operator) → kernel
//                                      → aten::mm (operator) → kernel
//      → train(t.py:10) → backward(t.py:12) → autograd::engine::evaluate_function: AddBackward0
//                                             → AddBackward0 → kernel
TEST(LineTotals, BackwardPartUnderBackwardOperators) {
  fmt::ProfileWriter w;
  uint32_t gpu = w.Metric("gpu_time", "ns");
  auto py = [&](const char* name, uint32_t line) { return w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, name, "/w/t.py", line); };
  auto op = [&](const char* name) { return w.Frame(fmt::FrameKind::kOperator, fmt::kNone, 0, name, "", 0); };
  uint32_t kernel = w.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "gemm", "", 0);
  uint32_t train = w.Child(0, py("train", 10));
  uint32_t fwd = w.Child(train, py("fwd", 4));
  uint32_t mm_bw = w.Child(fwd, op("MmBackward0"));
  w.AddStats(w.Child(mm_bw, kernel), gpu, StatsOf({30}));
  uint32_t mm = w.Child(fwd, op("aten::mm"));
  w.AddStats(w.Child(mm, kernel), gpu, StatsOf({10}));
  uint32_t bw_call = w.Child(train, py("backward", 12));
  uint32_t engine = w.Child(bw_call, op("autograd::engine::evaluate_function: AddBackward0"));
  uint32_t add_bw = w.Child(engine, op("AddBackward0"));
  w.AddStats(w.Child(add_bw, kernel), gpu, StatsOf({5}));
  auto p = Profile::FromBytes(w.Serialize());
  auto t = strata::core::SumLines(*p, {gpu});
  std::map<uint32_t, std::pair<double, double>> at;  // line → (value, backward)
  for (const auto& l : t.lines) at[l.line] = {l.values[0], l.backward[0]};
  EXPECT_DOUBLE_EQ(at[4].first, 40);
  EXPECT_DOUBLE_EQ(at[4].second, 30) << "the forward line holds its backward kernels, labelled";
  EXPECT_DOUBLE_EQ(at[10].first, 45);
  EXPECT_DOUBLE_EQ(at[10].second, 35) << "nested backward operators count once";
  EXPECT_DOUBLE_EQ(at[12].second, 5);
}

// root → fwd(m.py:20) → "fused (3 lines)" [m.py:20, m.py:19, n.py:7] → kernel   (gpu 10)
//      → fwd(m.py:20) → "fused (2 lines)" [m.py:21, m.py:20] → kernel              (gpu 4)
//      → step(m.py:30) → fwd(m.py:19) → kernel                                     (gpu 5)
// A fused kernel counts on every line it fuses, once per path, whether or not the line is on
// its call path; `fused` is that part. The frame carries its lines; two lists, two functions.
TEST(LineTotals, FusedKernelCountsOnEveryLineItFuses) {
  fmt::ProfileWriter w;
  uint32_t gpu = w.Metric("gpu_time", "ns");
  auto py = [&](const char* name, const char* file, uint32_t line) { return w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, name, file, line); };
  auto fused = [&](const char* name, const std::vector<fmt::SourceLine>& lines) {
    return w.Frame(fmt::FrameKind::kOperator, fmt::kNone, 0, name, "", 0, 0, fmt::SourceLinesRole::kFused, lines);
  };
  uint32_t kernel = w.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "triton_poi_fused_0", "", 0);
  uint32_t fwd = w.Child(0, py("forward", "/w/m.py", 20));
  uint32_t f3 = w.Child(fwd, fused("fused (3 lines)", {{"/w/m.py", "forward", 20}, {"/w/m.py", "forward", 19}, {"/w/n.py", "gelu", 7}}));
  uint32_t f2 = w.Child(fwd, fused("fused (2 lines)", {{"/w/m.py", "forward", 21}, {"/w/m.py", "forward", 20}}));
  uint32_t other = w.Child(w.Child(0, py("step", "/w/m.py", 30)), py("forward", "/w/m.py", 19));
  w.AddStats(w.Child(f3, kernel), gpu, StatsOf({10}));
  w.AddStats(w.Child(f2, kernel), gpu, StatsOf({4}));
  w.AddStats(w.Child(other, kernel), gpu, StatsOf({5}));
  auto p = Profile::FromBytes(w.Serialize());
  auto t = strata::core::SumLines(*p, {0});
  std::map<std::string, std::pair<double, double>> at;  // "file:line" -> value, fused part
  for (const auto& l : t.lines) at[l.file + ":" + std::to_string(l.line)] = {l.values[0], l.fused[0]};
  EXPECT_DOUBLE_EQ(t.totals[0], 19);
  EXPECT_EQ(at["/w/m.py:20"], std::make_pair(14.0, 14.0));  // on the path of both fused kernels: not twice
  EXPECT_EQ(at["/w/m.py:19"], std::make_pair(15.0, 10.0));  // its own kernel (5) and the fused one (10)
  EXPECT_EQ(at["/w/n.py:7"], std::make_pair(10.0, 10.0));   // only ever fused
  EXPECT_EQ(at["/w/m.py:21"], std::make_pair(4.0, 4.0));
  EXPECT_EQ(at["/w/m.py:30"], std::make_pair(5.0, 0.0));
  EXPECT_EQ(at.size(), 5u);

  // The profile API: the fused frames' lists, and the bottom-up view keeps them apart.
  strata::core::ViewOptions o;
  const auto view = p->BuildView(strata::core::ViewKind::kFlat, o);
  size_t fused_frames = 0;
  for (size_t i = 0; i < view.size(); ++i) {
    const auto& f = view.frame(i);
    if (f.fused_lines.empty()) continue;
    ++fused_frames;
    if (f.name == "fused (3 lines)") {
      ASSERT_EQ(f.fused_lines.size(), 3u);
      EXPECT_EQ(f.fused_lines[2].file, "/w/n.py");
      EXPECT_EQ(f.fused_lines[2].function, "gelu");
      EXPECT_EQ(f.fused_lines[2].line, 7u);
      EXPECT_DOUBLE_EQ(view.metric(i, 0).inclusive, 10);
    }
  }
  EXPECT_EQ(fused_frames, 2u);
}
