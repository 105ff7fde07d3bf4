// The Python view (interpreter frames folded), top-down by function, frame origins, metric
// natures and truncated stacks, on real profiles from the H100 (test/fixtures/h100/real_models)
// and on small hand-built trees.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>

#include "strata/core/api.h"
#include "test_util.h"

namespace fmt = strata::format;
using strata::core::FrameFilter;
using strata::core::FrameOrigin;
using strata::core::MetricNature;
using strata::core::Profile;
using strata::core::View;
using strata::core::ViewKind;
using strata::core::ViewOptions;
using strata::test::StatsOf;

namespace {

std::string Fixture(const char* name) { return std::string(STRATA_REAL_MODELS) + "/" + name; }

View Build(const Profile& p, ViewKind kind, FrameFilter filter, bool by_function = false) {
  ViewOptions o;
  o.filter = filter;
  o.by_function = by_function;
  o.expand = false;
  return p.BuildView(kind, o);
}

// inclusive = exclusive + children's inclusive for every metric, preorder parents.
void CheckSums(const View& v) {
  const size_t m = v.metric_count;
  std::vector<double> child(v.size() * m, 0.0);
  for (size_t i = 1; i < v.size(); ++i) {
    ASSERT_LT(v.parent[i], int32_t(i));
    for (size_t k = 0; k < m; ++k) child[size_t(v.parent[i]) * m + k] += v.metric(i, k).inclusive;
  }
  for (size_t i = 0; i < v.size(); ++i)
    for (size_t k = 0; k < m; ++k) {
      const double incl = v.metric(i, k).inclusive;
      ASSERT_NEAR(incl, v.metric(i, k).exclusive + child[i * m + k], 1e-6 * std::max(1.0, std::fabs(incl)))
          << "node " << i << " metric " << k;
    }
}

size_t Depth(const View& v, size_t i) {
  size_t d = 0;
  for (int32_t a = v.parent[i]; a >= 0; a = v.parent[size_t(a)]) ++d;
  return d;
}

struct KernelDepths { size_t min = SIZE_MAX, max = 0, count = 0; };
KernelDepths KernelDepthsOf(const View& v) {
  KernelDepths d;
  for (size_t i = 1; i < v.size(); ++i) {
    if (v.frame(i).kind != "kernel") continue;
    size_t x = Depth(v, i);
    d.min = std::min(d.min, x);
    d.max = std::max(d.max, x);
    ++d.count;
  }
  return d;
}

class RealModels : public ::testing::TestWithParam<const char*> {};

TEST_P(RealModels, PythonViewFoldsTheInterpretersFrames) {
  auto p = Profile::Open(Fixture(GetParam()));
  ASSERT_TRUE(p->has_python_frames());
  View all = Build(*p, ViewKind::kTopDown, FrameFilter::kAll);
  View py = Build(*p, ViewKind::kTopDown, FrameFilter::kPython);
  View autov = Build(*p, ViewKind::kTopDown, FrameFilter::kAuto);
  EXPECT_EQ(all.filter, FrameFilter::kAll);
  EXPECT_EQ(py.filter, FrameFilter::kPython);
  EXPECT_EQ(autov.filter, FrameFilter::kPython);  // the default for a Python program
  EXPECT_EQ(autov.size(), py.size());
  CheckSums(py);
  // Nothing is lost: every metric's total is the same.
  for (size_t k = 0; k < p->metrics().size(); ++k)
    EXPECT_NEAR(py.metric(0, k).inclusive, all.metric(0, k).inclusive, 1e-6 * std::max(1.0, all.metric(0, k).inclusive));
  size_t interp_all = 0;
  for (size_t i = 1; i < all.size(); ++i) interp_all += all.frame(i).origin == FrameOrigin::kInterpreter;
  EXPECT_GT(interp_all, 100u) << "the fixture shows the interpreter's frames in the full view";
  for (size_t i = 1; i < py.size(); ++i) {
    const auto& f = py.frame(i);
    EXPECT_NE(f.origin, FrameOrigin::kInterpreter) << f.name << " (" << f.module << ")";
    if (py.parent[i] == 0 && f.kind == "native")
      EXPECT_EQ(f.module.find("libc.so"), std::string::npos) << "start-up frame at the root: " << f.name;
  }
  // The script's module-level code is right under the root, not under _start … PyEval_EvalCode;
  // in the PyTorch runs it is the heaviest root child (JAX's is XLA's own compile threads).
  size_t top = 0, module = 0;
  for (size_t i = 1; i < py.size(); ++i) {
    if (py.parent[i] != 0) continue;
    if (top == 0 || py.metric(i, 0).inclusive > py.metric(top, 0).inclusive) top = i;
    const auto& f = py.frame(i);
    if (f.kind == "python" && f.name == "<module>" && f.origin == FrameOrigin::kUser &&
        (module == 0 || py.metric(i, 0).inclusive > py.metric(module, 0).inclusive))
      module = i;
  }
  ASSERT_GT(module, 0u) << "no <module> of the user's script under the root";
  if (std::string(GetParam()).find("flax") == std::string::npos) EXPECT_EQ(top, module) << py.frame(top).name;
  // GPU kernels sit much closer to the Python lines that launched them.
  KernelDepths ka = KernelDepthsOf(all), kp = KernelDepthsOf(py);
  if (ka.count) {
    EXPECT_GT(kp.count, 0u);
    EXPECT_LT(kp.max, ka.max);
    EXPECT_LE(kp.min, ka.min);
    std::printf("[ info ] %s: %zu -> %zu nodes; kernel depth %zu-%zu -> %zu-%zu\n", GetParam(), all.size(),
                py.size(), ka.min, ka.max, kp.min, kp.max);
  }
}

TEST_P(RealModels, BottomUpPythonViewEndsSamplesAtPythonFunctions) {
  auto p = Profile::Open(Fixture(GetParam()));
  View all = Build(*p, ViewKind::kBottomUp, FrameFilter::kAll);
  View py = Build(*p, ViewKind::kBottomUp, FrameFilter::kPython);
  CheckSums(py);
  EXPECT_NEAR(py.metric(0, 0).inclusive, all.metric(0, 0).inclusive, 1e-6 * all.metric(0, 0).inclusive);
  for (size_t i = 1; i < py.size(); ++i) EXPECT_NE(py.frame(i).origin, FrameOrigin::kInterpreter);
  // The leaves (roots of the inverted tree) of the full view are mostly the eval loop; in the
  // Python view none is.
  bool interp_leaf = false;
  for (size_t i = 1; i < all.size(); ++i)
    if (all.parent[i] == 0 && all.frame(i).origin == FrameOrigin::kInterpreter) interp_leaf = true;
  EXPECT_TRUE(interp_leaf);
}

TEST_P(RealModels, TopDownByFunctionMergesLinesOfOneFunction) {
  auto p = Profile::Open(Fixture(GetParam()));
  View lines = Build(*p, ViewKind::kTopDown, FrameFilter::kPython);
  View funcs = Build(*p, ViewKind::kTopDown, FrameFilter::kPython, true);
  EXPECT_TRUE(funcs.by_function);
  EXPECT_FALSE(lines.by_function);
  CheckSums(funcs);
  EXPECT_LT(funcs.size(), lines.size());
  for (size_t k = 0; k < p->metrics().size(); ++k)
    EXPECT_NEAR(funcs.metric(0, k).inclusive, lines.metric(0, k).inclusive, 1e-6 * std::max(1.0, lines.metric(0, k).inclusive));
  // The lines merged into a node, heaviest first, add up to its value; the by-line view has each.
  ASSERT_EQ(funcs.line_offset.size(), funcs.size() + 1);
  size_t with_lines = 0;
  for (size_t i = 1; i < funcs.size(); ++i) {
    const uint32_t b = funcs.line_offset[i], e = funcs.line_offset[i + 1];
    if (e - b > 1) ++with_lines;
    double sum = 0;
    for (uint32_t j = b; j < e; ++j) {
      sum += funcs.line_value[j];
      if (j > b) EXPECT_LE(funcs.line_value[j], funcs.line_value[j - 1]);
      EXPECT_EQ((*funcs.frame_function)[funcs.line_frame[j]], (*funcs.frame_function)[funcs.frame_id[i]]) << "a line of another function";
    }
    if (e > b) EXPECT_NEAR(sum, funcs.metric(i, 0).inclusive, 1e-6 * std::max(1.0, sum)) << funcs.frame(i).name;
  }
  EXPECT_GT(with_lines, 10u) << "functions called from several lines";
  // No two siblings of one function.
  const auto& func = *funcs.frame_function;
  std::set<std::pair<int32_t, uint32_t>> seen;
  for (size_t i = 1; i < funcs.size(); ++i)
    EXPECT_TRUE(seen.emplace(funcs.parent[i], func[funcs.frame_id[i]]).second) << funcs.frame(i).name;
}

TEST_P(RealModels, MetricNatures) {
  auto p = Profile::Open(Fixture(GetParam()));
  std::map<std::string, MetricNature> n;
  for (const auto& m : p->metrics()) n[m.name] = m.nature;
  EXPECT_EQ(n["cpu_time"], MetricNature::kAdditive);
  if (n.count("gpu_time")) {
    EXPECT_EQ(n["gpu_time"], MetricNature::kAdditive);
    EXPECT_EQ(n["grid_size"], MetricNature::kAttribute);
    EXPECT_EQ(n["registers_per_thread"], MetricNature::kAttribute);
    EXPECT_EQ(n["theoretical_occupancy"], MetricNature::kAttribute);
    EXPECT_EQ(n["dynamic_shared_bytes"], MetricNature::kAttribute);
    EXPECT_EQ(n["memcpy_bytes"], MetricNature::kAdditive);
  }
}

INSTANTIATE_TEST_SUITE_P(H100, RealModels,
                         ::testing::Values("resnet50_train.strata", "gpt2_generate.strata",
                                           "compiled_encoder_train.strata", "flax_mlp_train.strata"),
                         [](const auto& info) {
                           std::string s = info.param;
                           return s.substr(0, s.find('.'));
                         });

TEST(FrameOrigins, OfRealFrames) {
  auto p = Profile::Open(Fixture("resnet50_train.strata"));
  View v = Build(*p, ViewKind::kTopDown, FrameFilter::kAll);
  std::map<FrameOrigin, size_t> seen;
  for (const auto& f : *v.frame_table) {
    ++seen[f.origin];
    if (f.kind == "kernel" || f.kind == "gpu_api") EXPECT_EQ(f.origin, FrameOrigin::kGpu) << f.name;
    if (f.kind == "python" && f.file.find("/site-packages/") != std::string::npos) EXPECT_EQ(f.origin, FrameOrigin::kLibrary);
    if (f.kind == "python" && f.file.find("<frozen") == 0) EXPECT_EQ(f.origin, FrameOrigin::kLibrary);
    if (f.kind == "python" && f.file.find("/usr/lib/python3") == 0) EXPECT_EQ(f.origin, FrameOrigin::kLibrary);
    if (f.kind == "python" && f.file.find("/bench/real_models/models.py") != std::string::npos) EXPECT_EQ(f.origin, FrameOrigin::kUser);
    if (f.kind == "native" && f.module == "/usr/bin/python3.12") EXPECT_EQ(f.origin, FrameOrigin::kInterpreter) << f.name;
    if (f.kind == "native" && f.module.find("libtorch_cpu.so") != std::string::npos) EXPECT_EQ(f.origin, FrameOrigin::kLibrary);
    if (f.kind == "root") EXPECT_EQ(f.origin, FrameOrigin::kNone);
  }
  EXPECT_GT(seen[FrameOrigin::kUser], 0u);
  EXPECT_GT(seen[FrameOrigin::kLibrary], 0u);
  EXPECT_GT(seen[FrameOrigin::kInterpreter], 0u);
  EXPECT_GT(seen[FrameOrigin::kGpu], 0u);
}

TEST(FrameOrigins, InterpreterModulesAndProgramBinaries) {
  fmt::ProfileWriter w;
  uint32_t cpu = w.Metric("cpu_time", "ns");
  auto native = [&](const char* module, const char* name) {
    return w.Frame(fmt::FrameKind::kNative, w.Module(module, "", 0x1000), 0x10, name, "", 0);
  };
  uint32_t f_lib = native("/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0", "_PyEval_EvalFrameDefault");
  uint32_t f_dbg = native("/usr/local/bin/python3.13d", "PyObject_Call");
  uint32_t f_app = native("/home/me/app/build/solver", "solve");
  uint32_t f_own = native("/home/me/app/build/libkernels.so", "step");
  uint32_t f_sys = native("/usr/lib/x86_64-linux-gnu/libm.so.6", "exp");
  uint32_t f_like = native("/usr/bin/pythonista", "x");
  uint32_t f_py = w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "<module>", "<string>", 1);
  uint32_t n = 0;
  for (uint32_t f : {f_lib, f_dbg, f_app, f_own, f_sys, f_like, f_py}) n = w.Child(n, f);
  w.AddStats(n, cpu, StatsOf({1}));
  auto p = Profile::FromBytes(w.Serialize());
  View v = p->BuildView(ViewKind::kTopDown);
  std::map<std::string, FrameOrigin> o;
  for (size_t i = 1; i < v.size(); ++i) o[v.frames[i].name] = v.frames[i].origin;
  EXPECT_EQ(o["_PyEval_EvalFrameDefault"], FrameOrigin::kInterpreter);
  EXPECT_EQ(o["PyObject_Call"], FrameOrigin::kInterpreter);
  EXPECT_EQ(o["solve"], FrameOrigin::kUser);
  EXPECT_EQ(o["step"], FrameOrigin::kUser);
  EXPECT_EQ(o["exp"], FrameOrigin::kLibrary);
  EXPECT_EQ(o["x"], FrameOrigin::kLibrary);
  EXPECT_EQ(o["<module>"], FrameOrigin::kUser);
}

