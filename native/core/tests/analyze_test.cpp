// Analyzers: for each built-in rule a profile that must trigger it (at the right source line)
// and a twin that must not; the user-rule language (matching, errors with FILE:LINE, other
// rules still running); `strata analyze` output formats and bad input.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "analyze/run_phases.h"
#include "analyze/sys_path_files.h"
#include "strata/core/analyze.h"
#include "test_util.h"

namespace fmt = strata::format;
using strata::core::AnalysisResult;
using strata::core::Analyze;
using strata::core::AnalyzeOptions;
using strata::core::Finding;
using strata::core::Profile;

namespace {

// A small profile builder: frames by (kind, name, file, line), metrics by name.
class Builder {
 public:
  uint32_t Metric(const std::string& name, const std::string& unit = "ns") {
    auto it = metrics_.find(name);
    if (it != metrics_.end()) return it->second;
    return metrics_[name] = w_.Metric(name, unit);
  }
  uint32_t Node(uint32_t parent, fmt::FrameKind kind, const std::string& name, const std::string& file = "",
                uint32_t line = 0) {
    return w_.Child(parent, w_.Frame(kind, fmt::kNone, 0, name, file, line));
  }
  uint32_t NativeIn(uint32_t parent, const std::string& module, const std::string& name, const std::string& file,
                    uint32_t line) {
    return w_.Child(parent, w_.Frame(fmt::FrameKind::kNative, w_.Module(module, "", 0), 0, name, file, line));
  }
  // `count` events of `each` (exclusive) on `node`.
  void AddStats(uint32_t node, const std::string& metric, const fmt::MetricStats& s) { w_.AddStats(node, Metric(metric), s); }
  void Add(uint32_t node, const std::string& metric, double each, int count = 1) {
    fmt::MetricStats s;
    for (int i = 0; i < count; ++i) s.Add(each);
    w_.AddStats(node, Metric(metric), s);
  }
  void Meta(const std::string& k, const std::string& v) { w_.Meta(k, v); }
  std::unique_ptr<Profile> Build() { return Profile::FromBytes(w_.Serialize()); }

 private:
  fmt::ProfileWriter w_;
  std::map<std::string, uint32_t> metrics_;
};

using K = fmt::FrameKind;

std::vector<Finding> Of(const AnalysisResult& r, const std::string& rule) {
  std::vector<Finding> out;
  for (const auto& f : r.findings) if (f.rule == rule) out.push_back(f);
  return out;
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = std::string(::testing::TempDir()) + "/" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST(Analyze, HotspotPointsAtTheHeavyLine) {
  Builder b;
  b.Metric("cpu_time");
  uint32_t main = b.Node(0, K::kPython, "main", "/w/app.py", 10);
  uint32_t hot = b.Node(main, K::kPython, "hot", "/w/app.py", 3);
  uint32_t cold = b.Node(main, K::kPython, "cold", "/w/app.py", 6);
  b.Add(hot, "cpu_time", 1e6, 75);
  b.Add(cold, "cpu_time", 1e6, 25);
  auto r = Analyze(*b.Build());
  auto hs = Of(r, "hotspot");
  ASSERT_EQ(hs.size(), 2u);  // 75% and 25% both exceed 10%
  EXPECT_EQ(hs[0].location.line, 3u);
  EXPECT_EQ(hs[0].location.file, "/w/app.py");
  EXPECT_EQ(hs[0].severity, "warning");
  EXPECT_NE(hs[0].message.find("75%"), std::string::npos) << hs[0].message;
  EXPECT_EQ(hs[0].path.size(), 2u);
  EXPECT_EQ(hs[0].path[0].name, "main");
}

TEST(Analyze, HotspotTwinSpreadThinFindsNothing) {
  Builder b;
  b.Metric("cpu_time");
  uint32_t main = b.Node(0, K::kPython, "main", "/w/app.py", 10);
  for (int i = 0; i < 20; ++i) b.Add(b.Node(main, K::kPython, "f" + std::to_string(i), "/w/app.py", 20 + i), "cpu_time", 1e6, 5);
  EXPECT_TRUE(Of(Analyze(*b.Build()), "hotspot").empty());
}

// A library function hot under one user line over several call paths (a warm-up loop and the
// timed loop): one finding, at the user's line, with the other path as evidence; never "make the
// function itself cheaper" about the library.
TEST(Analyze, HotspotDecidesAtTheUserLineAcrossCallPaths) {
  Builder b;
  b.Metric("cpu_time");
  uint32_t main = b.Node(0, K::kPython, "main", "/w/app.py", 1);
  for (int i = 0; i < 2; ++i) {
    uint32_t loop = b.Node(main, K::kPython, "main", "/w/app.py", 10 + i);
    uint32_t line = b.Node(loop, K::kPython, "step", "/w/app.py", 30);
    uint32_t lib = b.Node(line, K::kPython, "helper", "/venv/lib/python3.12/site-packages/lib/x.py", 5);
    b.Add(b.Node(lib, K::kNative, "memcpy_like"), "cpu_time", 1e6, 30);
  }
  auto hs = Of(Analyze(*b.Build()), "hotspot");
  ASSERT_EQ(hs.size(), 1u);
  EXPECT_EQ(hs[0].location.file, "/w/app.py");
  EXPECT_EQ(hs[0].location.line, 30u);
  EXPECT_EQ(hs[0].other_paths.size(), 1u);
  EXPECT_NE(hs[0].message.find("library code it calls"), std::string::npos) << hs[0].message;
  EXPECT_EQ(hs[0].message.find("make the function itself cheaper"), std::string::npos);
}

// Imports, compilation and autotuning are not the steady state: by default they are left out.
TEST(Analyze, PhasesOtherThanTheSteadyStateAreLeftOut) {
  Builder b;
  b.Metric("cpu_time");
  uint32_t main = b.Node(0, K::kPython, "<module>", "/w/app.py", 1);
  uint32_t imp = b.Node(main, K::kPython, "<module>", "/w/app.py", 2);
  b.Add(b.Node(b.Node(imp, K::kPython, "_find_and_load", "<frozen importlib._bootstrap>", 1), K::kNative, "read"),
        "cpu_time", 1e6, 800);
  uint32_t comp = b.Node(main, K::kPython, "<module>", "/w/app.py", 3);
  b.Add(b.Node(comp, K::kPython, "_compile", "/venv/lib/python3.12/site-packages/torch/_dynamo/convert_frame.py", 9),
        "cpu_time", 1e6, 800);
  uint32_t work = b.Node(main, K::kPython, "<module>", "/w/app.py", 4);
  b.Add(work, "cpu_time", 1e6, 100);
  auto steady = Of(Analyze(*b.Build()), "hotspot");
  ASSERT_EQ(steady.size(), 1u);
  EXPECT_EQ(steady[0].location.line, 4u);
  AnalyzeOptions all;
  all.all_phases = true;
  auto every = Of(Analyze(*b.Build(), all), "hotspot");
  // Line 4 is under 10% of everything; lines 2 and 3 (library time in one function) are one cause.
  ASSERT_EQ(every.size(), 1u);
  EXPECT_NE(every[0].location.line, 4u);
  EXPECT_EQ(every[0].other_paths.size(), 1u);
}

// A CUDA C++ program's kernels: no framework advice, counts for people.
TEST(Analyze, PlainCudaGetsNoFrameworkAdviceAndReadableCounts) {
  Builder b;
  b.Metric("cpu_time");
  b.Metric("gpu_time");
  b.Metric("api_time");
  uint32_t line = b.Node(b.Node(0, K::kNative, "main", "/w/app.cu", 40), K::kNative, "loop", "/w/app.cu", 44);
  b.Add(line, "cpu_time", 1e6, 20);
  for (int k = 0; k < 3; ++k) {
    uint32_t api = b.Node(line, K::kGpuApi, "cudaLaunchKernel");
    b.Add(api, "api_time", 4000, 1000);
    b.Add(b.Node(api, K::kKernel, "tiny_kernel_" + std::to_string(k)), "gpu_time", 2000, 1000);
  }
  auto r = Analyze(*b.Build());
  auto fusion = Of(r, "kernel-fusion");
  ASSERT_EQ(fusion.size(), 1u);
  EXPECT_NE(fusion[0].message.find("3,000 kernels"), std::string::npos) << fusion[0].message;
  EXPECT_NE(fusion[0].message.find("CUDA graph"), std::string::npos) << fusion[0].message;
  for (const auto& f : r.findings)
    for (const char* word : {"torch", "DataLoader", "pinned", "e+0"})
      EXPECT_EQ(f.message.find(word), std::string::npos) << word << " in: " << f.message;
}

// A Python line that launches 400 tiny kernels (an unfused elementwise chain) and its fused twin.
std::unique_ptr<Profile> LaunchLoop(int kernels_per_iter, double kernel_ns, int iters) {
  Builder b;
  b.Metric("cpu_time");
  b.Metric("gpu_time");
  b.Metric("api_time");
  uint32_t step = b.Node(0, K::kPython, "step", "/w/train.py", 20);
  uint32_t line = b.Node(step, K::kPython, "act", "/w/train.py", 7);
  b.Add(line, "cpu_time", 1e6, 50);
  for (int k = 0; k < kernels_per_iter; ++k) {
    uint32_t op = b.Node(line, K::kOperator, "aten::op" + std::to_string(k));
    uint32_t api = b.Node(op, K::kGpuApi, "cudaLaunchKernel");
    b.Add(api, "api_time", 4000, iters);
    b.Add(b.Node(api, K::kKernel, "elementwise_kernel_" + std::to_string(k)), "gpu_time", kernel_ns, iters);
  }
  return b.Build();
}

TEST(Analyze, KernelFusionFlagsThePythonLine) {
  auto r = Analyze(*LaunchLoop(4, 3000, 100));
  auto f = Of(r, "kernel-fusion");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].location.line, 7u);
  EXPECT_EQ(f[0].path.back().name, "act");
  EXPECT_NE(f[0].message.find("400 kernels"), std::string::npos) << f[0].message;
  double overhead = -1;
  for (const auto& e : f[0].evidence) if (e.name == "launch_overhead_share") overhead = e.value;
  EXPECT_NEAR(overhead, 4000.0 / 7000.0, 1e-9);
}

