// Region buffers carried by a profile (issue 7): the launches `strata record --regions` kept as
// blobs, listed and decoded again, names from the region frames, the runtime's clock rate
// recovered; `strata regions PROFILE --list / --launch N`. On the H100 fixture
// test/fixtures/h100/regions/runtime_capture.strata (3 launches, 16 blocks x 2 warp groups).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "strata/core/api.h"
#include "strata/core/profile_regions.h"
#include "test_util.h"

namespace {

using namespace strata::core::regions;
using strata::test::Quote;
using strata::test::RunShell;

const std::string kFixture = std::string(STRATA_REGION_FIXTURES) + "/runtime_capture.strata";

TEST(ProfileRegions, ListsTheCapturedLaunchesOfTheH100Fixture) {
  ProfileRegions pr = ReadProfileRegions(kFixture);
  ASSERT_EQ(pr.launches.size(), 3u);
  std::set<uint64_t> corrs;
  for (size_t i = 0; i < pr.launches.size(); ++i) {
    const CapturedLaunch& l = pr.launches[i];
    EXPECT_EQ(l.index, i);
    EXPECT_EQ(l.mangled.rfind("_Z", 0), 0u) << l.mangled;
    EXPECT_NE(l.kernel.find("app::GemmKernel<"), std::string::npos) << l.kernel;
    EXPECT_EQ(l.module, "regions:" + l.mangled + "#" + std::to_string(l.correlation_id));
    EXPECT_GT(l.correlation_id, 0u);
    corrs.insert(l.correlation_id);
    ASSERT_GE(l.bytes.size(), 64u);
    EXPECT_EQ(l.bytes.substr(0, 4), "SREG");
  }
  EXPECT_EQ(corrs.size(), 3u);
  // Names from the region frames, " (iteration)" taken off, with the marker's line from the
  // program's names table (test/regions/plain_app.cu) as "@file:line".
  std::set<std::string> names;
  std::map<std::string, std::string> where;
  for (const auto& [id, name] : pr.names) {
    NameLocation nl = SplitNameLocation(name);
    names.insert(nl.name);
    where[nl.name] = nl.file + ":" + std::to_string(nl.line);
  }
  for (const char* want : {"kernel", "k-loop", "compute", "load (cp.async)", "epilogue"})
    EXPECT_TRUE(names.count(want)) << want;
  EXPECT_FALSE(names.count("k-loop (iteration)"));
  EXPECT_EQ(where["compute"], "kernels.cuh:91");
  EXPECT_EQ(where["load (cp.async)"], "kernels.cuh:79");
  // The runtime decoded these with the H100's SM clock attribute (meta: "clock rate from the
  // device attribute"); recovered from region_raw_time it is a plausible SM clock.
  EXPECT_GT(pr.cycles_per_ns, 1.0);
  EXPECT_LT(pr.cycles_per_ns, 2.2);
}

TEST(ProfileRegions, DecodesEachLaunchLikeTheRuntime) {
  ProfileRegions pr = ReadProfileRegions(kFixture);
  ASSERT_EQ(pr.launches.size(), 3u);
  double raw_ns = 0;
  for (size_t i = 0; i < pr.launches.size(); ++i) {
    Trace t = DecodeLaunch(pr, i);
    EXPECT_EQ(t.lanes.size(), 32u) << "launch " << i;  // 16 blocks x 2 warp groups
    EXPECT_FALSE(t.HasIssue(IssueKind::kNoClockRate)) << "launch " << i;
    EXPECT_NEAR(t.cycles_per_ns, pr.cycles_per_ns, 1e-9);
    for (const Interval& iv : t.intervals) raw_ns += iv.raw_duration_ns();
  }
  // Together the launches give back the profile's region_raw_time.
  auto profile = strata::core::Profile::Open(kFixture);
  auto m = strata::core::FindMetric(*profile, "region_raw_time");
  ASSERT_TRUE(m.has_value());
  EXPECT_NEAR(raw_ns, profile->total(*m), 1e-6 * raw_ns);
  EXPECT_THROW(DecodeLaunch(pr, 3), std::out_of_range);
}

TEST(ProfileRegions, ProfilesWithoutRegionBuffersAndBadFiles) {
  ProfileRegions none = ReadProfileRegions(std::string(STRATA_REGION_FIXTURES) + "/../gpu_cuda_workload.strata");
  EXPECT_TRUE(none.launches.empty());
  EXPECT_EQ(none.cycles_per_ns, 0);
  EXPECT_TRUE(FileLooksLikeProfile(kFixture));
  EXPECT_FALSE(FileLooksLikeProfile(std::string(STRATA_REGION_FIXTURES) + "/gemm_nested_loop.bin"));
  std::vector<unsigned char> bytes = strata::test::SmallProfile();
  bytes.resize(bytes.size() / 2);
  EXPECT_THROW(ReadProfileRegions(bytes.data(), bytes.size()), strata::core::Error);
}

TEST(ProfileRegions, NamesAndRateFromAWrittenProfile) {
  // A synthetic profile: one region buffer (the H100 one of the harness), region frames with
  // the runtime's naming, and region_raw_time at a known rate.
  ProfileRegions h100 = ReadProfileRegions(kFixture);
  ASSERT_FALSE(h100.launches.empty());
  const std::string& buffer = h100.launches[0].bytes;
  DecodeOptions at2;
  at2.cycles_per_ns = 2.0;
  Trace t = Decode(reinterpret_cast<const uint8_t*>(buffer.data()), buffer.size(), at2);
  strata::format::ProfileWriter w;
  uint32_t raw = w.Metric("region_raw_time", "ns");
  uint32_t mod = w.Module("regions:_Z3fooPf#42", "", 0);
  w.Blob(mod, strata::format::BlobKind::kRegionBuffer, buffer);
  uint32_t kernel = w.Child(0, w.Frame(strata::format::FrameKind::kKernel, strata::format::kNone, 0, "_Z3fooPf", "", 0));
  uint32_t f1 = w.Frame(strata::format::FrameKind::kRegion, strata::format::kNone, 7, "seven (iteration)", "", 0);
  uint32_t f2 = w.Frame(strata::format::FrameKind::kRegion, strata::format::kNone, 9, "region 9", "", 0);
  strata::format::MetricStats s;
  for (const Interval& iv : t.intervals) s.Add(iv.raw_duration_ns());
  w.AddStats(w.Child(kernel, f1), raw, s);
  w.Child(kernel, f2);
  std::vector<unsigned char> bytes = w.Serialize();
  ProfileRegions pr = ReadProfileRegions(bytes.data(), bytes.size());
  ASSERT_EQ(pr.launches.size(), 1u);
  EXPECT_EQ(pr.launches[0].kernel, "foo(float*)");
  EXPECT_EQ(pr.launches[0].correlation_id, 42u);
  EXPECT_EQ(pr.names, (std::map<uint16_t, std::string>{{7, "seven"}}));
  EXPECT_NEAR(pr.cycles_per_ns, 2.0, 1e-9);
  nlohmann::json j = nlohmann::json::parse(LaunchesToJson(pr));
  EXPECT_EQ(j["launches"][0]["kernel"], "foo(float*)");
  EXPECT_EQ(j["launches"][0]["correlation_id"], 42);
  EXPECT_EQ(j["names"]["7"], "seven");
}

TEST(CliRegions, ListsAndDecodesTheLaunchesOfAProfile) {
  const std::string cli = Quote(STRATA_CLI), profile = Quote(kFixture);
  auto list = RunShell(cli + " regions " + profile + " --list");
  ASSERT_EQ(list.status, 0) << list.err;
  EXPECT_EQ(strata::test::CountLines(list.out), 4u) << list.out;  // heading + 3 launches
  EXPECT_NE(list.out.find("app::GemmKernel<"), std::string::npos) << list.out;
  auto json = RunShell(cli + " regions " + profile + " --list --format json");
  ASSERT_EQ(json.status, 0) << json.err;
  auto doc = nlohmann::json::parse(json.out);
  ASSERT_EQ(doc["launches"].size(), 3u);
  EXPECT_EQ(doc["launches"][2]["index"], 2);

  auto text = RunShell(cli + " regions " + profile + " --launch 1");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_EQ(text.out.rfind("launch 1 of 3: ", 0), 0u) << text.out;
  EXPECT_NE(text.out.find("32 lanes"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("k-loop ("), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("no_clock_rate"), std::string::npos) << text.out;
  // Default launch 0, JSON as for a buffer file; names from the profile.
  auto decoded = RunShell(cli + " regions " + profile + " --format json");
  ASSERT_EQ(decoded.status, 0) << decoded.err;
  auto trace = nlohmann::json::parse(decoded.out);
  EXPECT_EQ(trace["lanes"].size(), 32u);
  EXPECT_NE(decoded.out.find("\"epilogue\""), std::string::npos);
  // --names wins over the profile's names; --cycles-per-ns over the recovered rate.
  auto named = RunShell(cli + " regions " + profile + " --names '1=whole' --cycles-per-ns 1.5 --format json");
  ASSERT_EQ(named.status, 0) << named.err;
  auto named_trace = nlohmann::json::parse(named.out);
  EXPECT_DOUBLE_EQ(named_trace["cycles_per_ns"].get<double>(), 1.5);
  EXPECT_NE(named.out.find("\"whole\""), std::string::npos);
  std::string out = strata::test::TempDir() + "/launch2.chrome.json";
  auto chrome = RunShell(cli + " regions " + profile + " --launch 2 --format chrome -o " + Quote(out));
  ASSERT_EQ(chrome.status, 0) << chrome.err;
  EXPECT_TRUE(nlohmann::json::parse(strata::test::ReadText(out)).contains("traceEvents"));

  // Bad input: one line, status 1.
  auto range = RunShell(cli + " regions " + profile + " --launch 3");
  EXPECT_EQ(range.status, 1);
  EXPECT_EQ(strata::test::CountLines(range.err), 1u) << range.err;
  EXPECT_NE(range.err.find("no launch 3 (the profile has 3 captured launches: 0..2)"), std::string::npos) << range.err;
  auto none = RunShell(cli + " regions " + Quote(std::string(STRATA_REGION_FIXTURES) + "/../gpu_cuda_workload.strata") + " --list");
  EXPECT_EQ(none.status, 1);
  EXPECT_EQ(strata::test::CountLines(none.err), 1u) << none.err;
  EXPECT_NE(none.err.find("no region buffers in this profile"), std::string::npos) << none.err;
  auto buffer = RunShell(cli + " regions " + Quote(std::string(STRATA_REGION_FIXTURES) + "/gemm_nested_loop.bin") + " --list");
  EXPECT_EQ(buffer.status, 1);
  EXPECT_NE(buffer.err.find("take a profile"), std::string::npos) << buffer.err;
}

}  // namespace
