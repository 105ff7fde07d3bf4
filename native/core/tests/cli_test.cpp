// The `strata` command on bad input (one line on stderr, exit status, nothing written) and the
// record flow against a fake runtime library.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "strata/core/api.h"
#include "test_util.h"

using strata::test::CountLines;
using strata::test::Quote;
using strata::test::RunShell;

namespace {

const std::string kStrata = STRATA_CLI;

std::string Ls(const std::string& dir) { return RunShell("ls -A " + Quote(dir)).out; }

class Cli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = strata::test::TempDir(); }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string dir_;
};

}  // namespace

TEST_F(Cli, UnknownFlag) {
  auto r = RunShell(kStrata + " report x.strata --bogus");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(CountLines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("strata: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("--bogus"), std::string::npos) << r.err;
}

TEST_F(Cli, MissingArguments) {
  for (const char* args : {"", " report", " record", " record -o x.strata", " frobnicate",
                           " report f --view sideways", " report f --limit -3", " record --period-ms 0 -- true",
                           " record --bogus -- true", " record -o x.strata --", " report f -- x",
                           " record --pc-sampling=always -- true", " record --pc-sampling-period=3 -- true"}) {
    auto r = RunShell("cd " + Quote(dir_) + " && " + kStrata + args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(CountLines(r.err), 1u) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("strata: ", 0), 0u) << r.err;
    EXPECT_EQ(r.out, "");
  }
  EXPECT_EQ(Ls(dir_), "");
}

TEST_F(Cli, Help) {
  auto r = RunShell(kStrata + " --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("record"), std::string::npos);
}

TEST_F(Cli, MissingProgram) {
  std::string out = dir_ + "/out.strata";
  auto r = RunShell(kStrata + " record -o " + Quote(out) + " -- /nonexistent/prog --flag");
  EXPECT_EQ(r.status, 127);
  EXPECT_EQ(r.err, "strata: cannot run '/nonexistent/prog': No such file or directory\n");
  EXPECT_EQ(Ls(dir_), "");
  r = RunShell("cd " + Quote(dir_) + " && " + kStrata + " record -- strata-no-such-program-xyz");
  EXPECT_EQ(r.status, 127);
  EXPECT_EQ(r.err, "strata: cannot run 'strata-no-such-program-xyz': No such file or directory\n");
  EXPECT_EQ(Ls(dir_), "");
}

TEST_F(Cli, UnwritableOutput) {
  auto r = RunShell(kStrata + " record -o /nonexistent-dir/p.strata -- true");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "strata: cannot write profile to /nonexistent-dir/p.strata: No such file or directory\n");
  // Permission denied: /sys refuses new files even to root; a read-only directory otherwise.
  std::string target = "/sys/p.strata";
  if (::geteuid() != 0) {
    std::system(("mkdir " + dir_ + "/ro && chmod 555 " + dir_ + "/ro").c_str());
    target = dir_ + "/ro/p.strata";
  }
  r = RunShell(kStrata + " record -o " + target + " -- true");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "strata: cannot write profile to " + target + ": Permission denied\n");
  r = RunShell(kStrata + " record -o " + Quote(dir_) + " -- true");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "strata: cannot write profile to " + dir_ + ": Is a directory\n");
}

TEST_F(Cli, NotAProfile) {
  std::string path = dir_ + "/notes.txt";
  strata::test::WriteFile(path, {'h', 'e', 'l', 'l', 'o', '\n'});
  auto r = RunShell(kStrata + " report " + Quote(path));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "strata: " + path + ": not a Strata profile: bad magic\n");
  EXPECT_EQ(r.out, "");
  r = RunShell(kStrata + " report " + Quote(dir_ + "/missing.strata"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "strata: " + dir_ + "/missing.strata: cannot open: No such file or directory\n");
  auto bytes = strata::test::SmallProfile();
  bytes.resize(1000 < bytes.size() ? 1000 : bytes.size() - 1);
  strata::test::WriteFile(path, bytes);
  r = RunShell(kStrata + " report " + Quote(path));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(CountLines(r.err), 1u);
  EXPECT_NE(r.err.find("truncated profile: header says"), std::string::npos) << r.err;
}