TEST(Analyze, KernelFusionTwinFusedFindsNothing) {
  EXPECT_TRUE(Of(Analyze(*LaunchLoop(1, 2e6, 100)), "kernel-fusion").empty());
}

// Advanced indexing: IndexBackward0 under the forward aten::index at the embedding line.
std::unique_ptr<Profile> Indexing(double fwd_ns, double bwd_ns) {
  Builder b;
  b.Metric("gpu_time");
  uint32_t fwd = b.Node(0, K::kPython, "forward", "/w/model.py", 30);
  uint32_t line = b.Node(fwd, K::kPython, "lookup", "/w/model.py", 12);
  uint32_t op = b.Node(line, K::kOperator, "aten::index");
  b.Add(b.Node(b.Node(op, K::kGpuApi, "cudaLaunchKernel"), K::kKernel, "index_kernel"), "gpu_time", fwd_ns, 10);
  uint32_t bwd = b.Node(op, K::kOperator, "IndexBackward0");
  b.Add(b.Node(b.Node(bwd, K::kGpuApi, "cudaLaunchKernel"), K::kKernel, "index_put_kernel"), "gpu_time", bwd_ns, 10);
  uint32_t other = b.Node(line, K::kOperator, "aten::mm");
  b.Add(b.Node(b.Node(other, K::kGpuApi, "cudaLaunchKernel"), K::kKernel, "gemm"), "gpu_time", 5e5, 10);
  return b.Build();
}

TEST(Analyze, ForwardBackwardNamesTheForwardLine) {
  auto f = Of(Analyze(*Indexing(1e5, 5e6)), "forward-backward");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].location.line, 12u);
  EXPECT_EQ(f[0].location.name, "lookup");
  EXPECT_NE(f[0].message.find("aten::index"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("IndexBackward0"), std::string::npos) << f[0].message;
}

TEST(Analyze, ForwardBackwardTwinIndexSelectFindsNothing) {
  EXPECT_TRUE(Of(Analyze(*Indexing(1e5, 1.5e5)), "forward-backward").empty());
}

