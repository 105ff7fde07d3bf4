// Round trips through the field's formats: the real H100 model profiles exported as speedscope
// by `strata export` and read back by `strata import` keep every additive metric's total and
// every call path's self value; a small profile's export matches its golden file byte for byte,
// and the golden file imports back to the same profile; bad speedscope input is one line.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "export/call_path_samples.h"
#include "strata/core/api.h"
#include "strata/core/export.h"
#include "strata/core/kineto_import.h"
#include "strata/core/pprof_import.h"
#include "strata/core/speedscope_import.h"
#include "export/gzip.h"
#include "test_util.h"

namespace strata::core {
namespace {

const std::vector<std::string> kModels = {"compiled_encoder_train", "compiled_vit_train", "flax_mlp_train",
                                          "gpt2_generate",          "gpt2_train",         "resnet50_train"};

// A fused kernel's frame leaves as text with its lines (the foreign formats have no typed list)
// and comes back under that name; any other frame under its own.
std::string DisplayName(const FrameInfo& f) {
  if (!f.fused_lines.empty()) return strata::core::detail::ExportFrameName(f);
  return f.name.empty() ? "[" + f.kind + "]" : f.name;
}

// Call paths as ids: one id per (caller's path id, frame name), shared by both profiles so that
// equal paths get equal ids (deep trees: no path is copied as a list of names).
class PathIds {
 public:
  uint32_t Of(uint32_t parent, const std::string& name) {
    const uint32_t name_id = names_.try_emplace(name, uint32_t(names_.size())).first->second;
    const auto [it, fresh] = paths_.try_emplace((uint64_t(parent) << 32) | name_id, uint32_t(last_.size() + 1));
    if (fresh) last_.push_back(name);
    return it->second;
  }
  const std::string& Leaf(uint32_t path) const { return last_[path - 1]; }

