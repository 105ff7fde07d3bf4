// The CUPTI session's switching logic on a stand-in CUPTI (tests/fake_cupti): every launch
// traced; sampled windows that detach and attach again, their scale applied and stated;
// capture ranges, alone and with windows inside them. What is checked holds whatever the
// machine's speed: which kernels are in the profile, their counts against what the program
// launched, GPU time against the scale, no record left without its launch.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "profile_reader.h"

extern char** environ;

namespace {

struct ProgramRun {
  int code = -1;
  std::string out;  // the program's stdout
};

ProgramRun RunProgram(const std::vector<std::string>& args, const std::map<std::string, std::string>& env, const std::string& profile) {
  std::vector<std::string> envs;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    if (kv.rfind("STRATA_", 0) == 0 || kv.rfind("LD_PRELOAD=", 0) == 0 || kv.rfind("CUDA_INJECTION64_PATH=", 0) == 0) continue;
    envs.push_back(kv);
  }
  envs.push_back("LD_PRELOAD=" STRATA_RUNTIME_SO);
  envs.push_back("STRATA_OUTPUT=" + profile);
  envs.push_back("STRATA_CUPTI_PATH=" STRATA_FAKE_CUPTI);
  for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
  std::vector<std::string> argv = {STRATA_FAKE_GPU_PROGRAM};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> a, e;
  for (auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  for (auto& s : envs) e.push_back(const_cast<char*>(s.c_str()));
  e.push_back(nullptr);
  int fds[2];
  if (pipe(fds) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    execve(a[0], a.data(), e.data());
    _exit(127);
  }
  close(fds[1]);
  ProgramRun r;
  char buf[512];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) r.out.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// "launched N inside M records K finalizes F" from the program.
uint64_t Printed(const std::string& out, const std::string& word) {
  size_t at = out.find(word + " ");
  return at == std::string::npos ? ~0ull : std::stoull(out.substr(at + word.size() + 1));
}

struct KernelTotals {
  uint64_t launches = 0;  // events recorded (counts stay as observed)
  double gpu_ns = 0;      // as the profile has it (scaled when sampled)
};

std::map<std::string, KernelTotals> Kernels(const strata::rt::test::Profile& p) {
  uint32_t gpu_time = ~0u;
  for (uint32_t m = 0; m < p.metrics.size(); ++m)
    if (p.Str(p.metrics[m].name) == "gpu_time") gpu_time = m;
  std::map<std::string, KernelTotals> out;
  for (const auto& nm : p.node_metrics) {
    if (nm.metric != gpu_time) continue;
    const auto& f = p.frames[p.nodes[nm.node].frame];
    if (f.kind != uint32_t(strata::format::FrameKind::kKernel)) continue;
    KernelTotals& k = out[p.Str(f.name)];
    k.launches += nm.count;
    k.gpu_ns += nm.sum;
  }
  return out;
}

// The launches of every range (kernels inside_kernel_<r>), and how many ranges kept any.
KernelTotals Inside(const std::map<std::string, KernelTotals>& k, int* ranges_kept = nullptr) {
  KernelTotals t;
  int kept = 0;
  for (const auto& [name, v] : k) {
    if (name.rfind("inside_kernel_", 0) != 0) continue;
    t.launches += v.launches;
    t.gpu_ns += v.gpu_ns;
    kept += v.launches > 0;
  }
  if (ranges_kept) *ranges_kept = kept;
  return t;
}

std::string Out(const std::string& name) {
  return std::string(::testing::TempDir()) + "/strata_fake_cupti_" + name + "_" + std::to_string(getpid()) + ".strata";
}

strata::rt::test::Profile Read(const std::string& path) {
  strata::rt::test::Profile p;
  std::string err;
  EXPECT_TRUE(strata::rt::test::ReadProfile(path, &p, &err)) << err;
  unlink(path.c_str());
  return p;
}

void ExpectAllAttributed(const strata::rt::test::Profile& p) {
  const std::string& gpu = p.meta.at("gpu");
  EXPECT_EQ(gpu.rfind("collected: ", 0), 0u) << gpu;
  EXPECT_EQ(gpu.find("unattributed"), std::string::npos) << gpu;
}

constexpr double kKernelNs = 1000;

// The scale of a sampled profile without operator counts: its measured share of time, stated
// as the traced and in-range times beside it.
double MeasuredTimeScale(strata::rt::test::Profile& p) {
  const double scale = std::stod(p.meta["gpu_scale"]);
  const double traced = std::stod(p.meta["gpu_traced_ns"]), of = std::stod(p.meta["gpu_traced_of_ns"]);
  EXPECT_GT(traced, 0);
  EXPECT_NEAR(scale, of / traced, 1e-6 * scale);
  EXPECT_GT(scale, 2.0) << "40 ms windows every 200 ms";
  EXPECT_LT(scale, 12.0) << "40 ms windows every 200 ms";
  return scale;
}

}  // namespace

