// Stacks deeper than the runtime's limit are marked where they were cut: a flagged synthetic
// frame (format kFrameFlagTruncation) stands at their root end, so no view shows a cut stack
// as if its outermost kept frame were a root; `strata report` names the cut.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include "recorded_run.h"

namespace {

using strata::format::FrameKind;
using strata::rt::test::Profile;

Profile Record(const std::vector<std::string>& argv, const std::string& path) {
  std::string cmd = std::string(STRATA_CLI) + " record -o " + path + " --period-ms 2 --";
  for (const auto& a : argv) cmd += " " + a;
  cmd = "STRATA_RUNTIME_LIB=" STRATA_RUNTIME_SO " " + cmd + " 2>&1";
  EXPECT_EQ(system(cmd.c_str()), 0) << cmd;
  Profile p;
  std::string err;
  EXPECT_TRUE(strata::rt::test::ReadProfile(path, &p, &err)) << err;
  return p;
}

std::string Report(const std::string& path) {
  std::string cmd = std::string(STRATA_CLI) + " report " + path + " --limit 40 2>&1";
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  char buf[4096];
  size_t n;
  while (pipe && (n = fread(buf, 1, sizeof buf, pipe.get())) > 0) out.append(buf, n);
  return out;
}

// Nodes whose frame is the truncation marker, and nodes that hang at the root under a frame
// named `deep` (a cut stack shown as complete).
struct Cuts {
  int marker_nodes = 0, marker_at_root = 0, deep_at_root = 0;
  double marked_value = 0, total_value = 0;
};

Cuts Inspect(const Profile& p, const std::string& deep) {
  Cuts c;
  for (size_t i = 1; i < p.nodes.size(); ++i) {
    const auto& f = p.frames[p.nodes[i].frame];
    bool root_child = p.nodes[i].parent == 0;
    if (f.flags & strata::format::kFrameFlagTruncation) {
      ++c.marker_nodes;
      c.marker_at_root += root_child;
      EXPECT_EQ(FrameKind(f.kind), FrameKind::kNative);
      EXPECT_EQ(p.Str(f.name), "<stack truncated: depth limit>");
    } else if (root_child && p.Str(f.name) == deep) {
      ++c.deep_at_root;
    }
  }
  for (const auto& nm : p.node_metrics) {
    c.total_value += nm.sum;
    for (const auto* f : p.PathOf(nm.node))
      if (f->flags & strata::format::kFrameFlagTruncation) { c.marked_value += nm.sum; break; }
  }
  return c;
}

TEST(TruncatedStacks, DeepNativeRecursionIsMarkedAtTheRoot) {
  std::string out = strata::rt::test::TempProfilePath("deep_c");
  Profile p = Record({STRATA_DEEP_STACK, "4000"}, out);  // deeper than the runtime's limit (1024)
  Cuts c = Inspect(p, "recurse");
  EXPECT_GE(c.marker_at_root, 1);
  EXPECT_EQ(c.deep_at_root, 0) << "a cut stack hangs at the root as if complete";
  EXPECT_GT(c.marked_value, 0.8 * c.total_value) << "nearly all time is at the bottom of the recursion";
  std::string report = Report(out);
  EXPECT_NE(report.find("<stack truncated: depth limit>"), std::string::npos) << report;
  std::remove(out.c_str());
}

TEST(TruncatedStacks, ShallowProgramHasNoMarker) {
  std::string out = strata::rt::test::TempProfilePath("shallow_c");
  Profile p = Record({STRATA_DEEP_STACK, "5"}, out);
  EXPECT_EQ(Inspect(p, "recurse").marker_nodes, 0);
  std::remove(out.c_str());
}

// Python frames whose eval frames were cut off go rootward of the marker; the path's own root
// end is cut too when they do not all fit, so no `recurse` frame is a root.
TEST(TruncatedStacks, DeepPythonRecursionIsMarked) {
  std::string out = strata::rt::test::TempProfilePath("deep_py");
  Profile p = Record({"/usr/bin/python3", STRATA_TEST_SOURCE_DIR "/targets/deep_stack.py"}, out);
  Cuts c = Inspect(p, "recurse");
  EXPECT_GE(c.marker_nodes, 1);
  EXPECT_EQ(c.deep_at_root, 0) << "a cut stack hangs at the root as if complete";
  EXPECT_GT(c.marked_value, 0.8 * c.total_value);
  std::remove(out.c_str());
}

}  // namespace