 private:
  std::unordered_map<std::string, uint32_t> names_;
  std::unordered_map<uint64_t, uint32_t> paths_;
  std::vector<std::string> last_;
};

// Self value per call path of one metric; paths that read the same add up.
std::map<uint32_t, double> SelfByPath(const Profile& profile, size_t metric, PathIds& ids) {
  ViewOptions options;
  options.expand = false;
  options.filter = FrameFilter::kAll;
  const View view = profile.BuildView(ViewKind::kTopDown, options);
  std::vector<uint32_t> path(view.size(), 0);  // 0: the root
  std::map<uint32_t, double> out;
  for (size_t i = 1; i < view.size(); ++i) {
    path[i] = ids.Of(path[size_t(view.parent[i])], DisplayName(view.frame(i)));
    const double v = view.metric(i, metric).exclusive;
    if (v != 0) out[path[i]] += v;
  }
  return out;
}

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/strata_round_trip_" + std::to_string(::getpid()) + "_" + name;
}

// `per_value`: how far one stored value may be off (pprof stores integers: 0.5).
void ExpectSameProfile(const Profile& original, const Profile& back, const std::string& what, double per_value = 0) {
  size_t compared = 0;
  for (size_t m = 0; m < original.metrics().size(); ++m) {
    const MetricInfo& metric = original.metrics()[m];
    if (metric.nature != MetricNature::kAdditive) continue;
    SCOPED_TRACE(what + " " + metric.name);
    const auto mb = FindMetric(back, metric.name);
    ASSERT_TRUE(mb) << "metric lost";
    if (metric.unit == "ns" || metric.unit == "bytes") EXPECT_EQ(back.metrics()[*mb].unit, metric.unit);
    PathIds ids;
    const auto want = SelfByPath(original, m, ids), got = SelfByPath(back, *mb, ids);
    EXPECT_NEAR(back.total(*mb), original.total(m), 1e-9 * std::fabs(original.total(m)) + per_value * double(want.size()));
    size_t lost = 0;
    for (const auto& [path, value] : want) {
      auto it = got.find(path);
      if (it == got.end()) {
        // Only a value that rounds to nothing may go (pprof), never a path with a value.
        EXPECT_LE(std::fabs(value), per_value) << "call path ending in " << ids.Leaf(path) << " lost";
        ++lost;
        continue;
      }
      EXPECT_NEAR(it->second, value, 1e-9 * std::fabs(value) + per_value * 4);
    }
    EXPECT_EQ(want.size(), got.size() + lost);
    ++compared;
  }
  EXPECT_GT(compared, 0u);
}

TEST(RoundTrip, SpeedscopeExportThenImportKeepsTotalsAndCallPathsOfRealModels) {
  for (const std::string& model : kModels) {
    SCOPED_TRACE(model);
    const std::string fixture = STRATA_FIXTURES "/h100/real_models/" + model + ".strata";
    const std::string json = TempPath(model + ".speedscope.json"), back = TempPath(model + ".strata");
    test::RunResult r = test::RunShell(std::string(STRATA_CLI) + " export " + fixture + " --format speedscope -o " + json);
    ASSERT_EQ(r.status, 0) << r.err;
    r = test::RunShell(std::string(STRATA_CLI) + " import " + json + " -o " + back);
    ASSERT_EQ(r.status, 0) << r.err;
    auto original = Profile::Open(fixture);
    auto imported = Profile::Open(back);
    EXPECT_EQ(imported->meta("imported_from").value_or(""), "speedscope");
    ExpectSameProfile(*original, *imported, model);
    std::remove(json.c_str());
    std::remove(back.c_str());
  }
}

TEST(RoundTrip, PprofExportThenImportKeepsTotalsAndCallPathsOfRealModels) {
  for (const std::string& model : kModels) {
    SCOPED_TRACE(model);
    const std::string fixture = STRATA_FIXTURES "/h100/real_models/" + model + ".strata";
    const std::string pb = TempPath(model + ".pb.gz"), back = TempPath(model + ".pprof.strata");
    test::RunResult r = test::RunShell(std::string(STRATA_CLI) + " export " + fixture + " --format pprof -o " + pb);
    ASSERT_EQ(r.status, 0) << r.err;
    r = test::RunShell(std::string(STRATA_CLI) + " import " + pb + " -o " + back);
    ASSERT_EQ(r.status, 0) << r.err;
    auto original = Profile::Open(fixture);
    auto imported = Profile::Open(back);
    EXPECT_EQ(imported->meta("imported_from").value_or(""), "pprof");
    ExpectSameProfile(*original, *imported, model, 0.5);  // pprof stores int64 values
    std::remove(pb.c_str());
    std::remove(back.c_str());
  }
}

TEST(RoundTrip, BadPprofIsOneLine) {
  auto message = [](const std::string& bytes) {
    try {
      PprofToProfile(bytes, "p.pb.gz");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("\x1f\x8b not really"), "not a pprof profile: not a whole gzip stream");
  // A gzipped message whose string table does not start with "".
  EXPECT_EQ(message(detail::Gzip(std::string("\x32\x01x", 3))), "not a pprof profile: no string table starting with \"\"");
  EXPECT_EQ(message(detail::Gzip(std::string("\x0a\x05", 2))), "not a pprof profile: a length past the end");
}

// Golden: the hand-made Kineto trace's profile as speedscope JSON (test/interop/golden/).
TEST(RoundTrip, GoldenSpeedscopeOfASmallProfile) {
  const std::string trace = STRATA_FIXTURES "/kineto/train_step.json";
  auto profile = Profile::FromBytes(KinetoTraceToProfile(test::ReadText(trace), "train_step.json"));
  const std::string golden = STRATA_INTEROP_TESTS "/golden/train_step.speedscope.json";
  const std::string exported = ExportProfile(*profile, ExportFormat::kSpeedscope);
  if (std::getenv("STRATA_UPDATE_GOLDEN")) { std::ofstream(golden, std::ios::binary) << exported; }
  EXPECT_EQ(exported, test::ReadText(golden)) << "STRATA_UPDATE_GOLDEN=1 rewrites " << golden;

  auto back = Profile::FromBytes(SpeedscopeToProfile(test::ReadText(golden), golden));
  ExpectSameProfile(*profile, *back, "golden");
}

TEST(RoundTrip, BadSpeedscopeIsOneLineAndWritesNothing) {
  auto message = [](const std::string& text) {
    try {
      SpeedscopeToProfile(text, "s.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string head = R"({"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": [{"name": "f"}]}, "profiles": )";
  EXPECT_EQ(message(head + "[]}"), "not a speedscope file: no profiles");
  EXPECT_EQ(message(head + R"([{"type": "sampled", "name": "t", "unit": "none", "samples": [[3]], "weights": [1]}]})"),
            "not a valid speedscope file: profile 't': a frame index out of range");
  EXPECT_EQ(message(head + R"([{"type": "evented", "name": "t", "unit": "none", "events": [{"type": "O", "frame": 0, "at": 1}]}]})"),
            "not a valid speedscope file: profile 't': frames left open at the end");
  EXPECT_EQ(message(head + R"([{"type": "tree", "name": "t"}]})"),
            "not a valid speedscope file: profile 't': type 'tree' (sampled or evented)");

  // Evented profiles: time between events goes to the innermost open frame.
  auto evented = Profile::FromBytes(SpeedscopeToProfile(
      R"({"shared": {"frames": [{"name": "a"}, {"name": "b"}]}, "profiles": [{"type": "evented", "name": "wall",
          "unit": "nanoseconds", "startValue": 0, "endValue": 10, "events": [{"type": "O", "frame": 0, "at": 0},
          {"type": "O", "frame": 1, "at": 2}, {"type": "C", "frame": 1, "at": 7}, {"type": "C", "frame": 0, "at": 10}]}]})",
      "e.json"));
  PathIds ids;
  const auto self = SelfByPath(*evented, 0, ids);
  const uint32_t a = ids.Of(0, "a");
  EXPECT_DOUBLE_EQ(self.at(a), 5);
  EXPECT_DOUBLE_EQ(self.at(ids.Of(a, "b")), 5);
  EXPECT_EQ(evented->metrics()[0].unit, "ns");

  // The CLI: one line, no output file.
  const std::string bad = TempPath("bad.speedscope.json"), out = TempPath("bad.strata");
  { std::ofstream(bad) << head + "[]}"; }
  const test::RunResult r = test::RunShell(std::string(STRATA_CLI) + " import " + bad + " -o " + out);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "strata: " + bad + ": not a speedscope file: no profiles\n");
  struct stat st;
  EXPECT_NE(::stat(out.c_str(), &st), 0);
  std::remove(bad.c_str());
}

}  // namespace
}  // namespace strata::core
