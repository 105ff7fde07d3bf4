// strata trace's cuda-gdb script run by python3 against a stand-in `gdb` module (a scripted
// warp: a load, an add, a loop branch, EXIT): the operand table drives which registers and
// memory are read (first reads only), guards are read, stepping stops at EXIT, and the log
// becomes a trace. The real cuda-gdb runs it in bench/snap/trace_h100.sh.
#include <gtest/gtest.h>

#include <fstream>

#include "cuda_gdb_script.h"
#include "strata/core/sass_trace.h"
#include "test_util.h"

namespace {

const char* kFakeGdb = R"PY(
import json
# A warp at offsets 0x10 (LDS), 0x20 (IADD3), 0x30 (@P0 BRA back), twice, then 0x40 (EXIT).
BASE = 0x7000
SEQ = [0x10, 0x20, 0x30, 0x10, 0x20, 0x30, 0x40]
TEXT = {0x10: "LDS R4[R2+0x10]", 0x20: "IADD3 R5,R4,R6,RZ", 0x30: "@P0 BRA 0x7010", 0x40: "EXIT"}
state = {"i": 0, "running": False, "p0": 0}
class error(Exception): pass
class _Thread: pass
class _Frame:
    def name(self): return "k"
def selected_thread(): return _Thread() if state["running"] else None
def selected_frame(): return _Frame()
def parse_and_eval(e):
    if e == "$pc": return BASE + SEQ[state["i"]]
    if e == "$P0":
        state["p0"] += 1
        return 1 if state["p0"] == 1 else 0
    return {"$R2": 0x100, "$R6": 7}.get(e, 0)
def execute(cmd, to_string=False):
    if cmd == "show version": return "fake cuda-gdb\n"
    if cmd == "run": state["running"] = True; return ""
    if cmd == "info symbol $pc": return "k + 16 in section .text.k\n"
    if cmd == "x/i $pc": return "=> 0x%x <k+%d>:\t%s\n" % (BASE + SEQ[state["i"]], SEQ[state["i"]], TEXT[SEQ[state["i"]]])
    if cmd == "stepi":
        state["i"] += 1
        if state["i"] >= len(SEQ): raise error("The program is not being run.")
        return ""
    if cmd.startswith("x/1xw (@shared unsigned int *) "): return "0x110:\t0x0000002a\n"
    return ""
)PY";

const char* kTable = R"JSON({"16": {"uses": ["R2"], "defs": ["R4"], "text": "LDS R4, [R2+0x10]",
  "mem": {"space": "shared", "base": "R2", "wide": false, "index": "", "imm": 16, "bytes": 4}},
 "32": {"uses": ["R4", "R6"], "defs": ["R5"], "text": "IADD3 R5, R4, R6, RZ"},
 "48": {"uses": ["P0"], "defs": [], "guard": "P0", "negated": false, "text": "@P0 BRA `(.L_x_0)"},
 "64": {"uses": [], "defs": [], "text": "EXIT"}})JSON";

TEST(CudaGdbScript, StepsAWarpWithTheOperandTable) {
  const std::string dir = strata::test::TempDir();
  std::ofstream(dir + "/gdb.py") << kFakeGdb;
  std::ofstream(dir + "/trace.py") << strata::cli::CudaGdbPythonScript();
  std::ofstream(dir + "/ops.json") << kTable;
  auto r = strata::test::RunShell("cd " + dir + " && PYTHONPATH=. STRATA_TRACE_LOG=log STRATA_TRACE_KERNEL=k STRATA_TRACE_MAX=100 "
                                  "STRATA_TRACE_OPERANDS=ops.json /usr/bin/python3 trace.py");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string log = strata::test::ReadText(dir + "/log");
  strata::core::SassTrace t = strata::core::ParseCudaGdbLog(log, "");
  EXPECT_EQ(t.kernel, "k");
  EXPECT_EQ(t.stop_reason, "exited");
  ASSERT_EQ(t.steps.size(), 7u) << log;
  EXPECT_EQ(t.steps[0].offset, 0x10u);  // the entry stop is "k + 16"
  EXPECT_EQ(t.steps[0].text, "LDS R4, [R2+0x10]");  // the listing's text, commas included
  ASSERT_EQ(t.steps[0].reads.size(), 1u);
  EXPECT_EQ(t.steps[0].reads[0].reg, "R2");
  EXPECT_EQ(*t.steps[0].reads[0].value, 0x100u);
  ASSERT_TRUE(t.steps[0].memory);
  EXPECT_EQ(t.steps[0].memory->space, "shared");
  EXPECT_EQ(t.steps[0].memory->address, 0x110u);
  ASSERT_EQ(t.steps[0].memory->words.size(), 1u);
  EXPECT_EQ(t.steps[0].memory->words[0], 42u);
  ASSERT_EQ(t.steps[1].reads.size(), 1u);  // R4 was written by the load: only R6 is a first read
  EXPECT_EQ(t.steps[1].reads[0].reg, "R6");
  EXPECT_EQ(t.steps[2].guard, 1);
  EXPECT_TRUE(t.steps[3].reads.empty());  // the second pass reads nothing new
  EXPECT_FALSE(t.steps[3].memory);        // nor the same address again
  EXPECT_EQ(t.steps[5].guard, 0);
  EXPECT_EQ(t.steps[6].offset, 0x40u);
  auto loops = strata::core::TraceLoops(t);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].iterations, 2u);
  strata::test::RunShell("rm -rf " + dir);
}

// Without the operand table (nvdisasm missing) the debugger's text is split: "LDS R4[R2+0x10]".
TEST(CudaGdbScript, WithoutTheTableFromTheDisassembly) {
  const std::string dir = strata::test::TempDir();
  std::ofstream(dir + "/gdb.py") << kFakeGdb;
  std::ofstream(dir + "/trace.py") << strata::cli::CudaGdbPythonScript();
  auto r = strata::test::RunShell("cd " + dir + " && PYTHONPATH=. STRATA_TRACE_LOG=log STRATA_TRACE_KERNEL=k STRATA_TRACE_MAX=100 "
                                  "/usr/bin/python3 trace.py");
  ASSERT_EQ(r.status, 0) << r.err;
  strata::core::SassTrace t = strata::core::ParseCudaGdbLog(strata::test::ReadText(dir + "/log"), "");
  ASSERT_EQ(t.steps.size(), 7u);
  EXPECT_EQ(t.stop_reason, "exited");
  ASSERT_EQ(t.steps[0].reads.size(), 1u);  // R2 (the address), not R4 (the loaded result)
  EXPECT_EQ(t.steps[0].reads[0].reg, "R2");
  ASSERT_EQ(t.steps[1].reads.size(), 1u);
  EXPECT_EQ(t.steps[1].reads[0].reg, "R6");
  EXPECT_EQ(t.steps[2].guard, 1);
  EXPECT_FALSE(t.steps[0].memory);  // addresses need the table
  strata::test::RunShell("rm -rf " + dir);
}

TEST(CudaGdbScript, PlainCommandFile) {
  const std::string f = strata::cli::CudaGdbCommandFile("k", "0,1,0", "64,0,0", 5);
  EXPECT_NE(f.find("break k\n"), std::string::npos);
  EXPECT_NE(f.find("cuda block 0,1,0 thread 64,0,0"), std::string::npos);
  EXPECT_NE(f.find("while $strata_i < 5"), std::string::npos);
}

}  // namespace
