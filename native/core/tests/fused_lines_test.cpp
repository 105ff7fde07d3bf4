// A fused kernel's source lines end to end on test/fixtures/h100/inductor/fused_from_provenance.strata
// (written by the runtime's CCT from torch 2.11's recorded provenance, see its README): the
// profile API's FrameInfo::fused_lines, line totals' fused part, the JSON and text reports, the
// CLI, a run's merge and a diff keeping fused groups apart; and an old profile without the
// section (the H100 compiled ViT, whose frame was named "fuses ...") read as it is.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "strata/core/api.h"
#include "strata/core/profile_diff.h"
#include "strata/core/report.h"
#include "strata/core/run_merge.h"
#include "test_util.h"

using strata::core::Profile;
using strata::core::ViewKind;
using strata::test::RunShell;

namespace {

const std::string kFixture = std::string(STRATA_H100_FIXTURES) + "/inductor/fused_from_provenance.strata";
const std::string kProbe = "/work/main/bench/real_models/inductor_probe.py";

const strata::core::FrameInfo* FusedFrame(const strata::core::View& v, size_t* node = nullptr) {
  for (size_t i = 0; i < v.size(); ++i)
    if (!v.frame(i).fused_lines.empty()) {
      if (node) *node = i;
      return &v.frame(i);
    }
  return nullptr;
}

}  // namespace

TEST(FusedLines, FrameCarriesItsLinesInInductorsOrder) {
  auto p = Profile::Open(kFixture);
  const auto v = p->BuildView(ViewKind::kTopDown, 0);
  size_t node = 0;
  const auto* f = FusedFrame(v, &node);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->kind, "operator");
  EXPECT_EQ(f->name, "fused (2 lines)");
  EXPECT_EQ(f->file, "");
  ASSERT_EQ(f->fused_lines.size(), 2u);
  EXPECT_EQ(f->fused_lines[0].file, kProbe);
  EXPECT_EQ(f->fused_lines[0].line, 20u);
  EXPECT_EQ(f->fused_lines[0].function, "forward");
  EXPECT_EQ(f->fused_lines[1].line, 19u);
  // Below the first trace's line, above the launch.
  EXPECT_EQ(v.frame(size_t(v.parent[node])).line, 20u);
  EXPECT_EQ(v.frame(size_t(v.parent[node])).kind, "python");
  // The bottom-up view keeps the frame and its lines too.
  EXPECT_NE(FusedFrame(p->BuildView(ViewKind::kBottomUp, 0)), nullptr);
}

TEST(FusedLines, LineTotalsCountTheKernelOnEveryLineItFuses) {
  auto p = Profile::Open(kFixture);
  auto t = strata::core::SumLines(*p, {0});
  // gpu_time (invented, see the fixture's README): forward mm 1 µs (line 19), forward fused 2 µs
  // and backward reduction 3 µs (both fusing lines 20 and 19, placed under 20), backward mm 4 µs
  // (line 19).
  ASSERT_EQ(t.totals.size(), 1u);
  EXPECT_DOUBLE_EQ(t.totals[0], 10000);
  double l19 = -1, f19 = -1, l20 = -1, f20 = -1;
  for (const auto& l : t.lines) {
    if (l.file != kProbe) continue;
    if (l.line == 19) { l19 = l.values[0]; f19 = l.fused[0]; }
    if (l.line == 20) { l20 = l.values[0]; f20 = l.fused[0]; }
  }
  EXPECT_DOUBLE_EQ(l19, 1000 + 4000 + 2000 + 3000);  // its own kernels and the fused ones, not on its path
  EXPECT_DOUBLE_EQ(f19, 2000 + 3000);
  EXPECT_DOUBLE_EQ(l20, 2000 + 3000);                // the fused kernels are under it: counted once
  EXPECT_DOUBLE_EQ(f20, 2000 + 3000);
}

TEST(FusedLines, ReportsNameTheLines) {
  auto p = Profile::Open(kFixture);
  const auto v = p->BuildView(ViewKind::kTopDown, 0);
  strata::core::ReportOptions o;
  const auto doc = nlohmann::json::parse(strata::core::JsonReport(*p, v, o));
  size_t with = 0;
  for (const auto& n : doc["nodes"]) {
    if (!n.contains("fused_lines")) continue;
    ++with;
    EXPECT_EQ(n["name"], "fused (2 lines)");
    ASSERT_EQ(n["fused_lines"].size(), 2u);
    EXPECT_EQ(n["fused_lines"][0], (nlohmann::json{{"file", kProbe}, {"function", "forward"}, {"line", 20}}));
    EXPECT_EQ(n["fused_lines"][1]["line"], 19);
  }
  EXPECT_EQ(with, 2u);  // the forward's pointwise kernel and the backward's reduction
  const std::string text = strata::core::TextReport(*p, v, o);
  EXPECT_NE(text.find("fused (2 lines)  fuses inductor_probe.py:20 forward, inductor_probe.py:19 forward"), std::string::npos) << text;
}