std::unique_ptr<Profile> Stalls(double scoreboard, double other) {
  Builder b;
  b.Metric("gpu_time");
  b.Metric("stall_long_scoreboard", "samples");
  b.Metric("stall_math_pipe_throttle", "samples");
  uint32_t line = b.Node(0, K::kPython, "step", "/w/train.py", 5);
  uint32_t k = b.Node(b.Node(line, K::kGpuApi, "cudaLaunchKernel"), K::kKernel, "gather_kernel");
  b.Add(k, "gpu_time", 1e6, 10);
  uint32_t pc1 = b.Node(k, K::kPc, "gather_kernel+0x120", "/w/gather.cu", 41);
  uint32_t pc2 = b.Node(k, K::kPc, "gather_kernel+0x200", "/w/gather.cu", 57);
  b.Add(pc1, "stall_long_scoreboard", scoreboard * 0.8);
  b.Add(pc2, "stall_long_scoreboard", scoreboard * 0.2);
  b.Add(pc1, "stall_math_pipe_throttle", other / 2);
  b.Add(pc2, "stall_math_pipe_throttle", other / 2);
  return b.Build();
}

TEST(Analyze, StallNamesReasonAndLine) {
  auto f = Of(Analyze(*Stalls(900, 100)), "stall");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].location.file, "/w/gather.cu");
  EXPECT_EQ(f[0].location.line, 41u);
  EXPECT_NE(f[0].message.find("long_scoreboard"), std::string::npos) << f[0].message;
}

TEST(Analyze, StallTwinThroughputBoundFindsNothing) {
  // 70% of the samples on a busy math pipe: the kernel issues, latency is no problem there.
  EXPECT_TRUE(Of(Analyze(*Stalls(300, 700)), "stall").empty());
  // Latency reasons at half: flagged, and the reason is long_scoreboard although the throughput
  // reason has as many samples.
  auto f = Of(Analyze(*Stalls(500, 500)), "stall");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("stalls mostly on long_scoreboard"), std::string::npos) << f[0].message;
}

TEST(Analyze, StallPointsAtTheHeaviestLineNotTheHeaviestPc) {
  // Line 12 (an inlined helper at two call sites) has 30 + 31 samples, line 20 one pc of 40.
  Builder b;
  b.Metric("gpu_time");
  b.Metric("stall_wait", "count");
  b.Metric("stall_selected", "count");
  uint32_t k = b.Node(b.Node(0, K::kGpuApi, "cudaLaunchKernel"), K::kKernel, "chain");
  b.Add(k, "gpu_time", 1e6, 1);
  uint32_t a = b.Node(k, K::kPc, "chain+0x10", "/w/k.cu", 12);
  uint32_t c = b.Node(k, K::kPc, "chain+0x20", "/w/k.cu", 12);
  uint32_t d = b.Node(k, K::kPc, "chain+0x30", "/w/k.cu", 20);
  b.Add(a, "stall_wait", 30);
  b.Add(c, "stall_wait", 31);
  b.Add(d, "stall_wait", 40);
  b.Add(d, "stall_selected", 20);
  auto f = Of(Analyze(*b.Build()), "stall");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].location.line, 12u);
  EXPECT_EQ(f[0].path.back().line, 12u);
  EXPECT_NE(f[0].message.find("at k.cu:12 60%, k.cu:20 40%."), std::string::npos) << f[0].message;
}

std::unique_ptr<Profile> Latency(double cpu_ns, double gpu_ns, const std::string& duration) {
  Builder b;
  b.Metric("cpu_time");
  b.Metric("gpu_time");
  b.Meta("duration_ns", duration);
  uint32_t loop = b.Node(0, K::kPython, "train", "/w/train.py", 40);
  uint32_t prep = b.Node(loop, K::kPython, "prepare", "/w/train.py", 44);
  b.Add(prep, "cpu_time", cpu_ns);
  b.Add(b.Node(b.Node(prep, K::kGpuApi, "cudaLaunchKernel"), K::kKernel, "k"), "gpu_time", gpu_ns);
  return b.Build();
}

TEST(Analyze, CpuLatencyFlagsTheLine) {
  auto f = Of(Analyze(*Latency(9e8, 1e7, "1000000000")), "cpu-latency");
  ASSERT_EQ(f.size(), 1u);  // the line says it; the run-level finding does not repeat it
  EXPECT_EQ(f[0].location.line, 44u);
}

// The run is CPU-bound on a line that launches nothing: the run-level finding names that line.
TEST(Analyze, CpuLatencyIdleGpuNamesTheCpuLine) {
  Builder b;
  b.Metric("cpu_time");
  b.Metric("gpu_time");
  b.Meta("duration_ns", "1000000000");
  uint32_t loop = b.Node(0, K::kNative, "_start");  // no user Python line above both
  b.Add(b.Node(loop, K::kPython, "train", "/w/train.py", 44), "cpu_time", 9e8);
  uint32_t launch = b.Node(loop, K::kPython, "train", "/w/train.py", 46);
  b.Add(launch, "cpu_time", 1e6);
  b.Add(b.Node(b.Node(launch, K::kGpuApi, "cudaLaunchKernel"), K::kKernel, "k"), "gpu_time", 1e7);
  auto f = Of(Analyze(*b.Build()), "cpu-latency");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].location.line, 44u);
  EXPECT_NE(f[0].message.find("drives no GPU work"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("busy about 1.0%"), std::string::npos) << f[0].message;
}

// Strata's own work (launch callbacks, operator contexts) on the main thread is in its CPU time
// and stretched the run; with it left out, a program whose GPU is busy 60% of the time is not
// CPU-bound. Recorded: 1 s of run, 0.95 s main-thread CPU of which 0.5 s the profiler's, 0.3 s of GPU.
TEST(Analyze, CpuLatencyLeavesTheProfilersOwnTimeOut) {
  auto make = [](bool with_profiler_time) {
    Builder b;
    b.Metric("cpu_time");
    b.Metric("gpu_time");
    if (with_profiler_time) b.Metric("profiler_time");
    b.Meta("duration_ns", "1000000000");
    uint32_t loop = b.Node(0, K::kPython, "train", "/w/train.py", 40);
    uint32_t step = b.Node(loop, K::kPython, "step", "/w/train.py", 44);
    b.Add(step, "cpu_time", 0.95e9);
    uint32_t api = b.Node(step, K::kGpuApi, "cudaLaunchKernel");
    if (with_profiler_time) b.Add(api, "profiler_time", 0.5e9);
    b.Add(b.Node(api, K::kKernel, "k"), "gpu_time", 0.3e9);
    return b.Build();
  };
  EXPECT_FALSE(Of(Analyze(*make(false)), "cpu-latency").empty());  // 30% busy as recorded
  EXPECT_TRUE(Of(Analyze(*make(true)), "cpu-latency").empty());    // 60% busy without Strata
}