TEST(FakeCupti, EveryLaunchTraced) {
  const std::string out = Out("full");
  ProgramRun r = RunProgram({"full", "3000"}, {}, out);
  ASSERT_EQ(r.code, 0) << r.out;
  auto p = Read(out);
  ExpectAllAttributed(p);
  auto k = Kernels(p);
  EXPECT_EQ(k["steady_kernel"].launches, 3000u);
  EXPECT_DOUBLE_EQ(k["steady_kernel"].gpu_ns, 3000 * kKernelNs);
  EXPECT_EQ(p.meta.count("gpu_scale"), 0u) << "every launch traced: no sampling stated";
  EXPECT_EQ(Printed(r.out, "finalizes"), 0u) << "never detached";
}

// A runtime launch's records carry its driver call's id: the first nested call rides on the
// runtime call's queue entry, a second is queued as an alias; both reach the runtime call's path.
TEST(FakeCupti, NestedDriverCallsReachTheRuntimeCallsPath) {
  for (int inner : {1, 2}) {
    SCOPED_TRACE(inner);
    const std::string out = Out("nested_" + std::to_string(inner));
    ProgramRun r = RunProgram({"nested", "2000", std::to_string(inner)}, {}, out);
    ASSERT_EQ(r.code, 0) << r.out;
    auto p = Read(out);
    ExpectAllAttributed(p);
    EXPECT_EQ(Kernels(p)["nested_kernel"].launches, 2000u * uint64_t(inner));
    const std::string& gpu = p.meta.at("gpu");
    EXPECT_NE(gpu.find(" 2000 API calls"), std::string::npos) << gpu;
  }
}

// The launch-cost breakdown's diagnostics: callbacks that return at once leave every kernel
// recorded but none attributed; small buffers without a periodic flush lose nothing.
TEST(FakeCupti, CostDiagnosticsKeepEveryRecord) {
  {
    const std::string out = Out("callbacks_idle");
    ProgramRun r = RunProgram({"full", "3000"}, {{"STRATA_GPU_CALLBACK_WORK", "none"}}, out);
    ASSERT_EQ(r.code, 0) << r.out;
    auto p = Read(out);
    EXPECT_EQ(Kernels(p)["steady_kernel"].launches, 3000u);
    const std::string& gpu = p.meta.at("gpu");
    EXPECT_NE(gpu.find(" 0 API calls"), std::string::npos) << gpu;
    EXPECT_NE(gpu.find("3000 unattributed"), std::string::npos) << gpu;
  }
  {
    const std::string out = Out("small_buffers");
    ProgramRun r = RunProgram({"full", "30000"}, {{"STRATA_GPU_BUFFER_MB", "1"}, {"STRATA_GPU_FLUSH_MS", "0"}}, out);
    ASSERT_EQ(r.code, 0) << r.out;
    auto p = Read(out);
    ExpectAllAttributed(p);
    EXPECT_EQ(Kernels(p)["steady_kernel"].launches, 30000u);
  }
}

// The launch path cache's cheap key (no native trace; the default) cannot tell two call sites at
// the same stack depth apart; its check of the trace's return addresses on the stack must, at the
// second site's first launch, before it puts launches of one site under the other's frames.
TEST(FakeCupti, CheapPathKeyKeepsTwoSitesApart) {
  for (const char* key : {"", "cheap", "trace"}) {
    SCOPED_TRACE(key);
    const std::string out = Out(std::string("two_sites_") + key);
    std::map<std::string, std::string> env;
    if (*key) env["STRATA_GPU_PATH_KEY"] = key;
    ProgramRun r = RunProgram({"two_sites", "2000"}, env, out);
    ASSERT_EQ(r.code, 0) << r.out;
    auto p = Read(out);
    ExpectAllAttributed(p);
    const std::string& gpu = p.meta.at("gpu");
    if (std::string(key) == "trace")
      EXPECT_EQ(gpu.find("cheap key"), std::string::npos) << gpu;
    else
      EXPECT_NE(gpu.find("1 keys stood for two traces, 0 fills not checkable"), std::string::npos) << gpu;
    uint32_t gpu_time = ~0u;
    for (uint32_t m = 0; m < p.metrics.size(); ++m)
      if (p.Str(p.metrics[m].name) == "gpu_time") gpu_time = m;
    // The kernel's launches by the native frame under it (the launch site's caller chain).
    std::map<uint64_t, uint64_t> by_caller;
    for (const auto& nm : p.node_metrics) {
      if (nm.metric != gpu_time) continue;
      const auto& f = p.frames[p.nodes[nm.node].frame];
      if (f.kind != uint32_t(strata::format::FrameKind::kKernel) || p.Str(f.name) != "shared_kernel") continue;
      // The deepest native frame of the program's own module: SiteA or SiteB.
      uint64_t site = 0;
      for (const auto* fr : p.PathOf(nm.node))
        if (fr->kind == uint32_t(strata::format::FrameKind::kNative) && fr->module != strata::format::kNone &&
            p.Str(p.modules[fr->module].path).find("fake_gpu_program") != std::string::npos) {
          site = fr->address;
          break;
        }
      by_caller[site] += nm.count;
    }
    ASSERT_EQ(by_caller.size(), 2u) << "two launch sites";
    for (const auto& [site, n] : by_caller) EXPECT_NEAR(double(n), 1000.0, 4.0) << "site at " << site;
  }
}