TEST(FusedLines, Cli) {
  auto r = RunShell(std::string(STRATA_CLI) + " report " + strata::test::Quote(kFixture) + " --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  size_t with = 0;
  for (const auto& n : doc["nodes"]) with += n.contains("fused_lines") ? n["fused_lines"].size() : 0;
  EXPECT_EQ(with, 4u);
  auto t = RunShell(std::string(STRATA_CLI) + " report " + strata::test::Quote(kFixture));
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("fuses inductor_probe.py:20 forward, inductor_probe.py:19 forward"), std::string::npos) << t.out;
  // Exports: formats of names, files and lines only; the fused frame's name says its lines.
  const std::string dir = strata::test::TempDir();
  auto e = RunShell(std::string(STRATA_CLI) + " export " + strata::test::Quote(kFixture) + " --format speedscope -o " +
                    strata::test::Quote(dir + "/s.json"));
  ASSERT_EQ(e.status, 0) << e.err;
  const auto ss = nlohmann::json::parse(strata::test::ReadText(dir + "/s.json"));
  size_t named = 0;
  for (const auto& f : ss["shared"]["frames"]) named += f["name"] == "fused (2 lines): inductor_probe.py:20, inductor_probe.py:19";
  EXPECT_EQ(named, 1u);
  std::system(("rm -rf " + strata::test::Quote(dir)).c_str());
}

TEST(FusedLines, DiffKeepsFusedGroupsApartAndMatchesThemAcrossRuns) {
  auto a = Profile::Open(kFixture);
  auto b = Profile::Open(kFixture);
  const auto d = strata::core::DiffProfiles(*a, *b);
  EXPECT_EQ(d.common_paths, 4u);  // the same run twice: every kernel's path matched
  for (const auto& row : d.rows) EXPECT_DOUBLE_EQ(row.a, row.b);
  // Two fused groups of one name under one line are two paths, whose lines tell them apart.
  auto run = [](double second) {
    namespace fmt = strata::format;
    fmt::ProfileWriter w;
    const uint32_t gpu = w.Metric("gpu_time", "ns");
    const uint32_t fwd = w.Child(0, w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "forward", "/m.py", 20));
    const uint32_t k = w.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "triton_0", "", 0);
    auto group = [&](uint32_t l1, uint32_t l2) {
      return w.Child(w.Child(fwd, w.Frame(fmt::FrameKind::kOperator, fmt::kNone, 0, "fused (2 lines)", "", 0, 0,
                                          fmt::SourceLinesRole::kFused, {{"/m.py", "forward", l1}, {"/m.py", "forward", l2}})), k);
    };
    w.AddStats(group(20, 19), gpu, strata::test::StatsOf({10}));
    w.AddStats(group(21, 22), gpu, strata::test::StatsOf({second}));
    return Profile::FromBytes(w.Serialize());
  };
  auto ra = run(5), rb = run(7);
  const auto g = strata::core::DiffProfiles(*ra, *rb);
  EXPECT_EQ(g.common_paths, 2u);
  ASSERT_FALSE(g.rows.empty());
  EXPECT_DOUBLE_EQ(g.rows[0].change(), 2);
  EXPECT_EQ(g.rows[0].path[1].fused_lines[0].line, 21u);
}

TEST(FusedLines, MergedRunKeepsTheLines) {
  strata::core::RunMember m;
  m.path = kFixture;
  m.pid = 7;
  auto merged = strata::core::MergeRun({m});
  const auto* f = FusedFrame(merged->BuildView(ViewKind::kTopDown, 0));
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->fused_lines.size(), 2u);
  EXPECT_EQ(f->fused_lines[1].line, 19u);
}

TEST(FusedLines, OldProfilesWithoutTheSectionReadAsTheyAre) {
  auto p = Profile::Open(std::string(STRATA_H100_FIXTURES) + "/inductor/compiled_vit_train_before_fused_lines.strata");
  const auto v = p->BuildView(ViewKind::kTopDown, 0);
  EXPECT_EQ(FusedFrame(v), nullptr);
  size_t named = 0;
  for (const auto& f : *v.frame_table) named += f.kind == "operator" && f.name.rfind("fuses ", 0) == 0;
  EXPECT_GT(named, 0u);
  EXPECT_NO_THROW(strata::core::SumLines(*p, {0}));
}
