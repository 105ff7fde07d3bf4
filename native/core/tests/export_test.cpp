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

TEST(ExportErrors, OneLineAndNothingWritten) {
  auto profile = Profile::Open(kFixtures[0]);
  try {
    ParseExportFormat("perfetto");
    FAIL() << "accepted an unknown format";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unknown export format 'perfetto' (pprof, speedscope or chrome)");
  }

  // chrome: no activity times in the tree; an existing file stays as it was.
  const std::string out = TempPath("kept.json");
  { std::ofstream(out) << "before"; }
  try {
    ExportProfileToFile(*profile, ExportFormat::kChrome, out);
    FAIL() << "exported a timeline the profile does not have";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no timeline"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  std::stringstream kept;
  kept << std::ifstream(out).rdbuf();
  EXPECT_EQ(kept.str(), "before");
  std::remove(out.c_str());

  EXPECT_THROW(ExportProfileToFile(*profile, ExportFormat::kPprof, "/nonexistent-dir/p.pb.gz"), Error);
}

TEST(ExportCli, WritesAndRejectsWithOneLine) {
  const std::string out = TempPath("cli.speedscope.json");
  test::RunResult r = test::RunShell(std::string(STRATA_CLI) + " export " + kFixtures[2] + " --format speedscope -o " + out);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(json::parse(std::ifstream(out)).contains("profiles"));
  std::remove(out.c_str());

  r = test::RunShell(std::string(STRATA_CLI) + " export " + kFixtures[2] + " --format svg -o " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "strata export: unknown export format 'svg' (pprof, speedscope or chrome)\n");
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