// The runtime's wall time between the main thread's samples (elapsed_time) gives the steady
// state's wall time itself, instead of the run's duration scaled by the main thread's CPU share
// (off where the thread waited outside the steady state: building the operator plugin).
TEST(Analyze, CpuLatencyTakesTheSteadyStatesWallTimeFromTheSamples) {
  auto judged = [](bool with_elapsed) {
    Builder b;
    b.Metric("cpu_time");
    b.Metric("gpu_time");
    if (with_elapsed) b.Metric("elapsed_time");
    b.Meta("duration_ns", "1200000000");
    uint32_t loop = b.Node(0, K::kPython, "train", "/w/train.py", 40);
    uint32_t step = b.Node(loop, K::kPython, "step", "/w/train.py", 44);
    b.Add(step, "cpu_time", 0.9e9);
    if (with_elapsed) b.Add(step, "elapsed_time", 1e9);
    b.Add(b.Node(b.Node(step, K::kGpuApi, "cudaLaunchKernel"), K::kKernel, "k"), "gpu_time", 0.2e9);
    auto f = Of(Analyze(*b.Build()), "cpu-latency");
    for (const auto& fd : f)
      for (const auto& e : fd.evidence)
        if (e.name == "judged_duration") return e.value;
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(judged(false), 1.2e9);
  EXPECT_DOUBLE_EQ(judged(true), 1e9);
}

// The judged_duration evidence of cpu-latency's run-level finding (-1 when it did not fire).
double JudgedDuration(const Profile& p) {
  for (const auto& fd : Of(Analyze(p), "cpu-latency"))
    for (const auto& e : fd.evidence)
      if (e.name == "judged_duration") return e.value;
  return -1.0;
}

// PyTorch runs a CUDA backward on its autograd device thread while the calling thread waits; the
// runtime links the backward's samples under the forward's line. Their elapsed_time is that
// thread's wall time (its idle time during the forward included): the main thread's own samples
// already span the step. A CPU backward runs on the calling thread: its samples count.
TEST(Analyze, SteadyWallLeavesTheAutogradThreadsSamplesOut) {
  auto judged = [](bool backward_on_gpu) {
    Builder b;
    b.Metric("cpu_time");
    b.Metric("gpu_time");
    b.Metric("elapsed_time");
    b.Meta("duration_ns", "3000000000");
    uint32_t step = b.Node(b.Node(0, K::kPython, "train", "/w/train.py", 40), K::kPython, "step", "/w/train.py", 44);
    b.Add(step, "cpu_time", 0.8e9);
    b.Add(step, "elapsed_time", 1e9);
    uint32_t fwd = b.Node(step, K::kOperator, "aten::linear");
    b.Add(b.Node(b.Node(fwd, K::kGpuApi, "cudaLaunchKernel"), K::kKernel, "k"), "gpu_time", 0.15e9);
    uint32_t bwd = b.Node(fwd, K::kOperator, "autograd::engine::evaluate_function: AddmmBackward0");
    b.Add(bwd, "cpu_time", 0.3e9);
    b.Add(bwd, "elapsed_time", 0.9e9);
    if (backward_on_gpu) b.Add(b.Node(b.Node(bwd, K::kGpuApi, "cudaLaunchKernel"), K::kKernel, "k2"), "gpu_time", 0.1e9);
    return JudgedDuration(*b.Build());
  };
  EXPECT_DOUBLE_EQ(judged(true), 1e9);
  EXPECT_DOUBLE_EQ(judged(false), 1.9e9);
}

// A warm-up loop and the timed loop call one step function from two lines of main. Per GPU
// launch (the same kernels each step) the warm-up line costs twice the timed one: its first steps
// held one-time work no frame marks, and the steady state is the timed loop. Twin: the same cost
// per launch: both loops are steady.
TEST(Analyze, WarmupLoopWithOneTimeWorkIsNotTheSteadyState) {
  auto judged = [](double warm_wall) {
    Builder b;
    b.Metric("cpu_time");
    b.Metric("gpu_time");
    b.Metric("elapsed_time");
    b.Meta("duration_ns", "5000000000");
    uint32_t mod = b.Node(0, K::kPython, "<module>", "/w/bench.py", 30);
    auto loop = [&](uint32_t line, double wall, int launches) {
      uint32_t st = b.Node(b.Node(mod, K::kPython, "main", "/w/bench.py", line), K::kPython, "step", "/w/bench.py", 10);
      b.Add(st, "cpu_time", 0.9 * wall);
      b.Add(st, "elapsed_time", wall);
      b.Add(b.Node(b.Node(st, K::kGpuApi, "cudaLaunchKernel"), K::kKernel, "k"), "gpu_time", 1e6, launches);
    };
    loop(20, warm_wall, 100);
    loop(24, 1e9, 200);
    auto p = b.Build();
    auto f = Of(Analyze(*p), "cpu-latency");
    if (warm_wall > 0.5e9 && !f.empty())
      EXPECT_NE(f[0].message.find("line 20 (2.0x line 24's cost per GPU launch"), std::string::npos) << f[0].message;
    return JudgedDuration(*p);
  };
  EXPECT_DOUBLE_EQ(judged(1e9), 1e9);      // 10 ms a launch against 5: warm-up
  EXPECT_DOUBLE_EQ(judged(0.5e9), 1.5e9);  // 5 ms a launch in both: steady
}

// RecordFunction's calls to its observers run only while a profiler watches the operators.
TEST(Analyze, RecordFunctionsObserverCallsAreTheProfilers) {
  using strata::core::detail::FramePhaseMark;
  using strata::core::detail::PhaseMark;
  strata::core::FrameInfo f;
  f.kind = "native";
  f.module = "/venv/lib/python3.12/site-packages/torch/lib/libtorch_cpu.so";
  f.name = "at::RecordFunction::runStartCallbacks()";
  EXPECT_EQ(FramePhaseMark(f), PhaseMark::kProfiler);
  f.name = "c10::Dispatcher::runRecordFunction(at::RecordFunction&, std::reference_wrapper<c10::OperatorHandle const> const&, c10::DispatchKey)";
  EXPECT_EQ(FramePhaseMark(f), PhaseMark::kProfiler);
  f.name = "at::native::add_kernel(at::TensorIteratorBase&, c10::Scalar const&)";
  EXPECT_EQ(FramePhaseMark(f), PhaseMark::kNone);
}

// A pyenv interpreter's extension modules carry the paths of its build (/tmp/python-build...):
// their C code is the interpreter's, not the user's; the hotspot goes to the user's line.
TEST(Analyze, InterpretersBuildPathsAreNotTheUsersCode) {
  Builder b;
  b.Metric("cpu_time");
  uint32_t line = b.Node(b.Node(0, K::kPython, "<module>", "/w/train_loop.py", 56), K::kPython, "make_batch", "/w/train_loop.py", 35);
  uint32_t init = b.NativeIn(line, "/root/.pyenv/versions/3.11.7/lib/python3.11/lib-dynload/_ctypes.cpython-311-x86_64-linux-gnu.so",
                             "Array_init", "/tmp/python-build.1/Python-3.11.7/Modules/_ctypes/_ctypes.c", 4565);
  b.Add(init, "cpu_time", 5e8);
  b.Add(line, "cpu_time", 1e8);
  for (const auto& f : Of(Analyze(*b.Build()), "hotspot"))
    EXPECT_EQ(f.location.file, "/w/train_loop.py") << f.message;
}

TEST(Analyze, CpuLatencyTwinGpuBoundFindsNothing) {
  EXPECT_TRUE(Of(Analyze(*Latency(1e7, 9e8, "1000000000")), "cpu-latency").empty());
}

// region-wait: kernel > k-loop > k-loop (iteration) > {load (cp.async) with its wait, compute},
// 1000 iterations; the loop's own time 1 ms.
std::unique_ptr<Profile> RegionWaits(double wait_each) {
  Builder b;
  uint32_t launch = b.Node(0, K::kGpuApi, "cudaLaunchKernel");
  uint32_t k = b.Node(launch, K::kKernel, "gemm");
  b.Add(k, "gpu_time", 2.5e6);
  uint32_t loop = b.Node(k, K::kRegion, "k-loop");
  uint32_t it = b.Node(loop, K::kRegion, "k-loop (iteration)");
  uint32_t load = b.Node(it, K::kRegion, "load (cp.async)", "/w/gemm.cu", 75);
  uint32_t comp = b.Node(it, K::kRegion, "compute");
  b.Add(loop, "region_time", 1e6);
  b.Add(load, "region_time", 600, 1000);
  b.Add(load, "region_wait_time", wait_each, 1000);
  b.Add(comp, "region_time", 400, 1000);
  return b.Build();
}

TEST(Analyze, RegionWaitNamesTheLoadAndItsLoop) {
  // 1000 waits of 500 ns in a 2 ms loop: 25%, a warning on the load's marker line.
  auto f = Of(Analyze(*RegionWaits(500)), "region-wait");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, "warning");
  EXPECT_EQ(f[0].location.file, "/w/gemm.cu");
  EXPECT_EQ(f[0].location.line, 75u);
  EXPECT_NE(f[0].message.find("`load (cp.async) (gemm.cu:75)` waits for its data 25% of `k-loop`'s time"), std::string::npos)
      << f[0].message;
  EXPECT_NE(f[0].message.find("500 ns each; issue to arrival 600 ns"), std::string::npos) << f[0].message;
  // 15%: still flagged, as a note.
  auto n = Of(Analyze(*RegionWaits(300)), "region-wait");
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].severity, "note");
}

