// JSON report shape (the docs/report-json.md contract), --limit, the text report, and the
// atomic meta rewrite.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "strata/core/api.h"
#include "strata/core/report.h"
#include "test_util.h"

namespace fmt = strata::format;
using strata::core::Profile;
using strata::core::ReportOptions;
using strata::core::ViewKind;

TEST(Report, JsonShape) {
  auto p = Profile::FromBytes(strata::test::SmallProfile());
  auto v = p->BuildView(ViewKind::kTopDown);
  auto j = nlohmann::json::parse(strata::core::JsonReport(*p, v, ReportOptions{}));
  EXPECT_EQ(j["format_version"], 1);
  EXPECT_EQ(j["profile"]["version"], 1);
  EXPECT_EQ(j["profile"]["meta"]["command"], "python train.py");
  EXPECT_EQ(j["view"], "top-down");
  ASSERT_EQ(j["metrics"].size(), 1u);
  EXPECT_EQ(j["metrics"][0]["name"], "cpu_time");
  EXPECT_EQ(j["metrics"][0]["unit"], "ns");
  ASSERT_EQ(j["nodes"].size(), 3u);
  const auto& root = j["nodes"][0];
  EXPECT_EQ(root["id"], 0);
  EXPECT_EQ(root["parent"], -1);
  EXPECT_EQ(root["kind"], "root");
  for (const auto& n : j["nodes"]) {
    for (const char* key : {"id", "parent", "kind", "name", "file", "line", "module", "metrics"})
      EXPECT_TRUE(n.contains(key)) << key;
    for (const char* key : {"inclusive", "exclusive", "count", "min", "max", "mean", "std"})
      EXPECT_TRUE(n["metrics"]["cpu_time"].contains(key)) << key;
  }
  const auto& work = j["nodes"][2];
  EXPECT_EQ(work["kind"], "native");
  EXPECT_EQ(work["name"], "work()");
  EXPECT_EQ(work["module"], "/nonexistent/libwork.so");
  EXPECT_EQ(work["address"], "0x1234");
  EXPECT_EQ(work["parent"], 1);
  EXPECT_EQ(work["metrics"]["cpu_time"]["count"], 4);
  EXPECT_DOUBLE_EQ(work["metrics"]["cpu_time"]["inclusive"].get<double>(), 180);
  EXPECT_DOUBLE_EQ(j["nodes"][1]["metrics"]["cpu_time"]["inclusive"].get<double>(), 210);
}

TEST(Report, JsonReplacesInvalidUtf8) {
  fmt::ProfileWriter w;
  w.Meta("command", std::string("bad \xff\xfe bytes"));
  w.Child(0, w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "f\xc3", "/a.py", 1));
  auto p = Profile::FromBytes(w.Serialize());
  auto v = p->BuildView(ViewKind::kTopDown);
  auto j = nlohmann::json::parse(strata::core::JsonReport(*p, v, ReportOptions{}));
  EXPECT_EQ(j["nodes"].size(), 2u);
  EXPECT_TRUE(j["metrics"].empty());
}