// A native program: kAuto shows every frame, and the Python view of it folds nothing that is not
// the C library's start-up.
TEST(PythonView, AutoIsAllFramesWithoutPython) {
  fmt::ProfileWriter w;
  uint32_t cpu = w.Metric("cpu_time", "ns");
  uint32_t libc = w.Module("/lib/x86_64-linux-gnu/libc.so.6", "", 0x1000);
  uint32_t app = w.Module("/home/me/app", "", 0x1000);
  uint32_t a = w.Child(0, w.Frame(fmt::FrameKind::kNative, libc, 0x10, "__libc_start_main", "", 0));
  uint32_t b = w.Child(a, w.Frame(fmt::FrameKind::kNative, app, 0x20, "main", "", 0));
  uint32_t c = w.Child(b, w.Frame(fmt::FrameKind::kNative, libc, 0x30, "memcpy", "", 0));
  w.AddStats(c, cpu, StatsOf({4}));
  w.AddStats(b, cpu, StatsOf({1}));
  auto p = Profile::FromBytes(w.Serialize());
  EXPECT_FALSE(p->has_python_frames());
  View autov = Build(*p, ViewKind::kTopDown, FrameFilter::kAuto);
  EXPECT_EQ(autov.filter, FrameFilter::kAll);
  EXPECT_EQ(autov.size(), 4u);
  View py = Build(*p, ViewKind::kTopDown, FrameFilter::kPython);
  ASSERT_EQ(py.size(), 3u);  // root > main > memcpy: only the start-up libc frame folds
  EXPECT_EQ(py.frame(1).name, "main");
  EXPECT_EQ(py.frame(2).name, "memcpy");
  EXPECT_DOUBLE_EQ(py.metric(0, 0).inclusive, 5);
  EXPECT_DOUBLE_EQ(py.metric(1, 0).exclusive, 1);
}

