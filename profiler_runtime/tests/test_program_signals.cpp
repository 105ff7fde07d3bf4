// Programs that use the signals and timers a sampling profiler typically takes (SIGPROF +
// ITIMER_PROF, SIGALRM + ITIMER_REAL, a real-time signal + timer_create): their handlers run
// as often under `strata record` as without it, and the profile says which signal sampling used.
#include <gtest/gtest.h>

#include <string>

#include "recorded_run.h"

namespace {

using strata::rt::test::RecordedRun;
using strata::rt::test::RunOptions;
using strata::rt::test::RunProgram;

RecordedRun Compare(const std::string& mode, const std::vector<std::string>& record_args = {}) {
  RunOptions opt;
  RecordedRun plain = RunProgram({STRATA_WAYS_TO_END, mode}, opt, mode + "_plain");
  opt.under_strata = true;
  opt.record_args = record_args;
  RecordedRun recorded = RunProgram({STRATA_WAYS_TO_END, mode}, opt, mode);
  EXPECT_EQ(plain.output, "handler runs: 50 or more\n") << mode;
  EXPECT_EQ(recorded.output, plain.output) << mode << "\n" << recorded.strata_lines;
  EXPECT_TRUE(recorded.has_profile) << recorded.strata_lines;
  return recorded;
}

TEST(ProgramSignals, OwnSigprofAndItimerProfKeepTheirHandlerRuns) {
  RecordedRun r = Compare("own-sigprof");
  EXPECT_NE(r.meta["sampler"].find("thread CPU timers"), std::string::npos) << r.meta["sampler"];
  EXPECT_EQ(r.meta["sampler"].find("SIGPROF"), std::string::npos) << r.meta["sampler"];
  EXPECT_GT(std::stoul(r.meta["samples"]), 10u);
}

TEST(ProgramSignals, OwnSigalrmKeepsItsHandlerRuns) {
  RecordedRun r = Compare("own-sigalrm");
  EXPECT_GT(std::stoul(r.meta["samples"]), 10u);
}

TEST(ProgramSignals, WallModeLeavesSigprofAlone) {
  RecordedRun r = Compare("own-sigprof", {"--wall"});
  EXPECT_NE(r.meta["sampler"].find("thread wall-clock timers"), std::string::npos) << r.meta["sampler"];
  EXPECT_EQ(r.meta["sampler"].find("SIGPROF"), std::string::npos) << r.meta["sampler"];
}

// The program takes the very real-time signal sampling picked (SIGRTMAX): sampling moves to
// another one and says so; the program's handler runs as without strata.
TEST(ProgramSignals, ProgramTakingTheSamplingSignalGetsIt) {
  RecordedRun r = Compare("own-rt-timer");
  EXPECT_NE(r.meta["sampler"].find("moved to SIGRTMAX-1 when the program set a handler for SIGRTMAX"),
            std::string::npos) << r.meta["sampler"];
  EXPECT_GT(std::stoul(r.meta["samples"]), 10u);
}

}  // namespace