TEST_F(Cli, ReportFormats) {
  std::string path = dir_ + "/p.strata";
  strata::test::WriteFile(path, strata::test::SmallProfile());
  for (const char* view : {"top-down", "bottom-up", "flat"}) {
    auto r = RunShell(kStrata + " report " + Quote(path) + " --format json --view " + view);
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["view"], view);
    auto t = RunShell(kStrata + " report " + Quote(path) + " --view " + view + " --limit 2");
    ASSERT_EQ(t.status, 0) << t.err;
    EXPECT_NE(t.out.find("command: python train.py"), std::string::npos);
  }
  auto r = RunShell(kStrata + " report " + Quote(path) + " --format json --limit 1 --metric cpu_time");
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(nlohmann::json::parse(r.out)["nodes"].size(), 1u);
  r = RunShell(kStrata + " report " + Quote(path) + " --metric nope");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "strata: " + path + ": no metric named 'nope' (the profile has: cpu_time)\n");
}

TEST_F(Cli, RecordWithRuntime) {
  std::string out = dir_ + "/run.strata";
  auto r = RunShell("LD_PRELOAD= STRATA_RUNTIME_LIB=" STRATA_FAKE_RUNTIME " " + kStrata + " record -o " + Quote(out) +
                    " --period-ms 7 --wall -- /bin/bash -c 'exit 3'");
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("strata: profile written to " + out + " (3 samples)\n"), std::string::npos) << r.err;
  auto p = strata::core::Profile::Open(out);
  EXPECT_EQ(p->meta("exit").value(), "exited with code 3");
  EXPECT_EQ(p->meta("exit_code").value(), "3");
  EXPECT_EQ(p->meta("mode").value(), "wall");
  EXPECT_EQ(p->meta("period_ms").value(), "7");
  EXPECT_EQ(p->meta("target_pid").value(), p->meta("pid").value());
  EXPECT_EQ(p->meta("ld_preload").value(), STRATA_FAKE_RUNTIME);
  EXPECT_EQ(Ls(dir_), "run.strata\n");
  // An existing LD_PRELOAD is kept, after the runtime.
  r = RunShell("LD_PRELOAD=/nonexistent-preload.so STRATA_RUNTIME_LIB=" STRATA_FAKE_RUNTIME " " + kStrata +
               " record -o " + Quote(out) + " -- /bin/true 2>/dev/null; echo");
  EXPECT_EQ(strata::core::Profile::Open(out)->meta("ld_preload").value(),
            std::string(STRATA_FAKE_RUNTIME) + ":/nonexistent-preload.so");
  EXPECT_EQ(strata::core::Profile::Open(out)->meta("mode").value(), "cpu");
}

TEST_F(Cli, RecordPassesPcSamplingToTheRuntime) {
  std::string out = dir_ + "/pcs.strata";
  auto r = RunShell("LD_PRELOAD= STRATA_PC_SAMPLING=stale STRATA_RUNTIME_LIB=" STRATA_FAKE_RUNTIME " " + kStrata +
                    " record -o " + Quote(out) + " --pc-sampling=serialized --pc-sampling-period=12 -- /bin/true");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(strata::core::Profile::Open(out)->meta("pc_sampling_env").value(), "serialized/12");
  r = RunShell("LD_PRELOAD= STRATA_RUNTIME_LIB=" STRATA_FAKE_RUNTIME " " + kStrata + " record -o " + Quote(out) +
               " --pc-sampling -- /bin/true");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(strata::core::Profile::Open(out)->meta("pc_sampling_env").value(), "continuous/<unset>");
}