// The interpreter's frames between two Python calls fold into the caller's line: samples in the
// eval loop count as the line's self time, with their statistics merged.
TEST(PythonView, EvalLoopSamplesBecomeTheLinesSelfTime) {
  fmt::ProfileWriter w;
  uint32_t cpu = w.Metric("cpu_time", "ns");
  uint32_t py = w.Module("/usr/bin/python3.12", "", 0x1000);
  auto interp = [&](uint64_t addr, const char* name) { return w.Frame(fmt::FrameKind::kNative, py, addr, name, "", 0); };
  auto line = [&](const char* name, uint32_t l) { return w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, name, "/src/app.py", l); };
  uint32_t start = w.Child(0, interp(0x10, "_start"));
  uint32_t eval = w.Child(start, interp(0x20, "PyEval_EvalCode"));
  uint32_t mod = w.Child(eval, line("<module>", 3));
  uint32_t call = w.Child(mod, interp(0x30, "_PyObject_MakeTpCall"));
  uint32_t f = w.Child(call, line("f", 10));
  uint32_t loop = w.Child(f, interp(0x40, "_PyEval_EvalFrameDefault"));
  uint32_t call2 = w.Child(mod, interp(0x50, "python3.12+0x5a3777"));
  uint32_t f2 = w.Child(call2, line("f", 10));  // the same line through other call machinery
  w.AddStats(loop, cpu, StatsOf({2, 4}));
  w.AddStats(f, cpu, StatsOf({1}));
  w.AddStats(f2, cpu, StatsOf({3}));
  w.AddStats(call, cpu, StatsOf({5}));
  auto p = Profile::FromBytes(w.Serialize());
  View v = Build(*p, ViewKind::kTopDown, FrameFilter::kPython);
  ASSERT_EQ(v.size(), 3u);  // root > <module> > f
  EXPECT_EQ(v.frame(1).name, "<module>");
  EXPECT_EQ(v.frame(2).name, "f");
  EXPECT_DOUBLE_EQ(v.metric(0, 0).inclusive, 15);
  EXPECT_DOUBLE_EQ(v.metric(1, 0).exclusive, 5);   // the call machinery's sample
  EXPECT_DOUBLE_EQ(v.metric(2, 0).inclusive, 10);
  EXPECT_DOUBLE_EQ(v.metric(2, 0).exclusive, 10);  // 1 + 3 + the eval loop's 2 + 4
  EXPECT_EQ(v.metric(2, 0).count, 4u);
  EXPECT_DOUBLE_EQ(v.metric(2, 0).max, 4);
  EXPECT_DOUBLE_EQ(v.metric(2, 0).min, 1);
  View bu = Build(*p, ViewKind::kBottomUp, FrameFilter::kPython);
  CheckSums(bu);
  // Bottom-up roots: f (10) and <module> (5).
  std::map<std::string, double> roots;
  for (size_t i = 1; i < bu.size(); ++i) if (bu.parent[i] == 0) roots[bu.frame(i).name] = bu.metric(i, 0).inclusive;
  EXPECT_EQ(roots.size(), 2u);
  EXPECT_DOUBLE_EQ(roots["f"], 10);
  EXPECT_DOUBLE_EQ(roots["<module>"], 5);
}

