// strata import on a hand-made Kineto trace (test/fixtures/kineto/train_step.json, the layout of
// torch.profiler's export_chrome_trace): kernels under their launch's operators and Python lines,
// totals per metric, GPU work whose launch is outside the trace, bad input (a real legacy-profiler
// trace of torch 1.13 among it); a real torch.profiler trace from the H100 once recorded there.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "export/gzip.h"
#include "strata/core/api.h"
#include "strata/core/kineto_import.h"
#include "test_util.h"

namespace strata::core {
namespace {

const std::string kTrace = STRATA_FIXTURES "/kineto/train_step.json";

// Inclusive value of `metric` per call path (names, outermost first, the root left out).
std::map<std::vector<std::string>, double> InclusiveByPath(const Profile& profile, size_t metric) {
  ViewOptions options;
  options.expand = false;
  options.filter = FrameFilter::kAll;
  const View view = profile.BuildView(ViewKind::kTopDown, options);
  std::vector<std::vector<std::string>> paths(view.size());
  std::map<std::vector<std::string>, double> out;
  for (size_t i = 1; i < view.size(); ++i) {
    paths[i] = paths[size_t(view.parent[i])];
    paths[i].push_back(view.frame(i).name);
    out[paths[i]] += view.metric(i, metric).inclusive;
  }
  return out;
}

std::unique_ptr<Profile> Imported() {
  return Profile::FromBytes(KinetoTraceToProfile(test::ReadText(kTrace), kTrace));
}

TEST(KinetoImport, TotalsPerMetric) {
  auto profile = Imported();
  const size_t wall = *FindMetric(*profile, "wall_time"), api = *FindMetric(*profile, "api_time"),
               gpu = *FindMetric(*profile, "gpu_time");
  EXPECT_DOUBLE_EQ(profile->total(gpu), (30 + 30 + 5 + 5 + 12 + 3) * 1000.0);
  EXPECT_DOUBLE_EQ(profile->total(api), (10 + 8 + 20 + 10 + 8 + 90) * 1000.0);
  // Self times add up to the outermost event's duration.
  EXPECT_DOUBLE_EQ(profile->total(wall), 1000 * 1000.0);
  EXPECT_EQ(profile->meta("imported_from").value_or(""), "kineto");
}

TEST(KinetoImport, KernelsUnderTheirLaunchesOperatorsAndPythonLines) {
  auto profile = Imported();
  const auto by_path = InclusiveByPath(*profile, *FindMetric(*profile, "gpu_time"));
  const std::vector<std::string> step = {"thread 100", "<module>", "ProfilerStep", "step"};
  auto under_step = [&](std::vector<std::string> rest) {
    std::vector<std::string> p = step;
    p.insert(p.end(), rest.begin(), rest.end());
    auto it = by_path.find(p);
    return it == by_path.end() ? -1.0 : it->second;
  };
  // Both steps' kernels merge on one call path, ProfilerStep#1 and #2 being one frame.
  EXPECT_DOUBLE_EQ(under_step({"aten::mm", "cudaLaunchKernel", "ampere_sgemm_64x32_sliced1x4_nn"}), 60000);
  EXPECT_DOUBLE_EQ(under_step({"aten::add"}), 10000);
  EXPECT_DOUBLE_EQ(under_step({"aten::copy_", "cudaMemcpyAsync", "Memcpy DtoH (Device -> Pageable)"}), 12000);
  EXPECT_DOUBLE_EQ(under_step({}), 82000);
  EXPECT_DOUBLE_EQ(by_path.at({"GPU work without its launch in the trace", "stray_kernel"}), 3000);

  // The Python frames carry their file and line; operators and kernels their kinds.
  ViewOptions options;
  options.expand = false;
  options.filter = FrameFilter::kAll;
  const View view = profile->BuildView(ViewKind::kTopDown, options);
  bool step_seen = false;
  size_t profiler_steps = 0;
  for (size_t i = 1; i < view.size(); ++i) {
    const FrameInfo& f = view.frame(i);
    if (f.name == "step") {
      step_seen = true;
      EXPECT_EQ(f.kind, "python");
      EXPECT_EQ(f.file, "train.py");
      EXPECT_EQ(f.line, 12u);
    }
    if (f.name == "aten::mm") EXPECT_EQ(f.kind, "operator");
    if (f.name.rfind("ProfilerStep", 0) == 0) ++profiler_steps;
    if (f.name == "cudaLaunchKernel") EXPECT_EQ(f.kind, "gpu_api");
    if (f.name == "stray_kernel") EXPECT_EQ(f.kind, "kernel");
  }
  EXPECT_TRUE(step_seen);
  EXPECT_EQ(profiler_steps, 1u);
}

TEST(KinetoImport, BadInputIsOneLine) {
  auto message = [](const std::string& text) {
    try {
      KinetoTraceToProfile(text, "t.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("{not json"), "not a Kineto trace: not JSON");
  EXPECT_EQ(message(R"({"events": []})"),
            "not a Kineto trace: no traceEvents array (a PyTorch-profiler trace is an object with one)");
  // A real trace of torch's legacy (pre-Kineto) profiler: Debian's python3-torch 1.13, built
  // without Kineto, recorded by test/fixtures/kineto/record_torch_trace.py --device cpu.
  EXPECT_EQ(message(test::ReadText(STRATA_FIXTURES "/kineto/torch113_legacy_cpu.json")),
            "not a Kineto trace: a bare event array, as torch's legacy profiler writes it (torch built without "
            "Kineto); record with a torch that has Kineto (torch.autograd.kineto_available())");
  EXPECT_EQ(message(R"({"traceEvents": [{"name": "x", "ph": "X", "cat": "gc", "ts": 1, "dur": 2}]})"),
            "not a Kineto trace: no cpu_op, python_function, cuda_runtime or kernel events");
}

TEST(KinetoImport, CliWritesAProfileOrNothing) {
  const std::string dir = ::testing::TempDir();
  const std::string out = dir + "/strata_kineto_" + std::to_string(::getpid()) + ".strata";
  test::RunResult r = test::RunShell(std::string(STRATA_CLI) + " import " + kTrace + " -o " + out);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_GT(Profile::Open(out)->total(*FindMetric(*Profile::Open(out), "gpu_time")), 0);
  std::remove(out.c_str());

  const std::string bad = dir + "/strata_kineto_bad_" + std::to_string(::getpid()) + ".json";
  { std::ofstream(bad) << "[]"; }
  r = test::RunShell(std::string(STRATA_CLI) + " import " + bad + " -o " + out);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "strata: " + bad + ": not a Kineto trace: a bare event array, as torch's legacy profiler writes it (torch "
                   "built without Kineto); record with a torch that has Kineto (torch.autograd.kineto_available())\n");
  struct stat st;
  EXPECT_NE(::stat(out.c_str(), &st), 0);
  std::remove(bad.c_str());
}

// A real torch.profiler trace from the H100 (bench/real_models/kineto_trace.py: torchvision
// ResNet-18 training, CUDA and CPU activities, with_stack=True, gzipped as torch writes .json.gz):
// `strata import` reads it gzipped; every kernel's and set's time is kept, each under a
// PyTorch operator and under the Python line of the training step.
TEST(KinetoImport, RealTorchProfilerTraceFromTheH100) {
  const std::string trace = STRATA_FIXTURES "/h100/kineto/resnet18_train_stacks.trace.json.gz";
  const std::string out = ::testing::TempDir() + "/strata_kineto_real_" + std::to_string(::getpid()) + ".strata";
  test::RunResult r = test::RunShell(std::string(STRATA_CLI) + " import " + trace + " -o " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  auto profile = Profile::Open(out);
  std::remove(out.c_str());
  const size_t gpu = *FindMetric(*profile, "gpu_time");

  // The trace's own sum of kernel, copy and set durations.
  double kernels_ns = 0;
  const nlohmann::json doc = nlohmann::json::parse(detail::Gunzip(test::ReadText(trace)));
  for (const auto& e : doc["traceEvents"]) {
    const std::string cat = e.value("cat", "");
    if (e.value("ph", "") == "X" && (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset"))
      kernels_ns += e["dur"].get<double>() * 1000.0;
  }
  ASSERT_GT(kernels_ns, 0);
  EXPECT_NEAR(profile->total(gpu), kernels_ns, kernels_ns * 1e-9);

  ViewOptions options;
  options.expand = false;
  options.filter = FrameFilter::kAll;
  const View view = profile->BuildView(ViewKind::kTopDown, options);
  double under_operator = 0, under_step = 0;
  for (size_t i = 1; i < view.size(); ++i) {
    if (view.frame(i).kind != "kernel") continue;
    bool op = false, step = false;
    for (size_t n = size_t(view.parent[i]); n > 0; n = size_t(view.parent[n])) {
      op = op || view.frame(n).kind == "operator";
      step = step || (view.frame(n).kind == "python" && view.frame(n).name == "step" &&
                      view.frame(n).file.find("kineto_trace.py") != std::string::npos);
    }
    if (op) under_operator += view.metric(i, gpu).exclusive;
    if (step) under_step += view.metric(i, gpu).exclusive;
  }
  std::printf("real trace: %.0f ns of GPU work, %.1f%% under an operator, %.1f%% under step()\n", kernels_ns,
              100 * under_operator / kernels_ns, 100 * under_step / kernels_ns);
  EXPECT_GT(under_operator / kernels_ns, 0.99);
  EXPECT_GT(under_step / kernels_ns, 0.99);
}

}  // namespace
}  // namespace strata::core
