// Region launches carried by a profile: the launches `strata record --regions` kept, listed and
// decoded again, names from the launches and the region frames, the runtime's clock rate
// recovered; `strata regions PROFILE --list / --launch N`. On the H100 fixture
// test/fixtures/h100/regions/runtime_capture.strata (3 launches, 16 blocks x 2 warp groups),
// written in the old form (blobs, a frame name suffix), and on the same profile rewritten in the
// region launches section with iteration flags: the two read the same.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "strata/core/analyze.h"
#include "strata/core/api.h"
#include "strata/core/profile_regions.h"
#include "strata/core/report.h"
#include "strata/format/reader.h"
#include "strata/format/writer.h"
#include "test_util.h"

namespace {

using namespace strata::core::regions;
using strata::test::Quote;
using strata::test::RunShell;

namespace fmt = strata::format;

const std::string kFixture = std::string(STRATA_REGION_FIXTURES) + "/runtime_capture.strata";

std::vector<unsigned char> ReadBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<unsigned char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// The old-form fixture as the runtime writes profiles now, through the writer's typed API: the
// launches in the region launches section (from the core's reading of the old form), iteration
// frames flagged instead of suffixed, no "regions:" modules or region blobs; every other
// record as it was.
std::vector<unsigned char> RewrittenInTheNewForm(const std::vector<unsigned char>& old) {
  fmt::ProfileReader r = fmt::ProfileReader::Parse(old.data(), old.size());
  fmt::ProfileWriter w;
  for (const fmt::MetaEntry& m : r.meta()) w.Meta(r.string(m.key), r.string(m.value));
  std::vector<uint32_t> module(r.modules().size, fmt::kNone);
  for (size_t i = 0; i < r.modules().size; ++i) {
    const fmt::ModuleRecord& m = r.modules()[i];
    if (r.string(m.path).rfind("regions:", 0) == 0) continue;
    module[i] = w.Module(r.string(m.path), r.string(m.build_id), m.load_bias);
  }
  const std::string suffix(kIterationSuffix);
  std::vector<uint32_t> frame(r.frames().size);
  for (size_t i = 0; i < r.frames().size; ++i) {
    const fmt::FrameRecord& f = r.frames()[i];
    std::string name(r.string(f.name));
    uint32_t flags = 0;
    if (f.kind == uint32_t(fmt::FrameKind::kRegion) && name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      name.resize(name.size() - suffix.size());
      flags = fmt::kFrameFlagIteration;
    }
    frame[i] = w.Frame(fmt::FrameKind(f.kind), f.module == fmt::kNone ? fmt::kNone : module[f.module], f.address, name,
                       r.string(f.file), f.line, flags);
  }
  std::vector<uint32_t> node(r.nodes().size, 0);
  for (size_t i = 1; i < r.nodes().size; ++i) node[i] = w.Child(node[r.nodes()[i].parent], frame[r.nodes()[i].frame]);
  std::vector<uint32_t> metric;
  for (const fmt::MetricDescriptor& m : r.metrics()) metric.push_back(w.Metric(r.string(m.name), r.string(m.unit)));
  for (const fmt::NodeMetricRecord& m : r.node_metrics()) {
    fmt::MetricStats s;
    s.count = m.count, s.sum = m.sum, s.min = m.min, s.max = m.max, s.m2 = m.m2;
    w.AddStats(node[m.node], metric[m.metric], s);
  }
  for (size_t i = 0; i < r.blob_count(); ++i) {
    fmt::BlobView b = r.blob(i);
    if (b.kind == fmt::BlobKind::kRegionBuffer || b.kind == fmt::BlobKind::kRegionInfo) continue;
    w.Blob(module[b.module], b.kind, b.bytes);
  }
  for (const CapturedLaunch& l : ReadProfileRegions(old.data(), old.size()).launches) {
    fmt::RegionLaunch nl;
    nl.kernel = l.mangled;
    nl.correlation_id = l.correlation_id;
    nl.sm_clock_khz = 1980000;
    nl.cycles_per_ns = l.cycles_per_ns;
    nl.record_cost_cycles = l.record_cost_cycles;
    for (const auto& [id, n] : l.names) nl.names.push_back({id, n.name, n.file, n.line});
    nl.buffer = l.bytes;
    w.AddRegionLaunch(nl);
  }
  return w.Serialize();
}

TEST(ProfileRegions, ListsTheCapturedLaunchesOfTheH100Fixture) {
  ProfileRegions pr = ReadProfileRegions(kFixture);
  ASSERT_EQ(pr.launches.size(), 3u);
  std::set<uint64_t> corrs;
  for (size_t i = 0; i < pr.launches.size(); ++i) {
    const CapturedLaunch& l = pr.launches[i];
    EXPECT_EQ(l.index, i);
    EXPECT_EQ(l.mangled.rfind("_Z", 0), 0u) << l.mangled;
    EXPECT_NE(l.kernel.find("app::GemmKernel<"), std::string::npos) << l.kernel;
    EXPECT_GT(l.cycles_per_ns, 1.0);  // from its region_info blob
    EXPECT_NEAR(l.record_cost_cycles, 14.7, 0.1);
    EXPECT_EQ(l.sm_clock_khz, 0u);     // not in the old form
    EXPECT_EQ(NameOf(l.names, 1).name, "kernel");
    EXPECT_GT(l.correlation_id, 0u);
    corrs.insert(l.correlation_id);
    ASSERT_GE(l.bytes.size(), 64u);
    EXPECT_EQ(l.bytes.substr(0, 4), "SREG");
  }
  EXPECT_EQ(corrs.size(), 3u);
  // Names from the launches and the region frames, " (iteration)" taken off, with the marker's
  // line from the program's names table (test/regions/plain_app.cu).
  std::set<std::string> names;
  std::map<std::string, std::string> where;
  for (const auto& [id, n] : pr.names) {
    names.insert(n.name);
    where[n.name] = n.file + ":" + std::to_string(n.line);
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
  EXPECT_EQ(pr.names, (RegionNames{{7, RegionName{"seven", "", 0}}}));
  EXPECT_NEAR(pr.cycles_per_ns, 2.0, 1e-9);
  nlohmann::json j = nlohmann::json::parse(LaunchesToJson(pr));
  EXPECT_EQ(j["launches"][0]["kernel"], "foo(float*)");
  EXPECT_EQ(j["launches"][0]["correlation_id"], 42);
  EXPECT_EQ(j["regions"], (nlohmann::json{{{"id", 7}, {"name", "seven"}}}));
}

TEST(ProfileRegions, TheNewFormReadsAsTheOldFormConverted) {
  const std::vector<unsigned char> old = ReadBytes(kFixture);
  const std::vector<unsigned char> now = RewrittenInTheNewForm(old);
  {  // It is the new form: a region launches section, flags, no region blobs or suffixes.
    fmt::ProfileReader r = fmt::ProfileReader::Parse(now.data(), now.size());
    EXPECT_EQ(r.region_launches_version(), fmt::kRegionLaunchesVersion);
    EXPECT_EQ(r.region_launch_count(), 3u);
    size_t flagged = 0;
    for (const fmt::FrameRecord& f : r.frames()) {
      flagged += (f.flags & fmt::kFrameFlagIteration) != 0;
      EXPECT_EQ(std::string(r.string(f.name)).find("(iteration)"), std::string::npos);
    }
    EXPECT_GT(flagged, 0u);
    for (size_t i = 0; i < r.blob_count(); ++i) EXPECT_NE(r.blob(i).kind, fmt::BlobKind::kRegionBuffer);
  }
  ProfileRegions a = ReadProfileRegions(old.data(), old.size()), b = ReadProfileRegions(now.data(), now.size());
  ASSERT_EQ(a.launches.size(), b.launches.size());
  for (size_t i = 0; i < a.launches.size(); ++i) {
    EXPECT_EQ(a.launches[i].kernel, b.launches[i].kernel);
    EXPECT_EQ(a.launches[i].mangled, b.launches[i].mangled);
    EXPECT_EQ(a.launches[i].correlation_id, b.launches[i].correlation_id);
    EXPECT_EQ(a.launches[i].cycles_per_ns, b.launches[i].cycles_per_ns);
    EXPECT_EQ(a.launches[i].record_cost_cycles, b.launches[i].record_cost_cycles);
    EXPECT_EQ(a.launches[i].names, b.launches[i].names);
    EXPECT_EQ(a.launches[i].bytes, b.launches[i].bytes);
    EXPECT_EQ(b.launches[i].sm_clock_khz, 1980000u);
    EXPECT_EQ(ToJson(DecodeLaunch(a, i), a.names), ToJson(DecodeLaunch(b, i), b.names));
  }
  EXPECT_EQ(a.names, b.names);
  EXPECT_EQ(a.cycles_per_ns, b.cycles_per_ns);
  EXPECT_EQ(LaunchesToJson(a), LaunchesToJson(b));
  // Views, reports and findings: the same text, " (iteration)" included.
  auto pa = strata::core::Profile::FromBytes(old), pb = strata::core::Profile::FromBytes(now);
  for (auto kind : {strata::core::ViewKind::kTopDown, strata::core::ViewKind::kBottomUp, strata::core::ViewKind::kFlat}) {
    auto va = pa->BuildView(kind), vb = pb->BuildView(kind);
    EXPECT_EQ(strata::core::JsonReport(*pa, va, {}), strata::core::JsonReport(*pb, vb, {}));
    EXPECT_EQ(strata::core::TextReport(*pa, va, {}), strata::core::TextReport(*pb, vb, {}));
  }
  const std::string findings = strata::core::FindingsJson(strata::core::Analyze(*pa), "");
  EXPECT_EQ(findings, strata::core::FindingsJson(strata::core::Analyze(*pb), ""));
  auto top = pb->BuildView(strata::core::ViewKind::kTopDown);
  size_t iterations = 0;
  for (size_t i = 0; i < top.size(); ++i) {
    const auto& f = top.frame(i);
    EXPECT_EQ(f.iteration, f.kind == "region" && f.name.size() > 12 && f.name.substr(f.name.size() - 12) == " (iteration)") << f.name;
    iterations += f.iteration;
  }
  EXPECT_GT(iterations, 0u);
  // And through the CLI, from a file.
  const std::string path = strata::test::TempDir() + "/new_form.strata", cli = Quote(STRATA_CLI);
  strata::test::WriteFile(path, now);
  for (const std::string args : {" --list", " --list --format json", " --launch 1", " --launch 2 --format json",
                                 " --launch 0 --format chrome"}) {
    auto x = RunShell(cli + " regions " + Quote(kFixture) + args), y = RunShell(cli + " regions " + Quote(path) + args);
    ASSERT_EQ(x.status, 0) << x.err;
    EXPECT_EQ(x.out, y.out) << args;
  }
}

TEST(ProfileRegions, NewerRegionLaunchesVersion) {
  std::vector<unsigned char> b = RewrittenInTheNewForm(ReadBytes(kFixture));
  auto* h = reinterpret_cast<fmt::FileHeader*>(b.data());
  auto* table = reinterpret_cast<fmt::SectionEntry*>(b.data() + h->section_table_offset);
  for (uint32_t i = 0; i < h->section_count; ++i)
    if (table[i].kind == uint32_t(fmt::SectionKind::kRegionLaunches))
      reinterpret_cast<fmt::RegionLaunchesHeader*>(b.data() + table[i].offset)->version = 2;
  h->checksum = fmt::Fnv1a(b.data() + sizeof *h, b.size() - sizeof *h);
  EXPECT_NO_THROW(strata::core::Profile::FromBytes(b)->BuildView(strata::core::ViewKind::kTopDown));  // the rest opens
  try {
    ReadProfileRegions(b.data(), b.size());
    ADD_FAILURE() << "no error";
  } catch (const strata::core::Error& e) {
    EXPECT_STREQ(e.what(), "the profile's region launches are of format version 2, newer than this Strata reads (1)");
  }
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
