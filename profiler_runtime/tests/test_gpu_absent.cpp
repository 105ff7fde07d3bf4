// GPU collection where there is no GPU (CI, this dev machine): the target runs as without the
// runtime, the CPU profile is written, and meta "gpu" says why there is no GPU data.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "profile_reader.h"

extern char** environ;

namespace {

std::string Out(const std::string& name) {
  return std::string(::testing::TempDir()) + "/strata_gpu_" + name + "_" + std::to_string(getpid()) + ".strata";
}

// Runs argv with `env` added (and the runtime preloaded when `preload`); returns the exit code.
int RunTarget(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env, bool preload) {
  std::vector<std::string> envs;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    if (kv.rfind("STRATA_", 0) == 0 || kv.rfind("LD_PRELOAD=", 0) == 0 || kv.rfind("CUDA_INJECTION64_PATH=", 0) == 0) continue;
    envs.push_back(kv);
  }
  if (preload) envs.push_back("LD_PRELOAD=" STRATA_RUNTIME_SO);
  for (auto& [k, v] : env) envs.push_back(k + "=" + v);
  std::vector<char*> a, e;
  for (auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  for (auto& s : envs) e.push_back(const_cast<char*>(s.c_str()));
  e.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    execve(a[0], a.data(), e.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string GpuMeta(const std::string& path) {
  strata::rt::test::Profile p;
  std::string err;
  EXPECT_TRUE(strata::rt::test::ReadProfile(path, &p, &err)) << err;
  EXPECT_TRUE(p.meta.count("samples"));
  return p.meta["gpu"];
}

bool BuiltWithGpu(const std::string& gpu) { return gpu != "not collected: built without CUDA headers"; }

TEST(GpuAbsent, ProgramWithoutCudaUnchanged) {
  std::string out = Out("nocuda");
  int plain = RunTarget({STRATA_CPU_SPLIT, "split", "20"}, {}, false);
  int profiled = RunTarget({STRATA_CPU_SPLIT, "split", "20"}, {{"STRATA_OUTPUT", out}}, true);
  EXPECT_EQ(plain, profiled);
  std::string gpu = GpuMeta(out);
  if (BuiltWithGpu(gpu)) {
    EXPECT_EQ(gpu, "not collected: the program did not use CUDA");
  }
  unlink(out.c_str());
}

TEST(GpuAbsent, CudaProgramWithoutGpuKeepsCpuProfile) {
  std::string out = Out("nogpu");
  int plain = RunTarget({STRATA_CUDA_PROBE}, {}, false);
  if (plain == 2) GTEST_SKIP() << "this machine has a usable GPU";
  int profiled = RunTarget({STRATA_CUDA_PROBE}, {{"STRATA_OUTPUT", out}}, true);
  EXPECT_EQ(plain, profiled);  // same outcome as without the runtime
  std::string gpu = GpuMeta(out);
  EXPECT_EQ(gpu.rfind("not collected: ", 0), 0u) << gpu;
  if (BuiltWithGpu(gpu) && plain == 1) {  // CUDA libraries present: the reason names them
    EXPECT_NE(gpu, "not collected: the program did not use CUDA");
  }
  unlink(out.c_str());
}

// Sampled GPU tracing asked for, no GPU work collected: the profile states no sampling (its
// typed entries are written only beside collected GPU data, whose metrics they scale).
TEST(GpuAbsent, SampledTracingNotStatedWithoutGpuData) {
  std::string out = Out("sampled");
  int plain = RunTarget({STRATA_CUDA_PROBE}, {}, false);
  if (plain == 2) GTEST_SKIP() << "this machine has a usable GPU";
  RunTarget({STRATA_CUDA_PROBE}, {{"STRATA_OUTPUT", out}, {"STRATA_GPU_SAMPLING", "100/1000"}}, true);
  strata::rt::test::Profile p;
  std::string err;
  ASSERT_TRUE(strata::rt::test::ReadProfile(out, &p, &err)) << err;
  EXPECT_EQ(p.meta["gpu"].rfind("not collected: ", 0), 0u) << p.meta["gpu"];
  for (const char* key : {"gpu_window_ms", "gpu_window_period_ms", "gpu_scale", "gpu_windows_opened"})
    EXPECT_EQ(p.meta.count(key), 0u) << key;
  unlink(out.c_str());
}

TEST(GpuAbsent, InjectionHeldByAnotherTool) {
  std::string out = Out("taken");
  RunTarget({STRATA_CPU_SPLIT, "split", "10"}, {{"STRATA_OUTPUT", out}, {"CUDA_INJECTION64_PATH", "/opt/other/libtool.so"}}, true);
  std::string gpu = GpuMeta(out);
  if (BuiltWithGpu(gpu)) {
    EXPECT_EQ(gpu, "not collected: CUPTI already taken by CUDA_INJECTION64_PATH=/opt/other/libtool.so");
  }
  unlink(out.c_str());
}

// The runtime interposes cudaProfilerStart (capture ranges attach CUPTI again there): the
// program's call still reaches its libcudart and returns its result, whether that library is in
// the global scope or only in a plugin's local one (a Python extension's dependencies).
TEST(GpuAbsent, ProfilerStartReachesTheProgramsCudart) {
  for (const char* scope : {"global", "local"}) {
    SCOPED_TRACE(scope);
    std::string out = Out(std::string("profstart_") + scope);
    EXPECT_EQ(RunTarget({STRATA_PROFILER_START, scope, STRATA_PROFILER_START_PLUGIN}, {}, false), 0);
    EXPECT_EQ(RunTarget({STRATA_PROFILER_START, scope, STRATA_PROFILER_START_PLUGIN},
                        {{"STRATA_OUTPUT", out}, {"STRATA_CAPTURE_RANGE", "cudaProfilerApi"}}, true),
              0);
    unlink(out.c_str());
  }
}

}  // namespace
