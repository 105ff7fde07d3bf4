// `strata sass-deps` and `strata trace` as a user runs them: on the H100 fixtures of the late
// cp.async wait and its twin, a cuda-gdb log, and bad input (one line each, nothing written).
#include <gtest/gtest.h>

#include "test_util.h"

namespace {

using strata::test::RunShell;

const std::string kCli = STRATA_CLI;
const std::string kAsync = std::string(STRATA_H100_FIXTURES) + "/async_copy/";

TEST(SassDepsCli, FlagsTheLateWaitNotTheTwin) {
  auto r = RunShell(kCli + " sass-deps " + kAsync + "acp_run_pcs.strata");
  ASSERT_EQ(r.status, 0) << r.err;
  const size_t late = r.out.find("kernel  async_copy_late"), twin = r.out.find("kernel  async_copy_twin");
  ASSERT_NE(late, std::string::npos) << r.out;
  ASSERT_NE(twin, std::string::npos) << r.out;
  const std::string late_part = r.out.substr(late, twin - late), twin_part = r.out.substr(twin);
  EXPECT_NE(late_part.find("stalled"), std::string::npos) << late_part;
  EXPECT_NE(late_part.find("suggest The wait at async_copy_pipeline.cu:79"), std::string::npos) << late_part;
  EXPECT_NE(twin_part.find("slack"), std::string::npos) << twin_part;
  EXPECT_EQ(twin_part.find("suggest"), std::string::npos) << twin_part;
  auto j = RunShell(kCli + " sass-deps " + kAsync + "acp_run_pcs.strata --kernel async_copy_late --format json --graph");
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_NE(j.out.find("\"strata-async-copies\""), std::string::npos);
  EXPECT_NE(j.out.find("\"write_scoreboard\""), std::string::npos);
}

TEST(SassDepsCli, ChromeTimelineFromATrace) {
  auto r = RunShell(kCli + " sass-deps " + kAsync + "acp_run_pcs.strata --kernel async_copy_late --trace " + kAsync +
                    "late-small.trace.json --format chrome");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"traceEvents\""), std::string::npos);
  EXPECT_NE(r.out.find("wait cp.async group"), std::string::npos);
  auto bad = RunShell(kCli + " sass-deps " + kAsync + "acp_run_pcs.strata --format chrome");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--trace"), std::string::npos) << bad.err;
}

TEST(SassDepsCli, BadInput) {
  auto none = RunShell(kCli + " sass-deps");
  EXPECT_EQ(none.status, 2);
  auto nocode = RunShell(kCli + " sass-deps " + std::string(STRATA_H100_FIXTURES) + "/stalls/stalls_serialized.strata");
  EXPECT_EQ(nocode.status, 1);
  EXPECT_NE(nocode.err.find("no kernel with GPU code and an asynchronous-copy wait"), std::string::npos) << nocode.err;
  auto notrace = RunShell(kCli + " sass-deps " + kAsync + "acp_run_pcs.strata --trace " + kAsync + "acp_run_pcs.strata");
  EXPECT_EQ(notrace.status, 1);
  EXPECT_NE(notrace.err.find("not a SASS trace file"), std::string::npos) << notrace.err;
}

TEST(TraceCli, FromLogAndBadInput) {
  const std::string dir = strata::test::TempDir();
  const std::string log = dir + "/x.gdblog", out = dir + "/x.trace.json";
  RunShell("printf '%s\\n' '{\"kind\": \"meta\", \"kernel\": \"k\", \"block\": \"0,0,0\", \"thread\": \"0,0,0\", \"limit\": 5}' "
           "'{\"kind\": \"entry\", \"pc\": 4112, \"symbol\": \"k + 16 in section .text.k\"}' "
           "'{\"kind\": \"step\", \"i\": 0, \"pc\": 4112, \"text\": \"EXIT\"}' '{\"kind\": \"end\", \"reason\": \"exited\"}' > " + log);
  auto r = RunShell(kCli + " trace --from-log " + log + " -o " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("1 instructions of k"), std::string::npos) << r.out;
  auto t = RunShell("cat " + out);
  EXPECT_NE(t.out.find("\"offset\":16"), std::string::npos) << t.out;  // entry + 16: the second instruction
  auto noout = RunShell(kCli + " trace --from-log " + log);
  EXPECT_EQ(noout.status, 2);
  auto empty = RunShell("echo '{\"kind\": \"end\", \"reason\": \"cannot focus: no block\"}' > " + log + " && " + kCli +
                        " trace --from-log " + log + " -o " + dir + "/y.json; ls " + dir);
  EXPECT_EQ(empty.status, 0);  // `ls` ran: the trace's own status is in err
  EXPECT_NE(empty.err.find("cannot focus"), std::string::npos) << empty.err;
  EXPECT_EQ(empty.out.find("y.json"), std::string::npos) << "nothing half-written";
  auto nosnap = RunShell(kCli + " trace " + dir + "/none.snap");
  EXPECT_EQ(nosnap.status, 1);
  auto nofile = RunShell(kCli + " trace");
  EXPECT_EQ(nofile.status, 2);
  RunShell("rm -rf " + dir);
}

}  // namespace
