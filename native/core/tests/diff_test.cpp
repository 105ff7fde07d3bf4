// strata diff on two real H100 runs of one workload before and after an optimization (advanced
// indexing, then index_select: test/analyzers/workloads/index_backward.py): the change comes first
// and leads to the changed line; totals hold; bad pairs get one line.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>

#include <algorithm>
#include <cmath>
#include <string>

#include "strata/core/api.h"
#include "strata/core/profile_diff.h"
#include "test_util.h"

namespace strata::core {
namespace {

const std::string kBefore = STRATA_FIXTURES "/h100/analyzers/index_backward.strata";
const std::string kAfter = STRATA_FIXTURES "/h100/analyzers/index_backward_twin.strata";

// The innermost frame of the user's own code on a path.
const FrameInfo* UserLine(const DiffRow& row) {
  for (size_t k = row.path.size(); k-- > 0;)
    if (row.path[k].origin == FrameOrigin::kUser && !row.path[k].file.empty()) return &row.path[k];
  return nullptr;
}

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(ProfileDiff, AnOptimizationNamesTheChangedLineFirst) {
  auto a = Profile::Open(kBefore), b = Profile::Open(kAfter);
  const ProfileDiff diff = DiffProfiles(*a, *b, "gpu_time");
  ASSERT_GE(diff.rows.size(), 2u);
  EXPECT_GT(diff.common_paths, 0u);

  // The scatter backward of weight[idx] (line 24) is gone; index_select's backward (line 22) is new.
  const DiffRow& first = diff.rows[0];
  EXPECT_NE(first.path.back().name.find("indexing_backward_kernel"), std::string::npos) << first.path.back().name;
  EXPECT_GT(first.a, 0);
  EXPECT_EQ(first.b, 0);
  const FrameInfo* line = UserLine(first);
  ASSERT_NE(line, nullptr);
  EXPECT_TRUE(EndsWith(line->file, "index_backward.py")) << line->file;
  EXPECT_EQ(line->line, 24u);

  const DiffRow& second = diff.rows[1];
  EXPECT_EQ(second.a, 0);
  EXPECT_GT(second.b, 0);
  ASSERT_NE(UserLine(second), nullptr);
  EXPECT_EQ(UserLine(second)->line, 22u);

  // Every self value is in exactly one row.
  double sum_a = 0, sum_b = 0;
  for (const DiffRow& r : diff.rows) {
    sum_a += r.a;
    sum_b += r.b;
  }
  EXPECT_NEAR(sum_a, a->total(*FindMetric(*a, "gpu_time")), 1e-6 * sum_a);
  EXPECT_NEAR(sum_b, b->total(*FindMetric(*b, "gpu_time")), 1e-6 * sum_b);
  EXPECT_DOUBLE_EQ(diff.total_a, a->total(*FindMetric(*a, "gpu_time")));

  const std::string text = DiffText(diff, 1);
  EXPECT_NE(text.find("index_backward.py:24"), std::string::npos) << text;
  EXPECT_EQ(text.find("index_backward.py:22"), std::string::npos) << "limit 1 shows one row";
}

TEST(ProfileDiff, AProfileAgainstItselfChangesNothing) {
  auto a = Profile::Open(kBefore), b = Profile::Open(kBefore);
  const ProfileDiff diff = DiffProfiles(*a, *b);
  EXPECT_EQ(diff.metric.name, a->metrics()[0].name);
  EXPECT_EQ(diff.common_paths, diff.rows.size());
  for (const DiffRow& r : diff.rows) EXPECT_EQ(r.change(), 0);
}

// The kernels of the optimization: the scatter backward vanished, index_select's appeared.
TEST(ProfileDiff, KernelsThatAppearedOrVanished) {
  auto a = Profile::Open(kBefore), b = Profile::Open(kAfter);
  const ProfileDiff diff = DiffProfiles(*a, *b, "gpu_time");
  ASSERT_FALSE(diff.vanished.empty());
  EXPECT_NE(diff.vanished[0].name.find("indexing_backward_kernel"), std::string::npos) << diff.vanished[0].name;
  ASSERT_FALSE(diff.appeared.empty());
  for (const KernelChange& k : diff.appeared) EXPECT_EQ(k.name.find("indexing_backward_kernel"), std::string::npos);
  const std::string text = DiffText(diff, 3);
  EXPECT_NE(text.find("kernels only in A (vanished):"), std::string::npos) << text;
}

TEST(ProfileDiff, KernelBaseNameDropsTemplateArgumentsAndParameters) {
  EXPECT_EQ(KernelBaseName("void at::native::(anonymous namespace)::indexing_backward_kernel<float, 4>(long const*, float*)"),
            "void at::native::(anonymous namespace)::indexing_backward_kernel");
  EXPECT_EQ(KernelBaseName("ampere_sgemm_64x32_sliced1x4_nn"), "ampere_sgemm_64x32_sliced1x4_nn");
  EXPECT_EQ(KernelBaseName("void k<a<b>, c>(x<y>)"), "void k");
  EXPECT_EQ(KernelBaseName("bool operator<(A, B)"), "bool operator<");
}

// Fuzzy matching on small profiles: a Python line that moved (same function and file) and a
// kernel instantiated for another type match their counterparts; a renamed function does not.
TEST(ProfileDiff, MovedLinesAndOtherInstantiationsMatchFuzzily) {
  auto make = [](uint32_t line, const std::string& kernel, const std::string& helper) {
    format::ProfileWriter w;
    const uint32_t gpu = w.Metric("gpu_time", "ns");
    const uint32_t main_n = w.Child(0, w.Frame(format::FrameKind::kPython, format::kNone, 0, "<module>", "/src/train.py", 1));
    const uint32_t step = w.Child(main_n, w.Frame(format::FrameKind::kPython, format::kNone, 0, "step", "/src/train.py", line));
    const uint32_t k = w.Child(step, w.Frame(format::FrameKind::kKernel, format::kNone, 0, kernel, "", 0));
    w.AddStats(k, gpu, test::StatsOf({100}));
    const uint32_t h = w.Child(main_n, w.Frame(format::FrameKind::kPython, format::kNone, 0, helper, "/src/train.py", 30));
    w.AddStats(h, gpu, test::StatsOf({10}));
    return Profile::FromBytes(w.Serialize());
  };
  auto a = make(12, "void gemm<float>(float*)", "load");
  auto b = make(14, "void gemm<half>(half*)", "load_batch");
  const DiffView dv = DiffProfilesView(*a, *b, "gpu_time");
  const ProfileDiff& diff = dv.diff;
  EXPECT_EQ(diff.common_paths, 1u);
  EXPECT_EQ(diff.fuzzy_paths, 1u);
  ASSERT_EQ(diff.rows.size(), 3u);  // the kernel (fuzzy), load (only A), load_batch (only B)
  bool kernel_row = false;
  for (const DiffRow& r : diff.rows) {
    if (r.path.back().name == "void gemm<half>(half*)") {
      kernel_row = true;
      EXPECT_EQ(r.match, DiffMatch::kFuzzy);
      EXPECT_EQ(r.a, 100);
      EXPECT_EQ(r.b, 100);
      EXPECT_EQ(r.path[1].line, 14u);  // B's frames
    }
    if (r.path.back().name == "load") EXPECT_EQ(r.match, DiffMatch::kOnlyA);
    if (r.path.back().name == "load_batch") EXPECT_EQ(r.match, DiffMatch::kOnlyB);
  }
  EXPECT_TRUE(kernel_row);
  EXPECT_TRUE(diff.appeared.empty());  // one kernel, two instantiations
  EXPECT_TRUE(diff.vanished.empty());
  // The view of B: each node's A value and how it matched.
  for (size_t i = 1; i < dv.view.size(); ++i) {
    const std::string& name = dv.view.frame(i).name;
    if (name == "step") EXPECT_EQ(dv.match[i], DiffMatch::kFuzzy);
    if (name == "step") EXPECT_EQ(dv.a_inclusive[i], 100);
    if (name == "<module>") EXPECT_EQ(dv.match[i], DiffMatch::kExact);
    if (name == "<module>") EXPECT_EQ(dv.a_inclusive[i], 110);
    if (name == "load_batch") EXPECT_EQ(dv.match[i], DiffMatch::kOnlyB);
  }
}

TEST(ProfileDiff, BadPairsAreOneLine) {
  auto a = Profile::Open(kBefore);
  auto other = Profile::Open(STRATA_FIXTURES "/h100/py312_split.strata");
  try {
    DiffProfiles(*a, *other);
    FAIL() << "compared two different programs";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no call path"), std::string::npos) << e.what();
  }
  // The other way round they share one stray path: still unrelated.
  try {
    DiffProfiles(*other, *Profile::Open(kAfter));
    FAIL() << "compared two different programs";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("no call path with cpu_time is common to both profiles", 0), 0u) << e.what();
  }
  EXPECT_THROW(DiffProfiles(*a, *a, "grid_size"), Error);    // an attribute
  EXPECT_THROW(DiffProfiles(*a, *other, "gpu_time"), Error);  // missing from one
}

TEST(ProfileDiff, CliPrintsTheTableOrOneLine) {
  auto run = [](const std::string& args) { return test::RunShell(std::string(STRATA_CLI) + " diff " + args); };
  test::RunResult r = run(kBefore + " " + kAfter + " --metric gpu_time --limit 2");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("diff of gpu_time (ns): A ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("index_backward.py:24"), std::string::npos) << r.out;
  r = run(kBefore + " " STRATA_FIXTURES "/h100/py312_split.strata");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.rfind("strata diff: no call path", 0), 0u) << r.err;
  EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
}

}  // namespace
}  // namespace strata::core
