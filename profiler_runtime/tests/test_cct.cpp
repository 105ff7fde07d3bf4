// CCT aggregation: per-node count/sum/min/max/mean/variance against a naive computation, and
// size independent of the number of samples; region frames and launches as written.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "cct/cct.h"
#include "profile_reader.h"
#include "strata/format/reader.h"

using strata::format::FrameKind;
using strata::format::MetricStats;

TEST(Cct, StatsMatchNaive) {
  strata::rt::Cct cct;
  uint32_t metric = cct.Metric("cpu_time", "ns");
  uint32_t mod = cct.Module("/bin/x", "abcd", 0x1000);
  std::vector<uint32_t> f;
  for (int i = 0; i < 5; ++i) f.push_back(cct.Frame(FrameKind::kNative, mod, 0x100 + i, "", "", 0));
  std::vector<std::vector<uint32_t>> paths = {{f[0]}, {f[0], f[1]}, {f[0], f[1], f[2]}, {f[3], f[4]}};
  std::map<size_t, std::vector<double>> naive;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> dist(1e6, 2e7);
  for (int s = 0; s < 20000; ++s) {
    size_t p = rng() % paths.size();
    double v = std::floor(dist(rng));
    cct.AddPath(paths[p].data(), paths[p].size(), metric, v);
    naive[p].push_back(v);
  }
  size_t nodes = cct.NodeCount();
  for (auto& [p, vals] : naive) {
    MetricStats st;
    ASSERT_TRUE(cct.Stats(paths[p].data(), paths[p].size(), metric, &st));
    double sum = 0, mn = vals[0], mx = vals[0];
    for (double v : vals) { sum += v; mn = std::min(mn, v); mx = std::max(mx, v); }
    double mean = sum / double(vals.size());
    double m2 = 0;
    for (double v : vals) m2 += (v - mean) * (v - mean);
    EXPECT_EQ(st.count, vals.size());
    EXPECT_DOUBLE_EQ(st.sum, sum);  // integers below 2^53: exact
    EXPECT_EQ(st.min, mn);
    EXPECT_EQ(st.max, mx);
    EXPECT_NEAR(st.sum / double(st.count), mean, mean * 1e-12);
    EXPECT_NEAR(st.m2 / double(st.count), m2 / double(vals.size()), (m2 / double(vals.size())) * 1e-9);
  }
  // More samples on the same paths do not grow the tree.
  for (int s = 0; s < 1000; ++s) cct.AddPath(paths[0].data(), paths[0].size(), metric, 5);
  EXPECT_EQ(cct.NodeCount(), nodes);
  EXPECT_EQ(nodes, 1u + 3u + 2u);  // root + f0,f1,f2 chain + f3,f4 chain
}

TEST(Cct, ConcurrentProducers) {
  strata::rt::Cct cct;
  uint32_t metric = cct.Metric("wall_time", "ns");
  uint32_t a = cct.Frame(FrameKind::kPython, strata::format::kNone, 0, "f", "x.py", 3);
  uint32_t b = cct.Frame(FrameKind::kKernel, strata::format::kNone, 0, "k", "", 0);
  uint32_t path[2] = {a, b};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&] { for (int i = 0; i < 5000; ++i) cct.AddPath(path, 2, metric, 2.0); });
  for (auto& t : ts) t.join();
  MetricStats st;
  ASSERT_TRUE(cct.Stats(path, 2, metric, &st));
  EXPECT_EQ(st.count, 20000u);
  EXPECT_EQ(st.sum, 40000.0);
  EXPECT_EQ(st.m2, 0.0);
}