// A stack cut at the depth limit keeps its marker frame in every view, flagged, not folded.
TEST(PythonView, TruncatedStacksStayMarked) {
  fmt::ProfileWriter w;
  uint32_t cpu = w.Metric("cpu_time", "ns");
  uint32_t py = w.Module("/usr/bin/python3.12", "", 0x1000);
  uint32_t cut = w.Frame(fmt::FrameKind::kNative, fmt::kNone, 0, "<stack truncated: depth limit>", "", 0,
                         fmt::kFrameFlagTruncation);
  uint32_t t = w.Child(0, cut);
  uint32_t e = w.Child(t, w.Frame(fmt::FrameKind::kNative, py, 0x20, "_PyEval_EvalFrameDefault", "", 0));
  uint32_t r = w.Child(e, w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "recurse", "/src/app.py", 4));
  w.AddStats(r, cpu, StatsOf({7}));
  auto p = Profile::FromBytes(w.Serialize());
  for (ViewKind kind : {ViewKind::kTopDown, ViewKind::kBottomUp}) {
    View v = Build(*p, kind, FrameFilter::kPython);
    bool found = false;
    for (size_t i = 1; i < v.size(); ++i)
      if (v.frame(i).truncated) {
        found = true;
        EXPECT_EQ(v.frame(i).name, "<stack truncated: depth limit>");
        EXPECT_EQ(v.frame(i).origin, FrameOrigin::kNone);
        EXPECT_DOUBLE_EQ(v.metric(i, 0).inclusive, 7);
      }
    EXPECT_TRUE(found) << strata::core::ViewKindName(kind);
    EXPECT_EQ(v.size(), 3u);  // root, the marker, recurse (the eval loop folded)
  }
}

}  // namespace