TEST(Report, LimitKeepsAncestors) {
  fmt::ProfileWriter w;
  uint32_t m = w.Metric("cpu_time", "ns");
  auto fr = [&](const std::string& n) { return w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, n, "/a.py", 1); };
  uint32_t a = w.Child(0, fr("a"));
  uint32_t b = w.Child(a, fr("b"));
  uint32_t c = w.Child(b, fr("c"));
  uint32_t d = w.Child(0, fr("d"));
  w.AddStats(c, m, strata::test::StatsOf({100}));
  w.AddStats(d, m, strata::test::StatsOf({1}));
  auto p = Profile::FromBytes(w.Serialize());
  auto v = p->BuildView(ViewKind::kTopDown);
  // The 2 largest are root (101) and a (100); with 4, c's chain (root a b c) is kept, d is not.
  EXPECT_EQ(strata::core::SelectNodes(v, 0, 2), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(strata::core::SelectNodes(v, 0, 4), (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(strata::core::SelectNodes(v, 0, 0).size(), 5u);
  ReportOptions ro;
  ro.limit = 3;
  auto j = nlohmann::json::parse(strata::core::JsonReport(*p, v, ro));
  ASSERT_EQ(j["nodes"].size(), 3u);
  for (const auto& n : j["nodes"]) EXPECT_NE(n["name"], "d");
  // Every parent referenced is present.
  std::set<int> ids;
  for (const auto& n : j["nodes"]) ids.insert(n["id"].get<int>());
  for (const auto& n : j["nodes"]) if (n["parent"] != -1) EXPECT_TRUE(ids.count(n["parent"].get<int>()));
}

TEST(Report, Text) {
  auto p = Profile::FromBytes(strata::test::SmallProfile());
  auto v = p->BuildView(ViewKind::kTopDown);
  std::string t = strata::core::TextReport(*p, v, ReportOptions{});
  EXPECT_NE(t.find("command: python train.py"), std::string::npos) << t;
  EXPECT_NE(t.find("samples: 6"), std::string::npos) << t;
  EXPECT_NE(t.find("100.00%"), std::string::npos) << t;
  EXPECT_NE(t.find("    work()  /nonexistent/libwork.so"), std::string::npos) << t;
  EXPECT_NE(t.find("train.py:10"), std::string::npos) << t;
  auto flat = p->BuildView(ViewKind::kFlat);
  std::string f = strata::core::TextReport(*p, flat, ReportOptions{});
  EXPECT_NE(f.find(" 85.71%"), std::string::npos) << f;  // work: 180 / 210
}

TEST(Rewrite, AddsAndReplacesMeta) {
  std::string dir = strata::test::TempDir();
  std::string path = dir + "/p.strata";
  // An unknown section must survive the rewrite byte for byte: append one by hand.
  auto bytes = strata::test::SmallProfile();
  strata::test::WriteFile(path, bytes);
  strata::core::RewriteProfileMeta(path, {{"samples", "7"}, {"exit", "exited with code 0"}, {"exit_code", "0"}});
  auto p = Profile::Open(path);
  EXPECT_EQ(p->meta("samples").value(), "7");
  EXPECT_EQ(p->meta("exit").value(), "exited with code 0");
  EXPECT_EQ(p->meta("command").value(), "python train.py");
  EXPECT_EQ(p->meta().size(), 4u);
  auto v = p->BuildView(ViewKind::kTopDown);
  EXPECT_EQ(v.frames[2].name, "work()");
  EXPECT_DOUBLE_EQ(v.metrics[0][0].inclusive, 210);
  // A second rewrite, and no temporary file left behind.
  strata::core::RewriteProfileMeta(path, {{"exit", "killed by signal 9 (SIGKILL)"}});
  EXPECT_EQ(Profile::Open(path)->meta("exit").value(), "killed by signal 9 (SIGKILL)");
  EXPECT_EQ(strata::test::RunShell("ls " + dir).out, "p.strata\n");
  // A bad file is refused and left untouched.
  strata::test::WriteFile(path, {'n', 'o', 'p', 'e'});
  EXPECT_THROW(strata::core::RewriteProfileMeta(path, {{"a", "b"}}), strata::core::Error);
  EXPECT_EQ(strata::test::ReadText(path), "nope");
  std::system(("rm -rf " + dir).c_str());
}

TEST(Rewrite, KeepsUnknownSections) {
  std::string dir = strata::test::TempDir();
  std::string path = dir + "/p.strata";
  auto b = strata::test::SmallProfile();
  // Turn the modules section into an unknown kind (a future optional section).
  auto* h = reinterpret_cast<fmt::FileHeader*>(b.data());
  auto* t = reinterpret_cast<fmt::SectionEntry*>(b.data() + h->section_table_offset);
  std::vector<unsigned char> payload;
  for (uint32_t i = 0; i < h->section_count; ++i)
    if (t[i].kind == uint32_t(fmt::SectionKind::kNodeMetrics)) {
      t[i].kind = 4242;
      payload.assign(b.begin() + long(t[i].offset), b.begin() + long(t[i].offset + t[i].size));
    }
  h->checksum = fmt::Fnv1a(b.data() + 64, b.size() - 64);
  strata::test::WriteFile(path, b);
  strata::core::RewriteProfileMeta(path, {{"exit", "x"}});
  std::string out = strata::test::ReadText(path);
  EXPECT_NE(out.find(std::string(payload.begin(), payload.end())), std::string::npos);
  EXPECT_EQ(Profile::Open(path)->meta("exit").value(), "x");
  std::system(("rm -rf " + dir).c_str());
}