// One call site: the default key's every hit is checked on the stack, and none falls back.
TEST(FakeCupti, CheapPathKeyChecksEveryHitOnTheStack) {
  const std::string out = Out("cheap_one_site");
  ProgramRun r = RunProgram({"full", "3000"}, {{"STRATA_GPU_PATH_CACHE", "verify"}}, out);
  ASSERT_EQ(r.code, 0) << r.out;
  auto p = Read(out);
  const std::string& gpu = p.meta.at("gpu");
  EXPECT_NE(gpu.find("2999 hits of 3000 (cheap key: 2999 hits checked on the stack, 0 keys stood for two traces"),
            std::string::npos) << gpu;
  EXPECT_NE(gpu.find("(verify: 0 mismatches)"), std::string::npos) << gpu;
}

TEST(FakeCupti, SampledWindowsDetachScaleAndSaySo) {
  const std::string out = Out("sampled");
  ProgramRun r = RunProgram({"steady", "1600"}, {{"STRATA_GPU_SAMPLING", "40/200"}}, out);
  ASSERT_EQ(r.code, 0) << r.out;
  auto p = Read(out);
  ExpectAllAttributed(p);
  EXPECT_EQ(p.meta["gpu_window_ms"], "40");
  EXPECT_EQ(p.meta["gpu_window_period_ms"], "200");
  // No torch: nothing counts operator calls, so the windows' share of time is the scale, as
  // measured: the run's time over the time tracing was on (nominally PERIOD/ON, x5).
  const double scale = MeasuredTimeScale(p);
  EXPECT_EQ(p.meta["gpu_time_scale"], p.meta["gpu_scale"]);
  EXPECT_EQ(p.meta["gpu_scale_basis"], "window_time");
  EXPECT_EQ(p.meta.count("gpu_op_calls_counted"), 0u);
  EXPECT_NE(p.meta["gpu"].find("(the windows' share of time: traced "), std::string::npos) << p.meta["gpu"];
  const uint64_t windows = std::stoull(p.meta["gpu_windows_opened"]);
  EXPECT_GE(windows, 2u);
  EXPECT_GE(Printed(r.out, "finalizes"), 1u) << "CUPTI detached between windows";
  auto k = Kernels(p);
  const uint64_t launched = Printed(r.out, "launched");
  const KernelTotals s = k["steady_kernel"];
  EXPECT_GT(s.launches, 0u);
  EXPECT_LT(s.launches, launched) << "closed windows leave launches out";
  // Every record kept, scaled by the measured share; counts as observed.
  EXPECT_EQ(s.launches, Printed(r.out, "records")) << r.out;
  EXPECT_NEAR(s.gpu_ns, double(s.launches) * kKernelNs * scale, 1e-6 * s.gpu_ns);
  // A steady launch rate: the scaled total estimates the launches' true total.
  const double truth = double(launched) * kKernelNs;
  EXPECT_GT(s.gpu_ns, 0.75 * truth) << "windows " << windows << ", x" << scale;
  EXPECT_LT(s.gpu_ns, 1.33 * truth) << "windows " << windows << ", x" << scale;
}

