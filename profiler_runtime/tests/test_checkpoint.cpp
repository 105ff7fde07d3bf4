// Long runs: a periodic checkpoint (meta `ended` "checkpoint") stays when the program is killed
// by SIGKILL (a scheduler, the OOM killer); a final write that fails (here the file size limit,
// as on a full disk) keeps the last checkpoint intact and says so. Output and exit status as
// without Strata.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "recorded_run.h"

namespace {

using strata::rt::test::RecordedRun;
using strata::rt::test::RunOptions;
using strata::rt::test::RunProgram;

const std::string kTarget = STRATA_WAYS_TO_END;
const std::string kFamily = STRATA_TEST_SOURCE_DIR "/targets/family.py";

using strata::rt::test::UserCode;

TEST(Checkpoint, SigkillLeavesTheLastCheckpoint) {
  RunOptions opt;
  opt.wait_ready = true;
  opt.record_args = {"--checkpoint", "1"};
  opt.after_ready = [](pid_t leader, int) {
    // Kill once the first checkpoint is on disk (a loaded machine may delay it), one period later.
    std::string path = strata::rt::test::TempProfilePath("ckpt_kill");
    for (int i = 0; i < 300 && access(path.c_str(), F_OK) != 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    std::string cmd = "pkill -KILL -P " + std::to_string(leader);  // the program, not strata
    int rc = system(cmd.c_str());
    (void)rc;
  };
  opt.under_strata = true;
  RecordedRun r = RunProgram({kTarget, "spin"}, opt, "ckpt_kill");
  EXPECT_EQ(UserCode(r), 128 + SIGKILL);
  ASSERT_TRUE(r.has_profile) << r.strata_lines;
  EXPECT_EQ(r.meta.at("ended"), "checkpoint");
  EXPECT_GE(std::stoul(r.meta.at("checkpoints")), 1u);
  EXPECT_EQ(r.meta.at("checkpoint_period_ns"), "1000000000");
  EXPECT_GT(std::stoul(r.meta.at("samples")), 0u);
  EXPECT_NE(r.strata_lines.find("the profile is the last checkpoint"), std::string::npos) << r.strata_lines;
}

TEST(Checkpoint, NormalEndReplacesTheCheckpoint) {
  RunOptions opt;
  opt.under_strata = true;
  opt.record_args = {"--checkpoint", "1"};
  RecordedRun r = RunProgram({"/usr/bin/python3", kFamily, "work", "2.5"}, opt, "ckpt_end");
  ASSERT_TRUE(r.has_profile) << r.strata_lines;
  EXPECT_EQ(r.meta.at("ended"), "exit");
  EXPECT_GE(std::stoul(r.meta.at("checkpoints")), 1u);
  EXPECT_EQ(r.strata_lines.find("checkpoint"), std::string::npos) << r.strata_lines;
}

TEST(Checkpoint, FailedFinalWriteKeepsTheCheckpoint) {
  RunOptions opt;
  opt.record_args = {"--checkpoint", "1"};
  opt.under_strata = false;
  RecordedRun plain = RunProgram({"/usr/bin/python3", kFamily, "fill_after_checkpoint"}, opt, "ckpt_full_plain");
  opt.under_strata = true;
  RecordedRun r = RunProgram({"/usr/bin/python3", kFamily, "fill_after_checkpoint"}, opt, "ckpt_full");
  EXPECT_EQ(plain.output, r.output);
  EXPECT_EQ(UserCode(plain), UserCode(r));
  ASSERT_TRUE(r.has_profile) << r.strata_lines;
  EXPECT_EQ(r.meta.at("ended"), "checkpoint");  // the previous file, intact (it parsed)
  EXPECT_NE(r.strata_lines.find("the final profile was not written"), std::string::npos) << r.strata_lines;
  EXPECT_NE(r.strata_lines.find("File too large"), std::string::npos) << r.strata_lines;
  EXPECT_NE(r.strata_lines.find("is kept"), std::string::npos) << r.strata_lines;
}

TEST(Checkpoint, OffWithZero) {
  RunOptions opt;
  opt.under_strata = true;
  opt.record_args = {"--checkpoint", "0"};
  RecordedRun r = RunProgram({"/usr/bin/python3", kFamily, "work", "1.5"}, opt, "ckpt_off");
  ASSERT_TRUE(r.has_profile) << r.strata_lines;
  EXPECT_EQ(r.meta.at("checkpoints"), "0");
  EXPECT_EQ(r.meta.at("checkpoint_period_ns"), "0");
}

}  // namespace
