// Every way a program ends, run plain and under `strata record`: the program's output and exit
// status must not change, and a profile must remain (saying how the run ended) in every case
// but SIGKILL, where strata says why there is none.
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
const std::string kPyTarget = STRATA_TEST_SOURCE_DIR "/targets/ways_to_end.py";
const std::string kPython = "/usr/bin/python3";

using strata::rt::test::UserCode;

RecordedRun Compare(const std::vector<std::string>& argv, const RunOptions& opt, const std::string& name) {
  return strata::rt::test::CompareWithPlain(argv, opt, name);
}

void ExpectProfile(const RecordedRun& r, const std::string& ended, const std::string& name) {
  EXPECT_TRUE(r.has_profile) << name << ": no profile\n" << r.strata_lines;
  if (r.has_profile) EXPECT_EQ(r.meta.at("ended"), ended) << name;
}

TEST(EndOfRun, ExitCodePassesThrough) {
  RecordedRun r = Compare({kTarget, "exit", "5"}, {}, "exit");
  ExpectProfile(r, "exit", "exit");
  EXPECT_EQ(r.meta["exit_code"], "5");
}

TEST(EndOfRun, UnderscoreExitWritesProfile) {
  RecordedRun r = Compare({kTarget, "_exit", "3"}, {}, "cexit");
  ExpectProfile(r, "_exit", "_exit");
}

TEST(EndOfRun, UncaughtCppExceptionWritesProfile) {
  RecordedRun r = Compare({kTarget, "throw"}, {}, "throw");
  ExpectProfile(r, "signal SIGABRT", "throw");
}

TEST(EndOfRun, PythonOsExitWritesProfile) {
  RecordedRun r = Compare({kPython, kPyTarget, "os_exit", "3"}, {}, "pyosexit");
  ExpectProfile(r, "_exit", "os._exit");
  EXPECT_EQ(r.meta["exit_code"], "3");
  EXPECT_EQ(r.strata_lines.find("without having loaded"), std::string::npos) << r.strata_lines;
}

TEST(EndOfRun, PythonSysExitAndUncaughtException) {
  ExpectProfile(Compare({kPython, kPyTarget, "sys_exit", "4"}, {}, "pysysexit"), "exit", "sys.exit");
  ExpectProfile(Compare({kPython, kPyTarget, "raise"}, {}, "pyraise"), "exit", "raise");
}

TEST(EndOfRun, ExecKeepsAProfile) {
  RecordedRun r = Compare({"/bin/sh", "-c", "exec " + kTarget + " exit 0"}, {}, "exec");
  ExpectProfile(r, "exit", "exec");
  EXPECT_NE(r.meta["command"].find("ways_to_end"), std::string::npos);
}

// Signals sent `how` (to the group, as a kill -SIG -PGID; to the leader alone, which under
// strata is `strata record` and forwards it) once the program runs.
RunOptions SignalOnce(int sig, bool group) {
  RunOptions opt;
  opt.wait_ready = true;
  opt.after_ready = [sig, group](pid_t leader, int) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    kill(group ? -leader : leader, sig);
  };
  return opt;
}

void TerminatingSignals(bool group) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGPIPE}) {
    // strata record ignores SIGPIPE (its own closed stderr must not orphan the target), so
    // SIGPIPE reaches the target only from the kernel or a kill that includes it.
    if (sig == SIGPIPE && !group) continue;
    std::string name = std::string(sigabbrev_np(sig)) + (group ? "_group" : "_leader");
    SCOPED_TRACE(name);
    RecordedRun r = Compare({kTarget, "spin"}, SignalOnce(sig, group), name);
    ExpectProfile(r, std::string("signal SIG") + sigabbrev_np(sig), name);
  }
}

TEST(EndOfRun, TerminatingSignalsToTheGroup) { TerminatingSignals(true); }
TEST(EndOfRun, TerminatingSignalsToStrataRecordAlone) { TerminatingSignals(false); }

