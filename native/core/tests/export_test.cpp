// strata export on real H100 profiles: per metric, the exported totals equal the profile's, and
// every call path keeps its self values. pprof is decoded by the protobuf library (Python's, with
// the schema compiled by protoc: test/interop/decode_pprof.py), speedscope checked against the
// fields of its file-format schema.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "strata/core/api.h"
#include "strata/core/export.h"
#include "strata/core/profile_regions.h"
#include "test_util.h"

namespace strata::core {
namespace {

using nlohmann::json;

const std::vector<std::string> kFixtures = {
    STRATA_FIXTURES "/h100/gpu_torch_train.strata",
    STRATA_FIXTURES "/h100/ops_torch_cuda.strata",
    STRATA_FIXTURES "/h100/py312_train_loop.strata",
};

// A call path as names, outermost first (the root left out).
using NamePath = std::vector<std::string>;

std::string DisplayName(const FrameInfo& f) { return f.name.empty() ? "[" + f.kind + "]" : f.name; }

// The profile's own answer, walked independently of the exporters: self value per call path
// (nodes whose paths read the same are added up) for one metric.
std::map<NamePath, double> SelfByPath(const Profile& profile, size_t metric) {
  ViewOptions options;
  options.expand = false;
  options.filter = FrameFilter::kAll;
  const View view = profile.BuildView(ViewKind::kTopDown, options);
  std::vector<NamePath> paths(view.size());
  std::map<NamePath, double> out;
  for (size_t i = 0; i < view.size(); ++i) {
    if (i > 0) {
      paths[i] = paths[size_t(view.parent[i])];
      paths[i].push_back(DisplayName(view.frame(i)));
    }
    const double v = view.metric(i, metric).exclusive;
    if (v != 0) out[paths[i]] += v;
  }
  return out;
}

std::vector<size_t> AdditiveMetrics(const Profile& profile) {
  std::vector<size_t> out;
  for (size_t m = 0; m < profile.metrics().size(); ++m)
    if (profile.metrics()[m].nature == MetricNature::kAdditive) out.push_back(m);
  return out;
}

void ExpectSamePaths(const std::map<NamePath, double>& want, const std::map<NamePath, double>& got,
                     double tolerance_per_path, const std::string& what) {
  EXPECT_EQ(want.size(), got.size()) << what;
  for (const auto& [path, value] : want) {
    auto it = got.find(path);
    ASSERT_NE(it, got.end()) << what << ": a call path ending in " << (path.empty() ? "(root)" : path.back())
                             << " is missing";
    EXPECT_NEAR(it->second, value, tolerance_per_path + 1e-9 * std::fabs(value)) << what;
  }
}

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/strata_export_" + std::to_string(::getpid()) + "_" + name;
}

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

TEST(SpeedscopeExport, TotalsAndCallPathsPerMetric) {
  for (const std::string& fixture : kFixtures) {
    SCOPED_TRACE(fixture);
    auto profile = Profile::Open(fixture);
    const json file = json::parse(ExportProfile(*profile, ExportFormat::kSpeedscope));

    // The schema's required fields and types.
    EXPECT_EQ(file.at("$schema"), "https://www.speedscope.app/file-format-schema.json");
    ASSERT_TRUE(file.at("shared").at("frames").is_array());
    const json& frames = file["shared"]["frames"];
    for (const json& f : frames) {
      ASSERT_TRUE(f.at("name").is_string());
      if (f.contains("file")) EXPECT_TRUE(f["file"].is_string());
      if (f.contains("line")) EXPECT_TRUE(f["line"].is_number_integer());
    }
    const std::vector<size_t> metrics = AdditiveMetrics(*profile);
    ASSERT_FALSE(metrics.empty());
    ASSERT_EQ(file.at("profiles").size(), metrics.size());
    EXPECT_EQ(file.at("activeProfileIndex"), 0);

    const std::set<std::string> units = {"none", "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes"};
    for (size_t k = 0; k < metrics.size(); ++k) {
      const json& p = file["profiles"][k];
      const std::string metric = profile->metrics()[metrics[k]].name;
      SCOPED_TRACE(metric);
      EXPECT_EQ(p.at("type"), "sampled");
      EXPECT_EQ(p.at("name"), metric);
      EXPECT_TRUE(units.count(p.at("unit").get<std::string>()));
      ASSERT_EQ(p.at("samples").size(), p.at("weights").size());
      EXPECT_TRUE(p.at("startValue").is_number());

      std::map<NamePath, double> got;
      double total = 0;
      for (size_t i = 0; i < p["samples"].size(); ++i) {
        NamePath path;
        for (const json& index : p["samples"][i]) {
          ASSERT_LT(index.get<size_t>(), frames.size());
          path.push_back(frames[index.get<size_t>()]["name"]);
        }
        const double w = p["weights"][i];
        got[path] += w;
        total += w;
      }
      const double want_total = profile->total(metrics[k]);
      EXPECT_NEAR(total, want_total, 1e-9 * std::fabs(want_total));
      EXPECT_NEAR(p.at("endValue").get<double>(), want_total, 1e-9 * std::fabs(want_total));
      ExpectSamePaths(SelfByPath(*profile, metrics[k]), got, 0, fixture + " " + metric);
    }
  }
}

TEST(PprofExport, DecodedByProtobufKeepsTotalsAndCallPaths) {
  if (test::RunShell("protoc --version && /usr/bin/python3 -c 'import google.protobuf'").status != 0) GTEST_SKIP() << "needs protoc and Python's protobuf (Debian: protobuf-compiler python3-protobuf)";

  for (const std::string& fixture : kFixtures) {
    SCOPED_TRACE(fixture);
    auto profile = Profile::Open(fixture);
    const std::string out = TempPath("p.pb.gz");
    ExportProfileToFile(*profile, ExportFormat::kPprof, out);
    const test::RunResult run = test::RunShell("/usr/bin/python3 " STRATA_INTEROP_TESTS "/decode_pprof.py " + out);
    std::remove(out.c_str());
    ASSERT_EQ(run.status, 0) << run.err;
    const json decoded = json::parse(run.out);

    const std::vector<size_t> metrics = AdditiveMetrics(*profile);
    ASSERT_EQ(decoded.at("sample_types").size(), metrics.size());
    EXPECT_EQ(decoded.at("default_sample_type"), profile->metrics()[metrics[0]].name);
    const json& samples = decoded.at("samples");
    for (size_t k = 0; k < metrics.size(); ++k) {
      const MetricInfo& metric = profile->metrics()[metrics[k]];
      SCOPED_TRACE(metric.name);
      EXPECT_EQ(decoded["sample_types"][k].at("type"), metric.name);
      if (metric.unit == "ns") EXPECT_EQ(decoded["sample_types"][k].at("unit"), "nanoseconds");

      std::map<NamePath, double> got;
      double total = 0;
      for (const json& s : samples) {
        const double v = s.at("values")[k];
        if (v == 0) continue;
        NamePath path;
        for (const json& frame : s.at("path")) path.push_back(frame.at("name"));
        got[path] += v;
        total += v;
      }
      // pprof values are integers: each sample rounds by at most one half.
      const double want_total = profile->total(metrics[k]);
      EXPECT_NEAR(total, want_total, 0.5 * double(samples.size()) + 1e-9 * std::fabs(want_total));
      std::map<NamePath, double> want = SelfByPath(*profile, metrics[k]);
      // Values that round to zero leave no sample.
      for (auto it = want.begin(); it != want.end();) it = std::fabs(it->second) < 0.5 ? want.erase(it) : std::next(it);
      ExpectSamePaths(want, got, 0.5 * double(samples.size()), fixture + " " + metric.name);
    }

    // Source lines travel in the locations: some frame with a file has its line.
    bool any_line = false;
    for (const json& s : samples)
      for (const json& frame : s.at("path"))
        any_line = any_line || (!frame.at("file").get<std::string>().empty() && frame.at("line").get<int64_t>() > 0);
    EXPECT_TRUE(any_line);
  }
}

// The region launches of a real H100 profile as a Perfetto trace, decoded by the protobuf library
// with Perfetto's own field numbers (test/interop/perfetto_trace.proto): one track per launch with
// a child track per warp group, every decoded region interval a slice of its name and duration on
// its lane, nested as on the device, and the launch's slice carrying the kernel's call path.
TEST(PerfettoExport, RegionLaunchesDecodedByProtobuf) {
  if (test::RunShell("protoc --version && /usr/bin/python3 -c 'import google.protobuf'").status != 0) GTEST_SKIP() << "needs protoc and Python's protobuf (Debian: protobuf-compiler python3-protobuf)";
  const std::string fixture = STRATA_FIXTURES "/h100/regions/runtime_capture_typed.strata";
  auto profile = Profile::Open(fixture);
  const std::string out = TempPath("regions.pftrace");
  test::RunResult r = test::RunShell(std::string(STRATA_CLI) + " export " + fixture + " --format perfetto -o " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  const test::RunResult run = test::RunShell("/usr/bin/python3 " STRATA_INTEROP_TESTS "/decode_perfetto.py " + out);
  std::remove(out.c_str());
  ASSERT_EQ(run.status, 0) << run.err;
  const json tracks = json::parse(run.out).at("tracks");

  const regions::ProfileRegions launches = regions::ReadProfileRegions(fixture);
  ASSERT_EQ(launches.launches.size(), 3u);
  size_t t = 0;
  for (size_t n = 0; n < launches.launches.size(); ++n) {
    SCOPED_TRACE("launch " + std::to_string(n));
    const regions::Trace trace = regions::DecodeLaunch(launches, n);
    ASSERT_LT(t, tracks.size());
    const json& launch = tracks[t++];
    EXPECT_EQ(launch.at("parent"), 0);
    EXPECT_EQ(launch.at("name"), "launch " + std::to_string(n) + ": " + launches.launches[n].kernel);
    ASSERT_EQ(launch.at("slices").size(), 1u);
    const json& args = launch["slices"][0].at("args");
    EXPECT_EQ(args.at("correlation_id"), launches.launches[n].correlation_id);
    ASSERT_TRUE(args.contains("call_path")) << args.dump();
    EXPECT_EQ(args["call_path"].back(), launches.launches[n].kernel);
    EXPECT_GE(args["call_path"].size(), 2u);

    // Region slices, per lane, against the decoder's intervals.
    std::map<std::string, size_t> want_names, got_names;
    double want_ns = 0, got_ns = 0;
    for (const regions::Interval& iv : trace.intervals) {
      std::string name = regions::NameOf(launches.names, iv.region).name;
      if (iv.iteration >= 0) name += " #" + std::to_string(iv.iteration);
      ++want_names[name];
      want_ns += std::max(0.0, iv.duration_ns());
    }
    size_t lanes = 0, nested = 0;
    while (t < tracks.size() && tracks[t].at("parent") == launch.at("uuid")) {
      const json& lane = tracks[t++];
      if (lane.at("name").get<std::string>().find("overlapping") == std::string::npos) ++lanes;
      EXPECT_NE(lane.at("name").get<std::string>().find("warp group"), std::string::npos) << lane.at("name");
      for (const json& s : lane.at("slices")) {
        ++got_names[s.at("name").get<std::string>()];
        got_ns += double(s.at("end").get<uint64_t>() - s.at("begin").get<uint64_t>());  // globaltimer ns: exact
        if (s.at("depth").get<int>() > 0) ++nested;
      }
    }
    EXPECT_EQ(lanes, trace.lanes.size());
    EXPECT_EQ(got_names, want_names);
    // Each slice's ends are rounded to whole ns.
    EXPECT_NEAR(got_ns, want_ns, double(trace.intervals.size()));
    EXPECT_GT(nested, 0u);
  }
  EXPECT_EQ(t, tracks.size());
}

TEST(ExportErrors, OneLineAndNothingWritten) {
  auto profile = Profile::Open(kFixtures[0]);
  try {
    ParseExportFormat("perfeto");
    FAIL() << "accepted an unknown format";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unknown export format 'perfeto' (pprof, speedscope, perfetto or chrome)");
  }

  // chrome: a profile recorded before the GPU activity timeline has no times; an existing file
  // stays as it was.
  const std::string out = TempPath("kept.json");
  { std::ofstream(out) << "before"; }
  try {
    ExportProfileToFile(*profile, ExportFormat::kChrome, out, kFixtures[0]);
    FAIL() << "exported a timeline the profile does not have";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no GPU activity timeline"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  std::stringstream kept;
  kept << std::ifstream(out).rdbuf();
  EXPECT_EQ(kept.str(), "before");
  std::remove(out.c_str());

  EXPECT_THROW(ExportProfileToFile(*profile, ExportFormat::kPprof, "/nonexistent-dir/p.pb.gz"), Error);

  // perfetto: a profile without GPU activities or region launches has nothing with a time.
  { std::ofstream(out) << "before"; }
  try {
    ExportProfileToFile(*profile, ExportFormat::kPerfetto, out, kFixtures[0]);
    FAIL() << "exported a timeline the profile does not have";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("perfetto: this profile has no GPU activity timeline and no in-kernel region launches", 0), 0u) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  std::stringstream still;
  still << std::ifstream(out).rdbuf();
  EXPECT_EQ(still.str(), "before");
  std::remove(out.c_str());
}

TEST(ExportCli, WritesAndRejectsWithOneLine) {
  const std::string out = TempPath("cli.speedscope.json");
  test::RunResult r = test::RunShell(std::string(STRATA_CLI) + " export " + kFixtures[2] + " --format speedscope -o " + out);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(json::parse(std::ifstream(out)).contains("profiles"));
  std::remove(out.c_str());

  r = test::RunShell(std::string(STRATA_CLI) + " export " + kFixtures[2] + " --format svg -o " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "strata export: unknown export format 'svg' (pprof, speedscope, perfetto or chrome)\n");
  EXPECT_FALSE(FileExists(out));

  const std::string bad = TempPath("bad.strata");
  { std::ofstream(bad) << "not a profile"; }
  r = test::RunShell(std::string(STRATA_CLI) + " export " + bad + " --format pprof -o " + out);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
  EXPECT_FALSE(FileExists(out));
  std::remove(bad.c_str());
}

}  // namespace
}  // namespace strata::core