TEST(Analyze, RegionWaitTwinHiddenLoadFindsNothing) {
  EXPECT_TRUE(Of(Analyze(*RegionWaits(50)), "region-wait").empty());  // 2.5%: the pipeline hides it
}

TEST(Analyze, RegionWaitOnTheH100Gemm) {
  // strata record --regions on test/regions/plain_app.cu (2-stage cp.async SGEMM): the loads
  // wait 176 us of the k-loop's 7.7 ms (2.3%): hidden well enough for the default threshold.
  auto p = Profile::Open(std::string(STRATA_REGIONS_FIXTURES) + "/runtime_capture.strata");
  EXPECT_TRUE(Of(Analyze(*p), "region-wait").empty());
  AnalyzeOptions o;
  o.thresholds["region-wait.min_share"] = 0.02;
  auto f = Of(Analyze(*p, o), "region-wait");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("`load (cp.async) (kernels.cuh:79)` waits for its data 2.3% of `k-loop`'s time"),
            std::string::npos)
      << f[0].message;
  // On the marker's line, from the program's names table.
  EXPECT_EQ(f[0].location.file, "kernels.cuh");
  EXPECT_EQ(f[0].location.line, 79u);
  double share = -1;
  for (const auto& e : f[0].evidence) if (e.name == "wait_share") share = e.value;
  EXPECT_NEAR(share, 0.0226, 0.0005);
}

// region-imbalance: a kernel's outermost region, one instance per lane; `slow` lanes of 1.6 us
// among 30 of 1 us.
std::unique_ptr<Profile> Lanes(int slow) {
  Builder b;
  uint32_t k = b.Node(b.Node(0, K::kGpuApi, "cudaLaunchKernel"), K::kKernel, "gemm");
  b.Add(k, "gpu_time", 2e3);
  uint32_t r = b.Node(k, K::kRegion, "kernel", "/w/gemm.cu", 12);
  fmt::MetricStats s;
  for (int i = 0; i < 30; ++i) s.Add(1000);
  for (int i = 0; i < slow; ++i) s.Add(1600);
  b.AddStats(r, "region_time", s);
  return b.Build();
}

TEST(Analyze, RegionImbalanceNamesTheSlowestLane) {
  auto f = Of(Analyze(*Lanes(1)), "region-imbalance");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, "warning");  // 1.6 / 1.02 = +57%: twice the threshold
  EXPECT_EQ(f[0].location.line, 12u);
  EXPECT_NE(f[0].message.find("the slowest of 31 takes 57% longer than the mean (1.6 us vs 1.0 us"), std::string::npos)
      << f[0].message;
}

TEST(Analyze, RegionImbalanceTwinBalancedFindsNothing) {
  EXPECT_TRUE(Of(Analyze(*Lanes(0)), "region-imbalance").empty());
  // The H100 SGEMM capture: 96 lanes within 1.3% of each other.
  auto p = Profile::Open(std::string(STRATA_REGIONS_FIXTURES) + "/runtime_capture.strata");
  EXPECT_TRUE(Of(Analyze(*p), "region-imbalance").empty());
}