// STRATA_GPU_CALLBACKS=domains (enabling both API domains whole at each attach): the same
// windows, every kept launch attributed and scaled, the attach's parts said.
TEST(FakeCupti, SampledWindowsWithCallbacksByDomain) {
  const std::string out = Out("sampled-domains");
  ProgramRun r = RunProgram({"steady", "1000"}, {{"STRATA_GPU_SAMPLING", "40/200"}, {"STRATA_GPU_CALLBACKS", "domains"}}, out);
  ASSERT_EQ(r.code, 0) << r.out;
  auto p = Read(out);
  ExpectAllAttributed(p);
  EXPECT_GE(Printed(r.out, "finalizes"), 1u) << "CUPTI detached between windows";
  auto k = Kernels(p);
  const KernelTotals s = k["steady_kernel"];
  EXPECT_GT(s.launches, 0u);
  EXPECT_LT(s.launches, Printed(r.out, "launched"));
  EXPECT_EQ(s.launches, Printed(r.out, "records")) << r.out;
  EXPECT_NEAR(s.gpu_ns, double(s.launches) * kKernelNs * MeasuredTimeScale(p), 1e-6 * s.gpu_ns);
  EXPECT_NE(p.meta["gpu"].find("(subscribe "), std::string::npos) << p.meta["gpu"];
  EXPECT_NE(p.meta["gpu"].find("2 API domains and "), std::string::npos) << p.meta["gpu"];
}

TEST(FakeCupti, CaptureRangesRecordTheirLaunchesOnly) {
  const std::string out = Out("ranges");
  ProgramRun r = RunProgram({"ranges", "4", "40"}, {{"STRATA_CAPTURE_RANGE", "cudaProfilerApi"}}, out);
  ASSERT_EQ(r.code, 0) << r.out;
  auto p = Read(out);
  ExpectAllAttributed(p);
  EXPECT_NE(p.meta["gpu"].find("(4 ranges"), std::string::npos) << p.meta["gpu"];
  auto k = Kernels(p);
  EXPECT_EQ(k.count("outside_kernel"), 0u) << "launched outside every range";
  int kept = 0;
  const KernelTotals in = Inside(k, &kept);
  EXPECT_EQ(kept, 4);
  EXPECT_EQ(in.launches, Printed(r.out, "inside")) << r.out;
  EXPECT_DOUBLE_EQ(in.gpu_ns, double(Printed(r.out, "inside")) * kKernelNs);
  EXPECT_GE(Printed(r.out, "finalizes"), 3u) << "detached between ranges";
}

// Windows of 40/200 ms inside `ranges` capture ranges of `ms` each: nothing outside the ranges,
// some launches left out, every kept launch's GPU time scaled by the ranges' time over the time
// traced in them, ids unique across the attaches (no record without its launch). Returns how
// many ranges kept any launch.
static int ExpectWindowsInsideRanges(const std::string& name, int ranges, int ms) {
  const std::string out = Out(name);
  ProgramRun r = RunProgram({"ranges", std::to_string(ranges), std::to_string(ms)},
                            {{"STRATA_CAPTURE_RANGE", "cudaProfilerApi"}, {"STRATA_GPU_SAMPLING", "40/200"}}, out);
  EXPECT_EQ(r.code, 0) << r.out;
  auto p = Read(out);
  ExpectAllAttributed(p);
  const double scale = MeasuredTimeScale(p);
  auto k = Kernels(p);
  EXPECT_EQ(k.count("outside_kernel"), 0u) << "launched outside every range";
  int kept = 0;
  const KernelTotals in = Inside(k, &kept);
  EXPECT_GT(in.launches, 0u);
  EXPECT_LT(in.launches, Printed(r.out, "inside"));
  EXPECT_EQ(in.launches, Printed(r.out, "records")) << r.out;
  EXPECT_NEAR(in.gpu_ns, double(in.launches) * kKernelNs * scale, 1e-6 * in.gpu_ns);
  // Ranges hold a window or none, drawn: the nominal x5 would scale what they kept by chance;
  // measured, the estimate stays near the launches made inside the ranges.
  const double truth = double(Printed(r.out, "inside")) * kKernelNs;
  EXPECT_GT(in.gpu_ns, 0.7 * truth) << "x" << scale;
  EXPECT_LT(in.gpu_ns, 1.43 * truth) << "x" << scale;
  return kept;
}

TEST(FakeCupti, WindowsInsideCaptureRanges) { ExpectWindowsInsideRanges("ranges_windows", 6, 250); }

// A range enters the window cycle at a point drawn over one period, not always with an open
// window: ranges shorter than the period then keep their share of launches, not the first
// ON ms of each (which, on GPT-2 decoding's timelines, put +3.5 points on the prefill's line and
// scaled totals x1.35-1.6). 20 ranges of 100 ms with 40/200 windows: with a window at every
// start each range keeps launches (40% of them); drawn, a range has no window with probability
// 0.3, so all 20 keeping some is a 0.08% event.
TEST(FakeCupti, RangesEnterTheWindowCycleAtADrawnPoint) {
  const int kept = ExpectWindowsInsideRanges("ranges_phase", 20, 100);
  EXPECT_LT(kept, 20) << "every range started with an open window";
  EXPECT_GT(kept, 0);
}