// Region frames: a loop iteration is the loop's frame with the iteration flag (a frame of its
// own), and a captured launch goes to the profile's region launches section, typed.
TEST(Cct, RegionIterationFlagAndLaunches) {
  strata::rt::Cct cct;
  uint32_t metric = cct.Metric("region_time", "ns");
  uint32_t loop = cct.Frame(FrameKind::kRegion, strata::format::kNone, 2, "k-loop", "kernels.cuh", 78);
  uint32_t iter = cct.Frame(FrameKind::kRegion, strata::format::kNone, 2, "k-loop", "kernels.cuh", 78,
                            strata::format::kFrameFlagIteration);
  EXPECT_NE(loop, iter);
  EXPECT_EQ(iter, cct.Frame(FrameKind::kRegion, strata::format::kNone, 2, "k-loop", "kernels.cuh", 78,
                            strata::format::kFrameFlagIteration));
  uint32_t path[2] = {loop, iter};
  cct.AddPath(path, 2, metric, 10.0);
  strata::format::RegionLaunch launch;
  launch.kernel = "_Z4gemmv";
  launch.correlation_id = 126;
  launch.sm_clock_khz = 1980000;
  launch.cycles_per_ns = 1.98375;
  launch.record_cost_cycles = 14.7;
  launch.names = {{2, "k-loop", "kernels.cuh", 78}, {1, "kernel", "", 0}};
  launch.buffer = std::string(128, '\x07');
  cct.Locked([&](strata::rt::Cct&, strata::rt::Cct::Unlocked u) { u.RegionLaunch(launch); });
  std::string path_out = ::testing::TempDir() + "/strata_cct_regions.strata";
  std::string error;
  ASSERT_TRUE(cct.Write(path_out, {}, &error)) << error;
  std::ifstream f(path_out, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<uint64_t> aligned((bytes.size() + 7) / 8);
  memcpy(aligned.data(), bytes.data(), bytes.size());
  auto r = strata::format::ProfileReader::Parse(reinterpret_cast<const unsigned char*>(aligned.data()), bytes.size());
  ASSERT_EQ(r.frames()[loop].flags, 0u);
  ASSERT_EQ(r.frames()[iter].flags, strata::format::kFrameFlagIteration);
  EXPECT_EQ(r.string(r.frames()[iter].name), "k-loop");
  ASSERT_EQ(r.region_launch_count(), 1u);
  strata::format::RegionLaunchView v = r.region_launch(0);
  EXPECT_EQ(v.kernel, "_Z4gemmv");
  EXPECT_EQ(v.correlation_id, 126u);
  EXPECT_EQ(v.sm_clock_khz, 1980000u);
  EXPECT_EQ(v.cycles_per_ns, 1.98375);
  EXPECT_EQ(v.record_cost_cycles, 14.7);
  ASSERT_EQ(v.names.size, 2u);
  EXPECT_EQ(v.names[0].region, 1u);  // ids ascending
  EXPECT_EQ(r.string(v.names[1].file), "kernels.cuh");
  EXPECT_EQ(v.names[1].line, 78u);
  EXPECT_EQ(v.buffer, launch.buffer);
  std::remove(path_out.c_str());
}

// Periodic checkpoints write the same CCT many times: each file holds everything added so far,
// exactly once, and a transient value counts in its own file only.
TEST(Cct, WritesAgainWithoutDoubling) {
  strata::rt::Cct cct;
  uint32_t cpu = cct.Metric("cpu_time", "ns");
  uint32_t threads = cct.Metric("threads", "threads");
  uint32_t mod = cct.Module("/bin/x", "abcd", 0x1000);
  uint32_t a = cct.Frame(FrameKind::kNative, mod, 0x100, "", "", 0);
  uint32_t b = cct.Frame(FrameKind::kNative, mod, 0x200, "", "", 0);
  uint32_t pa[1] = {a}, pab[2] = {a, b};
  std::string path = ::testing::TempDir() + "/strata_cct_twice.strata";
  auto totals = [&](uint32_t metric) {
    strata::rt::test::Profile p;
    std::string err;
    EXPECT_TRUE(strata::rt::test::ReadProfile(path, &p, &err)) << err;
    std::map<size_t, std::pair<uint64_t, double>> out;  // path length -> (count, sum)
    for (const auto& m : p.node_metrics) {
      if (m.metric != metric) continue;
      auto& t = out[p.PathOf(m.node).size()];
      t.first += m.count;
      t.second += m.sum;
    }
    return out;
  };
  std::string error;
  for (int i = 0; i < 3; ++i) cct.AddPath(pa, 1, cpu, 10.0);
  uint32_t node_ab = 0;
  cct.Locked([&](strata::rt::Cct&, strata::rt::Cct::Unlocked u) { node_ab = u.Node(pab, 2); });
  ASSERT_TRUE(cct.Write(path, {{"ended", "checkpoint"}}, &error, {{node_ab, threads, 1.0}})) << error;
  auto first = totals(cpu);
  EXPECT_EQ(first[1].first, 3u);
  EXPECT_EQ(first[1].second, 30.0);
  EXPECT_EQ(totals(threads)[2].first, 1u);

  cct.AddPath(pa, 1, cpu, 10.0);
  cct.AddPath(pab, 2, cpu, 5.0);
  ASSERT_TRUE(cct.Write(path, {{"ended", "checkpoint"}}, &error, {{node_ab, threads, 1.0}})) << error;
  auto second = totals(cpu);
  EXPECT_EQ(second[1].first, 4u);
  EXPECT_EQ(second[1].second, 40.0);
  EXPECT_EQ(second[2].first, 1u);
  EXPECT_EQ(totals(threads)[2].first, 1u);  // not 2: the first checkpoint's value was transient

  ASSERT_TRUE(cct.Write(path, {{"ended", "exit"}}, &error)) << error;
  EXPECT_EQ(totals(cpu)[1].second, 40.0);
  EXPECT_EQ(totals(threads).count(2), 0u);
  MetricStats s;
  ASSERT_TRUE(cct.Stats(pa, 1, cpu, &s));
  EXPECT_EQ(s.count, 4u);
  std::remove(path.c_str());
}

// Sampled tracing's factor applied in the written file only: every stat of that metric scaled
// (sum, min, max; counts as they were), other metrics untouched, and a later write without the
// factor (or with another) starts again from the values as added.
TEST(Cct, WritesMetricFactorWithoutKeepingIt) {
  strata::rt::Cct cct;
  uint32_t gpu = cct.Metric("gpu_time", "ns");
  uint32_t cpu = cct.Metric("cpu_time", "ns");
  uint32_t mod = cct.Module("/bin/x", "abcd", 0x1000);
  uint32_t a = cct.Frame(FrameKind::kNative, mod, 0x100, "", "", 0);
  uint32_t b = cct.Frame(FrameKind::kNative, mod, 0x200, "", "", 0);
  uint32_t pa[1] = {a}, pab[2] = {a, b};
  cct.AddPath(pa, 1, gpu, 10.0);
  cct.AddPath(pa, 1, gpu, 30.0);
  cct.AddPath(pab, 2, gpu, 4.0);
  cct.AddPath(pa, 1, cpu, 7.0);
  std::string path = ::testing::TempDir() + "/strata_cct_factor.strata";
  auto read = [&](uint32_t metric, size_t depth) {
    strata::rt::test::Profile p;
    std::string err;
    EXPECT_TRUE(strata::rt::test::ReadProfile(path, &p, &err)) << err;
    for (const auto& m : p.node_metrics)
      if (m.metric == metric && p.PathOf(m.node).size() == depth) return m;
    ADD_FAILURE() << "no value of metric " << metric << " at depth " << depth;
    return decltype(p.node_metrics)::value_type{};
  };
  std::string error;
  ASSERT_TRUE(cct.Write(path, {}, &error, {}, {{"gpu_time", 1.25}, {"no_such_metric", 3.0}})) << error;
  auto g = read(gpu, 1);
  EXPECT_EQ(g.count, 2u);
  EXPECT_DOUBLE_EQ(g.sum, 50.0);
  EXPECT_DOUBLE_EQ(g.min, 12.5);
  EXPECT_DOUBLE_EQ(g.max, 37.5);
  EXPECT_DOUBLE_EQ(read(gpu, 2).sum, 5.0);
  EXPECT_DOUBLE_EQ(read(cpu, 1).sum, 7.0);
  cct.AddPath(pab, 2, gpu, 6.0);
  ASSERT_TRUE(cct.Write(path, {}, &error)) << error;
  EXPECT_DOUBLE_EQ(read(gpu, 1).sum, 40.0);
  EXPECT_DOUBLE_EQ(read(gpu, 2).sum, 10.0);
  ASSERT_TRUE(cct.Write(path, {}, &error, {}, {{"gpu_time", 2.0}})) << error;
  EXPECT_DOUBLE_EQ(read(gpu, 1).sum, 80.0);
  std::remove(path.c_str());
}

// A failed write (here: the file size limit, as on a full disk) leaves the previous file as it
// was and says why in one line.
TEST(Cct, FailedWriteKeepsPreviousFile) {
  strata::rt::Cct cct;
  uint32_t cpu = cct.Metric("cpu_time", "ns");
  uint32_t mod = cct.Module("/bin/x", "abcd", 0x1000);
  std::string path = ::testing::TempDir() + "/strata_cct_full.strata";
  uint32_t f0 = cct.Frame(FrameKind::kNative, mod, 0x10, "", "", 0);
  cct.AddPath(&f0, 1, cpu, 1.0);
  std::string error;
  ASSERT_TRUE(cct.Write(path, {}, &error)) << error;
  std::ifstream in(path, std::ios::binary);
  std::string before((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Grow the profile well past the limit set below.
  for (uint32_t i = 0; i < 20000; ++i) {
    uint32_t f = cct.Frame(FrameKind::kNative, mod, 0x1000 + i, "function_with_a_long_name_" + std::to_string(i), "", 0);
    cct.AddPath(&f, 1, cpu, 1.0);
  }
  pid_t pid = fork();
  if (pid == 0) {  // the limit and its SIGXFSZ stay in this child
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {before.size() + 4096, before.size() + 4096};
    setrlimit(RLIMIT_FSIZE, &rl);
    std::string err;
    bool ok = cct.Write(path, {}, &err);
    _exit(!ok && err.find("File too large") != std::string::npos && err.find('\n') == std::string::npos ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::ifstream again(path, std::ios::binary);
  std::string after((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
  EXPECT_EQ(before, after);
  std::string tmp = path + ".tmp." + std::to_string(pid);
  EXPECT_NE(access(tmp.c_str(), F_OK), 0) << "temporary file left: " << tmp;
  std::remove(path.c_str());
}