// data-loader: a training loop whose main thread loads its batches itself (num_workers=0), and
// one that waits for its worker processes. Frames as CPython 3.12 names them.
constexpr const char* kDataLoaderPy = "/venv/lib/python3.12/site-packages/torch/utils/data/dataloader.py";
constexpr const char* kFetchPy = "/venv/lib/python3.12/site-packages/torch/utils/data/_utils/fetch.py";
constexpr const char* kCollatePy = "/venv/lib/python3.12/site-packages/torch/utils/data/_utils/collate.py";

// <module>:60 > main:47 (for x, y in loader) > the loader's frames > Items.__getitem__ (train.py:20),
// and main:49 (the step) with `step_ms` of CPU; with `gpu_ms` > 0 the step launches a kernel.
std::unique_ptr<Profile> SingleProcessLoader(double load_ms, double step_ms, double gpu_ms,
                                             const std::vector<std::string>& names = {
                                                 "_BaseDataLoaderIter.__next__", "_SingleProcessDataLoaderIter._next_data",
                                                 "_MapDatasetFetcher.fetch"}) {
  Builder b;
  b.Metric("cpu_time");
  if (gpu_ms > 0) b.Metric("gpu_time");
  b.Meta("cpu_cores", "8");
  b.Meta("period_ns", "10000000");
  b.Meta("duration_ns", std::to_string(int64_t((load_ms + step_ms) * 1e6)));
  uint32_t mod = b.Node(0, K::kPython, "<module>", "/w/train.py", 60);
  uint32_t loop = b.Node(mod, K::kPython, "main", "/w/train.py", 47);
  uint32_t next = b.Node(loop, K::kPython, names[0], kDataLoaderPy, 628);
  uint32_t inner = b.Node(next, K::kPython, names[1], kDataLoaderPy, 671);
  uint32_t fetch = b.Node(inner, K::kPython, names[2], kFetchPy, 58);
  uint32_t item = b.Node(fetch, K::kPython, "Items.__getitem__", "/w/train.py", 20);
  b.Add(b.Node(item, K::kNative, "at::native::flip"), "cpu_time", 1e6, int(load_ms * 0.95));
  b.Add(b.Node(fetch, K::kPython, "default_collate", kCollatePy, 140), "cpu_time", 1e6, int(load_ms * 0.05));
  uint32_t step = b.Node(loop, K::kPython, "main", "/w/train.py", 49);
  b.Add(step, "cpu_time", 1e6, int(step_ms));
  if (gpu_ms > 0) b.Add(b.Node(b.Node(step, K::kGpuApi, "cudaLaunchKernel"), K::kKernel, "gemm_kernel"), "gpu_time", gpu_ms * 1e6);
  return b.Build();
}

TEST(Analyze, DataLoaderWithoutWorkersAtTheLoopLine) {
  auto r = Analyze(*SingleProcessLoader(600, 400, 0));
  auto f = Of(r, "data-loader");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].location.line, 47u);
  EXPECT_EQ(f[0].severity, "warning");
  EXPECT_EQ(f[0].cause, "single-process");
  for (const char* word : {"num_workers=0", "60%", "num_workers=8", "`Items.__getitem__` in train.py 95%", "collating 5.0%"})
    EXPECT_NE(f[0].message.find(word), std::string::npos) << word << " in: " << f[0].message;
  EXPECT_EQ(f[0].message.find("pin_memory"), std::string::npos) << "no GPU, no pinned memory: " << f[0].message;
  EXPECT_EQ(f[0].evidence[0].name, "loader_share");
  EXPECT_DOUBLE_EQ(f[0].evidence[0].value, 0.6);
  // The dataset's own time is the loader's: no second finding on __getitem__.
  for (const auto& h : Of(r, "hotspot")) EXPECT_NE(h.location.line, 20u) << h.message;
  // Without the rule, the hotspot speaks there again (what the merge left to the rule).
  AnalyzeOptions o;
  o.disabled = {"data-loader"};
  bool item_hotspot = false;
  for (const auto& h : Of(Analyze(*SingleProcessLoader(600, 400, 0), o), "hotspot")) item_hotspot |= h.location.line == 20;
  EXPECT_TRUE(item_hotspot);
}

// CPython before 3.11 names frames without their class: the fetcher tells the single-process loader.
TEST(Analyze, DataLoaderKnowsBareFrameNames) {
  auto f = Of(Analyze(*SingleProcessLoader(600, 400, 0, {"__next__", "_next_data", "fetch"})), "data-loader");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].location.line, 47u);
  EXPECT_EQ(f[0].cause, "single-process");
}

TEST(Analyze, DataLoaderTwinCheapItemsFindsNothing) {
  EXPECT_TRUE(Of(Analyze(*SingleProcessLoader(50, 950, 0)), "data-loader").empty());
}

// With a GPU step: pinned memory is advised, and the loop's loading is not CPU latency of the line
// above (its launches) nor the reason the GPU idles (one cause, one finding).
TEST(Analyze, DataLoaderOnAGpuLoopIsTheOnlyCause) {
  auto r = Analyze(*SingleProcessLoader(600, 60, 40));
  auto f = Of(r, "data-loader");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("pin_memory=True"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("non_blocking=True"), std::string::npos) << f[0].message;
  for (const auto& c : Of(r, "cpu-latency")) ADD_FAILURE() << c.location.line << ": " << c.message;
  // Without the rule, cpu-latency blames the launches of the line above the loop.
  AnalyzeOptions o;
  o.disabled = {"data-loader"};
  EXPECT_FALSE(Of(Analyze(*SingleProcessLoader(600, 60, 40), o), "cpu-latency").empty());
}