// The stress run's failure: SIGINT to the whole group (strata record and the program) about a
// second into a C program; repeated, since it was a race.
TEST(EndOfRun, SigintToGroupRepeatedly) {
  for (int i = 0; i < 12; ++i) {
    SCOPED_TRACE("try " + std::to_string(i));
    RunOptions opt = SignalOnce(SIGINT, true);
    opt.under_strata = true;
    RecordedRun r = RunProgram({kTarget, "spin"}, opt, "int_group");
    EXPECT_EQ(UserCode(r), 128 + SIGINT);
    ExpectProfile(r, "signal SIGINT", "try " + std::to_string(i));
  }
}

// Ctrl-C typed in a terminal: the kernel's SIGINT to the foreground group.
TEST(EndOfRun, CtrlCInTerminal) {
  for (int i = 0; i < 5; ++i) {
    RunOptions opt;
    opt.terminal = true;
    opt.wait_ready = true;
    opt.after_ready = [](pid_t, int master) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      ssize_t n = write(master, "\x03", 1);
      (void)n;
    };
    RecordedRun r = Compare({kTarget, "spin"}, opt, "ctrlc" + std::to_string(i));
    ExpectProfile(r, "signal SIGINT", "ctrl-c " + std::to_string(i));
  }
}

// A program's own SIGINT handler sees one SIGINT per kill to the group, as without strata
// (strata record forwards what it gets; the runtime drops the copy).
TEST(EndOfRun, OwnHandlerSeesGroupSignalOnce) {
  for (bool group : {true, false}) {
    RecordedRun r = Compare({kTarget, "own-int"}, SignalOnce(SIGINT, group), group ? "ownint_group" : "ownint_leader");
    EXPECT_EQ(r.output, "ready\nsigint 1\n");
    ExpectProfile(r, "exit", "own-int");
  }
}

// CPython raises KeyboardInterrupt inside a blocking read: the read must end with EINTR, so
// the runtime's handler must not add SA_RESTART to CPython's.
TEST(EndOfRun, PythonKeyboardInterruptInBlockingRead) {
  RecordedRun r = Compare({kPython, kPyTarget, "interrupt-read"}, SignalOnce(SIGINT, true), "pyread");
  EXPECT_EQ(r.output, "ready\nKeyboardInterrupt in read\n");
  ExpectProfile(r, "exit", "interrupt-read");
}

TEST(EndOfRun, HandlerWithoutRestartStillInterruptsRead) {
  RecordedRun r = Compare({kTarget, "read-eintr"}, {}, "eintr");
  EXPECT_EQ(r.output, "read -1 EINTR\n");
}

TEST(EndOfRun, PythonSigtermWritesProfile) {
  RecordedRun r = Compare({kPython, kPyTarget, "spin"}, SignalOnce(SIGTERM, true), "pyterm");
  ExpectProfile(r, "signal SIGTERM", "python SIGTERM");
}

// SIGKILL cannot be intercepted: no profile, and strata says so rather than blaming the
// runtime's loading.
TEST(EndOfRun, SigkillSaysWhy) {
  RunOptions opt = SignalOnce(SIGKILL, false);
  opt.under_strata = true;
  opt.after_ready = [](pid_t leader, int) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    // The program, not strata record: strata record's child.
    std::string cmd = "pkill -KILL -P " + std::to_string(leader);
    int rc = system(cmd.c_str());
    (void)rc;
  };
  RecordedRun r = RunProgram({kTarget, "spin"}, opt, "kill");
  EXPECT_EQ(UserCode(r), 128 + SIGKILL);
  EXPECT_FALSE(r.has_profile);
  EXPECT_NE(r.strata_lines.find("SIGKILL"), std::string::npos) << r.strata_lines;
  EXPECT_NE(r.strata_lines.find("no program can intercept"), std::string::npos) << r.strata_lines;
}

}  // namespace
