// The stress cases that were tried by hand against Strata, as a suite: each program runs plain
// and under `strata record` (in a process group of its own); its output and exit status must
// agree, the first process's profile must be there, and the processes it started must have
// theirs. Handler behaviour under signals is covered by EndOfRun.* and ProgramSignals.*.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <string>
#include <vector>

#include "recorded_run.h"

namespace {

using strata::rt::test::RecordedRun;
using strata::rt::test::RunOptions;
using strata::rt::test::RunProgram;

const std::string kStress = STRATA_STRESS;
const std::string kFamily = STRATA_TEST_SOURCE_DIR "/targets/family.py";
const std::string kPython = "/usr/bin/python3";

using strata::rt::test::UserCode;

struct Case {
  std::string name;
  std::vector<std::string> argv;
  std::vector<std::string> record_args;
  size_t min_children = 0;  // profiles of started processes expected at least
  std::string ended = "exit";
};

void RunCase(const Case& c) {
  RunOptions opt;
  opt.record_args = c.record_args;
  RecordedRun plain = RunProgram(c.argv, opt, c.name + "_plain");
  opt.under_strata = true;
  RecordedRun rec = RunProgram(c.argv, opt, c.name);
  EXPECT_EQ(plain.output, rec.output) << c.name;
  EXPECT_EQ(UserCode(plain), UserCode(rec)) << c.name << "\n" << rec.strata_lines;
  ASSERT_TRUE(rec.has_profile) << c.name << "\n" << rec.strata_lines;
  EXPECT_EQ(rec.meta.at("ended"), c.ended) << c.name;
  EXPECT_GE(rec.children.size(), c.min_children) << c.name << "\n" << rec.strata_lines;
  for (const auto& child : rec.children) EXPECT_EQ(child.count("unreadable"), 0u) << c.name;
}

TEST(Stress, SixtyFourThreadsAtOneMs) { RunCase({"threads64", {kStress, "threads", "64", "40"}, {"--period-ms", "1"}}); }
TEST(Stress, ThirtyTwoPythonThreads) { RunCase({"pythreads", {kPython, kFamily, "threads", "32"}, {"--period-ms", "1"}}); }
TEST(Stress, TwentyForksWithoutExec) { RunCase({"fork20", {kStress, "fork", "20"}, {}, 20}); }
// The children of these three exec programs that finish before their first sample (true, sh -c,
// cat): a child that leaves no sample and no GPU work writes no profile.
TEST(Stress, ForkThenExec) { RunCase({"forkexec", {kStress, "fork_exec"}, {}, 0}); }
TEST(Stress, SystemCall) { RunCase({"system", {kStress, "system"}, {}, 0}); }
TEST(Stress, MultiprocessingPoolOfEight) { RunCase({"pool8", {kPython, kFamily, "pool", "fork", "8"}, {}, 8}); }
TEST(Stress, DlopenDlcloseLoop) { RunCase({"dlopen", {kStress, "dlopen", "2000"}}); }
// Sampled at 1 ms while 300 modules with TLS are loaded and two threads allocate all the time: the
// handler's unwinding must not make the dynamic TLS access that grows a thread's TLS vector with
// malloc (a thread interrupted inside malloc deadlocked on the allocator's lock).
TEST(Stress, TlsModulesLoadedWhileThreadsAllocate) {
  RunCase({"tls_dlopen", {kStress, "tls_dlopen", STRATA_TLS_MODULE, "300"}, {"--period-ms", "1"}});
}
TEST(Stress, EverySignalBlocked) { RunCase({"blocked", {kStress, "blocked"}}); }
TEST(Stress, StdinPipeThroughCat) { RunCase({"stdin", {kPython, kFamily, "stdin_pipe"}, {}, 0}); }
TEST(Stress, ArgvWithQuotesAndNewlines) {
  RunCase({"argv", {kPython, kFamily, "argv", "it's \"quoted\"", "new\nline", "$HOME `x` ;|&", "", "é ü 中"}});
}
TEST(Stress, TenThousandDeepRecursion) { RunCase({"recurse", {kStress, "recurse", "10000"}}); }
TEST(Stress, Segfault) { RunCase({"segv", {kStress, "segv"}, {}, 0, "signal SIGSEGV"}); }

}  // namespace