// num_workers > 0, recorded in wall time: the main thread's wait is under the loader's frames.
std::unique_ptr<Profile> WorkerLoader(double wait_ms, double step_ms, const std::string& metric) {
  Builder b;
  b.Metric(metric);
  b.Meta("cpu_cores", "16");
  b.Meta("period_ns", "10000000");
  b.Meta("duration_ns", std::to_string(int64_t((wait_ms + step_ms) * 1e6 * (metric == "wall_time" ? 1 : 2))));
  uint32_t mod = b.Node(0, K::kPython, "<module>", "/w/train.py", 60);
  uint32_t loop = b.Node(mod, K::kPython, "main", "/w/train.py", 47);
  uint32_t iter = b.Node(loop, K::kPython, "DataLoader.__iter__", kDataLoaderPy, 435);
  b.Add(b.Node(iter, K::kNative, "fork"), metric, 1e6, 30);
  uint32_t next = b.Node(loop, K::kPython, "_BaseDataLoaderIter.__next__", kDataLoaderPy, 628);
  uint32_t inner = b.Node(next, K::kPython, "_MultiProcessingDataLoaderIter._next_data", kDataLoaderPy, 1316);
  uint32_t get = b.Node(inner, K::kPython, "_MultiProcessingDataLoaderIter._get_data", kDataLoaderPy, 1282);
  uint32_t queue = b.Node(get, K::kPython, "Queue.get", "/usr/lib/python3.12/multiprocessing/queues.py", 113);
  b.Add(b.Node(queue, K::kNative, "__poll"), metric, 1e6, int(wait_ms));
  b.Add(b.Node(loop, K::kPython, "main", "/w/train.py", 49), metric, 1e6, int(step_ms));
  return b.Build();
}

TEST(Analyze, DataLoaderWaitingForWorkers) {
  auto r = Analyze(*WorkerLoader(500, 470, "wall_time"));
  auto f = Of(r, "data-loader");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].location.line, 47u);
  EXPECT_EQ(f[0].severity, "warning");
  EXPECT_EQ(f[0].cause, "worker-wait");
  for (const char* word : {"waits 50% of the steady state", "num_workers=16", "prefetch_factor", "persistent_workers",
                           "starting them took 3.0% here"})
    EXPECT_NE(f[0].message.find(word), std::string::npos) << word << " in: " << f[0].message;
  for (const auto& h : Of(r, "hotspot")) EXPECT_EQ(h.message.find("__poll"), std::string::npos) << h.message;
  // A CPU-time profile does not see the wait: the main thread's idle time is an estimate, a note.
  auto cpu = Of(Analyze(*WorkerLoader(5, 470, "cpu_time")), "data-loader");
  ASSERT_EQ(cpu.size(), 1u);
  EXPECT_EQ(cpu[0].severity, "note");
  EXPECT_NE(cpu[0].message.find("off the CPU about"), std::string::npos) << cpu[0].message;
  EXPECT_EQ(cpu[0].evidence[0].name, "off_cpu_share");
}

TEST(Analyze, DataLoaderTwinWorkersKeepUpFindsNothing) {
  EXPECT_TRUE(Of(Analyze(*WorkerLoader(20, 950, "wall_time")), "data-loader").empty());
}

TEST(Analyze, UnknownThresholdIsAnError) {
  AnalyzeOptions o;
  o.thresholds["hotspot.shares"] = 0.1;
  EXPECT_THROW(Analyze(*Latency(1, 1, "1"), o), strata::core::Error);
}

TEST(Analyze, UserRuleMatchesPathAndMetrics) {
  std::string rules = WriteTemp("user.rules",
      "# slow sorts in the training loop\n"
      "[rule sort-in-loop]\n"
      "severity = error\n"
      "path = python:train@*train.py > ... > native:*sort*\n"
      "when = share(cpu_time) >= 20% and count(cpu_time) > 1\n"
      "message = {name} takes {share(cpu_time)} of CPU time under {location}; sort once before the loop.\n");
  Builder b;
  b.Metric("cpu_time");
  uint32_t train = b.Node(0, K::kPython, "train", "/w/train.py", 3);
  uint32_t step = b.Node(train, K::kPython, "step", "/w/train.py", 9);
  b.Add(b.Node(step, K::kNative, "std::sort<int*>"), "cpu_time", 1e6, 30);
  b.Add(b.Node(step, K::kNative, "compute"), "cpu_time", 1e6, 70);
  uint32_t other = b.Node(0, K::kPython, "eval", "/w/eval.py", 3);
  b.Add(b.Node(other, K::kNative, "std::sort<int*>"), "cpu_time", 1e6, 30);  // not under train
  AnalyzeOptions o;
  o.rule_files = {rules};
  o.disabled = {"hotspot"};
  auto r = Analyze(*b.Build(), o);
  EXPECT_TRUE(r.errors.empty()) << r.errors[0];
  auto f = Of(r, "sort-in-loop");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, "error");
  EXPECT_EQ(f[0].path.front().name, "train");
  EXPECT_NE(f[0].message.find("std::sort<int*> takes 23% of CPU time under step (train.py:9)"), std::string::npos)
      << f[0].message;
}

TEST(Analyze, RuleFileErrorsNameFileAndLineAndOthersRun) {
  std::string rules = WriteTemp("bad.rules",
      "[rule ok]\n"
      "when = self_share(cpu_time) > 50%\n"
      "message = {name} is hot\n"
      "\n"
      "[rule broken]\n"
      "when = inclusive(cpu_time) >> 3\n"
      "message = never\n"
      "[rule gpu-only]\n"
      "when = inclusive(gpu_time) > 1ms\n"
      "message = needs a GPU profile\n");
  Builder b;
  b.Metric("cpu_time");
  b.Add(b.Node(0, K::kPython, "hot", "/w/a.py", 1), "cpu_time", 1e6, 10);
  AnalyzeOptions o;
  o.rule_files = {rules};
  auto r = Analyze(*b.Build(), o);
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0].rfind(rules + ":6: ", 0), 0u) << r.errors[0];
  EXPECT_EQ(r.errors[1].rfind(rules + ":9: ", 0), 0u) << r.errors[1];
  EXPECT_NE(r.errors[1].find("unknown metric 'gpu_time'"), std::string::npos) << r.errors[1];
  EXPECT_EQ(Of(r, "ok").size(), 1u);        // the good user rule ran
  EXPECT_EQ(Of(r, "hotspot").size(), 1u);   // and the built-ins
}