TEST_F(Cli, RecordWithoutRuntime) {
  std::string out = dir_ + "/none.strata";
  auto r = RunShell("STRATA_RUNTIME_LIB=/nonexistent/libstrata_runtime.so " + kStrata + " record -o " +
                    Quote(out) + " -- /bin/true");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("strata: no profile was written to " + out +
                       ": the runtime library /nonexistent/libstrata_runtime.so does not exist\n"),
            std::string::npos) << r.err;
  EXPECT_EQ(Ls(dir_), "");
}

TEST_F(Cli, SignalsAreForwarded) {
  std::string out = dir_ + "/sig.strata";
  // strata gets SIGTERM (not from a terminal): the target must get it too and strata exits 143.
  auto r = RunShell("STRATA_RUNTIME_LIB=" STRATA_FAKE_RUNTIME " " + kStrata + " record -o " + Quote(out) +
                    " -- /bin/sleep 30 & pid=$!; sleep 0.5; kill -TERM $pid; wait $pid");
  EXPECT_EQ(r.status, 143) << r.err;
  EXPECT_NE(r.err.find("killed by signal 15 (SIGTERM)"), std::string::npos) << r.err;
}

// strata regions on a buffer recorded on the H100: the summary, a Chrome trace, and bad input.
TEST(CliRegions, DecodesAnH100Buffer) {
  using strata::test::Quote;
  using strata::test::RunShell;
  const std::string cli = Quote(STRATA_CLI), dir = STRATA_REGIONS_FIXTURES;
  auto text = RunShell(cli + " regions " + Quote(dir + "/gemm_nested_loop.bin") + " --names-file " +
                       Quote(dir + "/gemm_nested_loop.json") + " --calibration " + Quote(dir + "/calibration.bin") +
                       " --cycles-per-ns 1.98");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("128 lanes"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("k-loop (2)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("(replayed)"), std::string::npos) << text.out;
  // A loop and its iterations are separate rows (32 iterations in each of the 128 lanes).
  EXPECT_NE(text.out.find("k-loop (iteration) (2)                      4096"), std::string::npos) << text.out;
  // The warp-specialized GEMM: what each warp group spends its time on (the producer waits for
  // empty slots more than half the time, the consumer computes: the kernel is MMA-bound). The
  // waits are named barriers: before markers synced the warp ahead of the clock read, ptxas's
  // deferred BAR.SYNC let the clock run early and these waits read 1.6% and 1.1%.
  auto ws = RunShell(cli + " regions " + Quote(dir + "/warpspec.bin") + " --names-file " + Quote(dir + "/warpspec.json") +
                     " --calibration " + Quote(dir + "/calibration.bin"));
  ASSERT_EQ(ws.status, 0) << ws.err;
  EXPECT_NE(ws.out.find("warp group 0 (64 lanes): producer loop (10) 100.0%, wait empty (11) 59.5%, load tile (12) 31.7%"),
            std::string::npos) << ws.out;
  EXPECT_NE(ws.out.find("warp group 1 (64 lanes): consumer loop (13) 100.0%, mma (15) 88.8%, wait full (14) 5.2%"),
            std::string::npos) << ws.out;
  // Proton's repeated scopes (no enclosing interval of their id) count in the per-warp shares.
  auto proton = RunShell(cli + " regions --proton " + Quote(std::string(STRATA_REGIONS_FIXTURES) + "/../proton/attention.chrome_trace.gz") +
                         " --cycles-per-ns 1.98");
  ASSERT_EQ(proton.status, 0) << proton.err;
  EXPECT_NE(proton.out.find("warp 0 (16 lanes): kernel (1) 100.0%, softmax (5) 35.7%"), std::string::npos) << proton.out;
  std::string out = std::string(::testing::TempDir()) + "/regions.trace.json";
  auto chrome = RunShell(cli + " regions " + Quote(dir + "/gemm_nested_loop.bin") + " --format chrome -o " + Quote(out));
  ASSERT_EQ(chrome.status, 0) << chrome.err;
  auto doc = nlohmann::json::parse(strata::test::ReadText(out));
  EXPECT_TRUE(doc.contains("traceEvents")) << doc.dump().substr(0, 200);
  // A kernel launched without the buffer: the decoder says what is missing, one line, non-zero.
  auto empty = RunShell(cli + " regions " + Quote(dir + "/gemm_no_buffer.bin"));
  EXPECT_EQ(empty.status, 1);
  EXPECT_EQ(strata::test::CountLines(empty.err), 1u) << empty.err;
  EXPECT_NE(empty.err.find("empty"), std::string::npos) << empty.err;
  auto bad = RunShell(cli + " regions " + Quote(dir + "/README.md"));
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("not a region buffer"), std::string::npos) << bad.err;
}

TEST(CliRegions, RecordCostGivenOutright) {
  const std::string cli = Quote(STRATA_CLI), dir = std::string(STRATA_REGIONS_FIXTURES) + "/gemm_bench";
  auto json = RunShell(cli + " regions " + Quote(dir + "/acc_pipelined_s2_l1.bin") +
                       " --format json --cycles-per-ns 1.98 --record-cost 24.5");
  ASSERT_EQ(json.status, 0) << json.err;
  auto doc = nlohmann::json::parse(json.out);
  EXPECT_DOUBLE_EQ(doc["record_cost_cycles"].get<double>(), 24.5);
  // The k-loop interval (region 1) loses 513 records' worth: 4 per k-step x 128, plus its start.
  bool found = false;
  for (const auto& iv : doc["intervals"]) {
    if (iv["region"] != 1 || iv["lane"] != 0) continue;
    const double removed = ((iv["raw_end_ns"].get<double>() - iv["raw_start_ns"].get<double>()) -
                            (iv["end_ns"].get<double>() - iv["start_ns"].get<double>())) * 1.98;
    EXPECT_NEAR(removed, 24.5 * 513, 0.5);
    found = true;
  }
  EXPECT_TRUE(found);
  auto both = RunShell(cli + " regions " + Quote(dir + "/acc_pipelined_s2_l1.bin") + " --record-cost 20 --calibration " +
                       Quote(dir + "/calibration.bin"));
  EXPECT_EQ(both.status, 2) << both.err;  // one or the other
  EXPECT_EQ(strata::test::CountLines(both.err), 1u) << both.err;
  // A bad number says what is wanted, briefly.
  auto negative = RunShell(cli + " regions " + Quote(dir + "/acc_pipelined_s2_l1.bin") + " --record-cost -5");
  EXPECT_EQ(negative.status, 2);
  EXPECT_NE(negative.err.find("--record-cost: must be a positive number, not -5"), std::string::npos) << negative.err;
  EXPECT_LT(negative.err.size(), 120u) << negative.err;
}

// The per-kernel record cost: a step cost on top of the per-record one, and fits on the kernel's
// own pair (kernel times; a reference trace), for a buffer and a Proton trace.
TEST(CliRegions, RecordCostPerStepAndFitted) {
  const std::string cli = Quote(STRATA_CLI), dir = std::string(STRATA_REGIONS_FIXTURES) + "/gemm_bench";
  const std::string buf = Quote(dir + "/acc_pipelined_s2_l1.bin");
  const std::string names = " --names '1=k-loop;2=wait;3=compute;5=epilogue'";
  auto loop_removed = [](const std::string& out) {  // lane 0's k-loop: cycles replay took out
    auto doc = nlohmann::json::parse(out);
    for (const auto& iv : doc["intervals"])
      if (iv["region"] == 1 && iv["lane"] == 0)
        return ((iv["raw_end_ns"].get<double>() - iv["raw_start_ns"].get<double>()) -
                (iv["end_ns"].get<double>() - iv["start_ns"].get<double>())) * 1.98;
    return -1.0;
  };
  // 513 records and 128 waits (k-steps) in a lane's k-loop.
  auto step = RunShell(cli + " regions " + buf + names + " --format json --cycles-per-ns 1.98 --record-cost 14.7 "
                       "--start-cost wait=100");
  ASSERT_EQ(step.status, 0) << step.err;
  EXPECT_NEAR(loop_removed(step.out), 14.7 * 513 + 100 * 128, 0.5);
  EXPECT_EQ(nlohmann::json::parse(step.out)["start_cost_cycles"][0]["region"], 2);
  auto step_text = RunShell(cli + " regions " + buf + names + " --cycles-per-ns 1.98 --record-cost 14.7 --start-cost 2=100");
  EXPECT_NE(step_text.out.find("record cost 14.7 cycles + 100 a start of wait (2) (replayed)"), std::string::npos) << step_text.out;
  // The per-step fit on kernel times: 14.7 a record, the rest per k-step (the wait).
  auto fit_step = RunShell(cli + " regions " + buf + names + " --format json --cycles-per-ns 1.98 --record-cost 14.7 "
                           "--fit-kernel-ns 100000,110000 --step-region wait");
  ASSERT_EQ(fit_step.status, 0) << fit_step.err;
  EXPECT_NEAR(nlohmann::json::parse(fit_step.out)["start_cost_cycles"][0]["cycles"].get<double>(), (19800 - 14.7 * 516) / 128,
              1e-6);
  // Kernel times 10 us apart at 1.98 cycles/ns over the last lane's 516 records (and no block
  // ran after another on its SM: one wave).
  auto kt = RunShell(cli + " regions " + buf + names + " --format json --cycles-per-ns 1.98 --fit-kernel-ns 100000,110000");
  ASSERT_EQ(kt.status, 0) << kt.err;
  EXPECT_NEAR(nlohmann::json::parse(kt.out)["record_cost_cycles"].get<double>(), 19800.0 / 516, 1e-6);
  EXPECT_NE(kt.err.find("fitted on the kernel's own pair"), std::string::npos) << kt.err;
  // The buffer as its own reference: no record more than the reference's to fit on.
  auto self = RunShell(cli + " regions " + buf + names + " --cycles-per-ns 1.98 --fit-reference " + buf + " --fit-region k-loop");
  EXPECT_EQ(self.status, 1);
  EXPECT_NE(self.err.find("cannot fit the record cost: no record"), std::string::npos) << self.err;
  // What cannot be used: one line, non-zero, nothing on stdout.
  for (const std::string& bad : {names + " --fit-reference " + buf + " --fit-region nope",
                                 names + " --fit-reference " + buf,
                                 names + " --fit-kernel-ns 5",
                                 names + " --start-cost wait",
                                 names + " --start-cost nope=3",
                                 names + " --step-region wait",
                                 names + " --fit-kernel-ns 100000,110000 --step-region wait"}) {
    auto r = RunShell(cli + " regions " + buf + bad + " --cycles-per-ns 1.98");
    EXPECT_NE(r.status, 0) << bad;
    EXPECT_EQ(strata::test::CountLines(r.err), 1u) << bad << ": " << r.err;
    EXPECT_EQ(r.out, "") << bad;
  }
  // A profile's captured launch takes them too (names from its region frames).
  auto prof = RunShell(cli + " regions " + Quote(std::string(STRATA_REGIONS_FIXTURES) + "/runtime_capture.strata") +
                       " --launch 0 --format json --record-cost 20 --start-cost k-loop=50");
  ASSERT_EQ(prof.status, 0) << prof.err;
  auto pdoc = nlohmann::json::parse(prof.out);
  EXPECT_DOUBLE_EQ(pdoc["record_cost_cycles"].get<double>(), 20);
  EXPECT_DOUBLE_EQ(pdoc["start_cost_cycles"][0]["cycles"].get<double>(), 50);
  // A Proton trace: its scopes by name.
  const std::string proton = Quote(std::string(STRATA_H100_FIXTURES) + "/proton/attention_ws_gluon.chrome_trace.gz");
  auto pr = RunShell(cli + " regions --proton " + proton + " --format json --cycles-per-ns 1.98 --record-cost 30 "
                     "--start-cost wait_kv=50");
  ASSERT_EQ(pr.status, 0) << pr.err;
  auto doc = nlohmann::json::parse(pr.out);
  EXPECT_DOUBLE_EQ(doc["record_cost_cycles"].get<double>(), 30);
  EXPECT_DOUBLE_EQ(doc["start_cost_cycles"][0]["cycles"].get<double>(), 50);
  // The markers made the kernel faster (kernel times the other way round): a negative cost, said so.
  auto faster = RunShell(cli + " regions " + buf + names + " --cycles-per-ns 1.98 --fit-kernel-ns 110000,100000");
  EXPECT_EQ(faster.status, 0) << faster.err;
  EXPECT_NE(faster.err.find("negative: the markers made the kernel faster"), std::string::npos) << faster.err;
  auto missing = RunShell(cli + " regions --proton " + proton + " --record-cost 30 --start-cost nope=5");
  EXPECT_NE(missing.status, 0);
  EXPECT_NE(missing.err.find("no region named \"nope\""), std::string::npos) << missing.err;
}

// `strata regions --critical-path`: the overlap analysis of a buffer, a profile's launch or a
// Proton trace, as text, JSON or SARIF findings.
TEST(CliRegions, CriticalPath) {
  const std::string cli = Quote(STRATA_CLI), dir = STRATA_REGIONS_FIXTURES;
  const std::string ws = Quote(dir + "/warpspec.bin") + " --names-file " + Quote(dir + "/warpspec.json") +
                         " --calibration " + Quote(dir + "/calibration.bin");
  auto text = RunShell(cli + " regions " + ws + " --critical-path");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("critical path: 64 blocks"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("model: warp-specialization, 2 stages"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("consumer-bound"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("finding: `mma`"), std::string::npos) << text.out;
  auto json = RunShell(cli + " regions " + ws + " --critical-path --format json");
  ASSERT_EQ(json.status, 0) << json.err;
  auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["model"]["kind"], "warp-specialization");
  EXPECT_EQ(doc["paths"].size(), 64u);
  EXPECT_GT(doc["bubbles"].size(), 0u);
  EXPECT_EQ(doc["path_regions"][0]["name"], "mma");
  auto sarif = RunShell(cli + " regions " + ws + " --critical-path --format sarif");
  ASSERT_EQ(sarif.status, 0) << sarif.err;
  auto s = nlohmann::json::parse(sarif.out);
  ASSERT_FALSE(s["runs"][0]["results"].empty());
  EXPECT_EQ(s["runs"][0]["results"][0]["ruleId"], "critical-path");
  // SARIF only with the analysis: one line, usage status.
  auto bad = RunShell(cli + " regions " + ws + " --format sarif");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(strata::test::CountLines(bad.err), 1u) << bad.err;
  auto chrome = RunShell(cli + " regions " + ws + " --critical-path --format chrome");
  EXPECT_EQ(chrome.status, 2);
  EXPECT_EQ(strata::test::CountLines(chrome.err), 1u) << chrome.err;
  // A Triton kernel's Proton trace: the consumer warps set the pace.
  auto proton = RunShell(cli + " regions --proton " + Quote(dir + "/../proton/attention_ws_gluon.chrome_trace.gz") +
                         " --cycles-per-ns 1.98 --critical-path");
  ASSERT_EQ(proton.status, 0) << proton.err;
  EXPECT_NE(proton.out.find("finding: `softmax`"), std::string::npos) << proton.out;
  // A profile's captured launch.
  auto prof = RunShell(cli + " regions " + Quote(dir + "/runtime_capture_typed.strata") + " --launch 0 --critical-path");
  ASSERT_EQ(prof.status, 0) << prof.err;
  EXPECT_NE(prof.out.find("launch 0 of 3"), std::string::npos) << prof.out;
  EXPECT_NE(prof.out.find("critical path:"), std::string::npos) << prof.out;
}