// A finding without a source line (a kernel without line information, the whole run) is
// attached to the profile in every format, never to a made-up line 1; merged call paths are
// printed.
TEST(AnalyzeOutput, SourcelessFindingsAreAttachedToTheProfile) {
  AnalysisResult r;
  Finding kernel;
  kernel.rule = "hotspot";
  kernel.severity = "warning";
  kernel.message = "Kernel `spin` takes 80% of GPU time.";
  kernel.path = {{"native", "main", "", 0}, {"gpu_api", "cudaLaunchKernel", "", 0}, {"kernel", "spin", "", 0}};
  Finding whole = kernel;
  whole.rule = "cpu-latency";
  whole.path.clear();
  Finding no_line = kernel;
  no_line.location = {"native", "main", "/w/app.cu", 0};
  Finding merged = kernel;
  merged.location = {"python", "step", "/w/train.py", 30};
  merged.other_paths = {{{"python", "<module>", "/w/train.py", 12}, {"python", "step", "/w/train.py", 31}}};
  r.findings = {kernel, whole, no_line, merged};
  auto sarif = nlohmann::json::parse(strata::core::FindingsSarif(r, "/runs/p.strata"));
  const auto& results = sarif["runs"][0]["results"];
  EXPECT_EQ(sarif["runs"][0]["artifacts"][0]["location"]["uri"], "file:///runs/p.strata");
  for (int i : {0, 1}) {
    const auto& loc = results[i]["locations"][0];
    EXPECT_EQ(loc["physicalLocation"]["artifactLocation"]["index"], 0) << loc;
    EXPECT_EQ(loc["physicalLocation"]["artifactLocation"]["uri"], "file:///runs/p.strata") << loc;
    EXPECT_FALSE(loc["physicalLocation"].contains("region")) << loc;
  }
  EXPECT_EQ(results[0]["locations"][0]["logicalLocations"][0]["name"], "spin");
  EXPECT_FALSE(results[1]["locations"][0].contains("logicalLocations"));
  EXPECT_EQ(results[2]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "file:///w/app.cu");
  EXPECT_FALSE(results[2]["locations"][0]["physicalLocation"].contains("region"));  // the file, no line
  EXPECT_EQ(results[3]["locations"][0]["physicalLocation"]["region"]["startLine"], 30);
  auto json = nlohmann::json::parse(strata::core::FindingsJson(r, "/runs/p.strata"));
  EXPECT_EQ(json["profile"], "/runs/p.strata");
  EXPECT_EQ(json["findings"][0]["location"]["file"], "");
  EXPECT_EQ(json["findings"][0]["location"]["line"], 0);
  EXPECT_EQ(json["findings"][3]["other_paths"][0][1]["line"], 31);
  std::string text = strata::core::FindingsText(r);
  EXPECT_NE(text.find("warning [hotspot] (no source line)"), std::string::npos) << text;
  EXPECT_NE(text.find("  also: <module> (train.py:12) > step (train.py:31)"), std::string::npos) << text;
}

TEST(AnalyzeCli, FormatsAndBadInput) {
  using strata::test::Quote;
  using strata::test::RunShell;
  fmt::ProfileWriter w;
  uint32_t m = w.Metric("cpu_time", "ns");
  uint32_t n = w.Child(0, w.Frame(K::kPython, fmt::kNone, 0, "hot", "/w/a.py", 4));
  fmt::MetricStats s;
  s.Add(5e6);
  w.AddStats(n, m, s);
  auto bytes = w.Serialize();
  std::string profile = std::string(::testing::TempDir()) + "/an.strata";
  std::ofstream(profile, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), long(bytes.size()));
  const std::string cli = Quote(STRATA_CLI);

  auto json = RunShell(cli + " analyze " + Quote(profile) + " --format json");
  ASSERT_EQ(json.status, 0) << json.err;
  auto doc = nlohmann::json::parse(json.out);
  ASSERT_EQ(doc["findings"].size(), 1u);
  EXPECT_EQ(doc["findings"][0]["rule"], "hotspot");
  EXPECT_EQ(doc["findings"][0]["location"]["line"], 4);

  auto sarif = RunShell(cli + " analyze " + Quote(profile) + " --format sarif");
  ASSERT_EQ(sarif.status, 0) << sarif.err;
  auto sd = nlohmann::json::parse(sarif.out);
  EXPECT_EQ(sd["version"], "2.1.0");
  EXPECT_EQ(sd["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"], 4);

  auto text = RunShell(cli + " analyze " + Quote(profile));
  EXPECT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("warning [hotspot] /w/a.py:4"), std::string::npos) << text.out;

  auto bad_set = RunShell(cli + " analyze " + Quote(profile) + " --set hotspot.share=lots");
  EXPECT_EQ(bad_set.status, 2);
  EXPECT_EQ(strata::test::CountLines(bad_set.err), 1u) << bad_set.err;
  auto unknown = RunShell(cli + " analyze " + Quote(profile) + " --set hotspot.nope=1");
  EXPECT_EQ(unknown.status, 1);
  EXPECT_NE(unknown.err.find("unknown rule parameter 'hotspot.nope'"), std::string::npos) << unknown.err;
  std::string bad_rules = WriteTemp("cli-bad.rules", "[rule x]\nwhen = oops\n");
  auto rules = RunShell(cli + " analyze " + Quote(profile) + " --rules " + Quote(bad_rules));
  EXPECT_EQ(rules.status, 1);
  EXPECT_NE(rules.out.find(bad_rules + ":2: "), std::string::npos) << rules.out;
  EXPECT_NE(rules.out.find("[hotspot]"), std::string::npos) << rules.out;  // the built-ins still ran
  auto not_profile = RunShell(cli + " analyze " + Quote(bad_rules));
  EXPECT_EQ(not_profile.status, 1);
  EXPECT_EQ(strata::test::CountLines(not_profile.err), 1u) << not_profile.err;
}

// torch.profiler trims sys.path prefixes: the script's folder and site-packages look alike.
TEST(Analyze, UserFilesOfATraceRelativeToSysPath) {
  using strata::core::detail::UserFileRelativeToSysPath;
  EXPECT_TRUE(UserFileRelativeToSysPath("kineto_trace.py", "kineto_trace.py"));
  EXPECT_TRUE(UserFileRelativeToSysPath("model.py", "train.py"));  // beside the script
  EXPECT_FALSE(UserFileRelativeToSysPath("enum.py", "train.py"));  // the standard library
  EXPECT_FALSE(UserFileRelativeToSysPath("logging/__init__.py", "train.py"));
  EXPECT_FALSE(UserFileRelativeToSysPath("torch/nn/modules/module.py", "train.py"));
  EXPECT_FALSE(UserFileRelativeToSysPath("torchvision/models/resnet.py", "train.py"));
  EXPECT_TRUE(UserFileRelativeToSysPath("pkg/models/net.py", "pkg/main.py"));  // python -m pkg.main
  EXPECT_FALSE(UserFileRelativeToSysPath("torch/_tensor.py", "pkg/main.py"));
  EXPECT_FALSE(UserFileRelativeToSysPath("<frozen os>", "train.py"));
}
