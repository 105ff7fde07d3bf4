// The cuda-gdb trace (strata trace): both log forms, branch outcomes and loops, the trace file's
// round trip and bad input.
#include <gtest/gtest.h>

#include "strata/core/api.h"
#include "strata/core/sass_trace.h"

namespace strata::core {
namespace {

const char* kJsonLog = R"LOG({"kind": "meta", "gdb": "NVIDIA (R) cuda-gdb 13.0", "kernel": "k", "block": "0,0,0", "thread": "32,0,0", "limit": 100}
{"kind": "note", "command": "set cuda break_on_launch application", "result": "error: x"}
{"kind": "entry", "pc": 4096, "symbol": "k in section .text.k"}
{"kind": "step", "i": 0, "pc": 4096, "text": "S2R R0, SR_TID.X"}
{"kind": "step", "i": 1, "pc": 4112, "text": "IADD3 R4, R4, 0x1, RZ", "reads": [["R4", 7]]}
{"kind": "step", "i": 2, "pc": 4128, "text": "@!P0 BRA `(.L_x_0)", "guard": true, "reads": [["P0", null]]}
{"kind": "step", "i": 3, "pc": 4112, "text": "IADD3 R4, R4, 0x1, RZ"}
{"kind": "step", "i": 4, "pc": 4128, "text": "@!P0 BRA `(.L_x_0)", "guard": true}
{"kind": "step", "i": 5, "pc": 4112, "text": "IADD3 R4, R4, 0x1, RZ"}
{"kind": "step", "i": 6, "pc": 4128, "text": "@!P0 BRA `(.L_x_0)", "guard": false}
{"kind": "step", "i": 7, "pc": 4144, "text": "LDG.E R2, desc[UR4][R6.64]", "mem": {"space": "global", "address": 1234, "words": [7], "error": ""}}
{"kind": "step", "i": 8, "pc": 4160, "text": "EXIT"}
{"kind": "end", "reason": "exited", "steps": 9, "seconds": 2.5}
)LOG";

TEST(SassTrace, PythonLog) {
  SassTrace t = ParseCudaGdbLog(kJsonLog, "_Z1kv");
  EXPECT_EQ(t.kernel, "_Z1kv");
  EXPECT_EQ(t.thread, "32,0,0");
  EXPECT_EQ(t.stop_reason, "exited");
  EXPECT_DOUBLE_EQ(t.seconds, 2.5);
  ASSERT_EQ(t.steps.size(), 9u);
  EXPECT_EQ(t.steps[1].offset, 0x10u);
  ASSERT_EQ(t.steps[1].reads.size(), 1u);
  EXPECT_EQ(*t.steps[1].reads[0].value, 7u);
  EXPECT_FALSE(t.steps[2].reads[0].value);
  EXPECT_EQ(t.steps[2].guard, 1);
  EXPECT_EQ(t.steps[6].guard, 0);
  ASSERT_TRUE(t.steps[7].memory);
  EXPECT_EQ(t.steps[7].memory->address, 1234u);
  ASSERT_EQ(t.notes.size(), 1u);
  auto loops = TraceLoops(t);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].head, 0x10u);
  EXPECT_EQ(loops[0].back_edge, 0x20u);
  EXPECT_EQ(loops[0].iterations, 3u);
  auto branches = BranchOutcomes(t);
  ASSERT_EQ(branches.size(), 1u);  // EXIT is the last step: no outcome
  EXPECT_EQ(branches[0].taken, 2u);
  EXPECT_EQ(branches[0].fallthrough, 1u);
}

TEST(SassTrace, PlainLog) {
  const char* log =
      "Breakpoint 1, 0x00007fffd3259a00 in k<<<(1,1,1),(32,1,1)>>> ()\n"
      "=> 0x00007fffd3259a00 <k>:\tS2R R0, SR_TID.X ;\n"
      "0x00007fffd3259a10 in k<<<(1,1,1),(32,1,1)>>> ()\n"
      "=> 0x00007fffd3259a10 <k+16>:\tIADD3 R4, R4, 0x1, RZ ;\n"
      "=> 0x00007fffd3259a20 <k+32>:\t@!P0 BRA `(.L_x_0) ;\n"
      "=> 0x00007fffd3259a10 <k+16>:\tIADD3 R4, R4, 0x1, RZ ;\n";
  SassTrace t = ParseCudaGdbLog(log, "k");
  ASSERT_EQ(t.steps.size(), 4u);
  EXPECT_EQ(t.steps[2].offset, 0x20u);
  EXPECT_EQ(t.steps[2].text, "@!P0 BRA `(.L_x_0)");
  EXPECT_EQ(t.steps[3].offset, 0x10u);
  EXPECT_NE(t.stop_reason.find("no Python"), std::string::npos);
}

TEST(SassTrace, FileRoundTrip) {
  SassTrace t = ParseCudaGdbLog(kJsonLog, "_Z1kv");
  SassTrace u = ReadSassTrace(WriteSassTrace(t));
  ASSERT_EQ(u.steps.size(), t.steps.size());
  for (size_t i = 0; i < t.steps.size(); ++i) {
    EXPECT_EQ(u.steps[i].offset, t.steps[i].offset);
    EXPECT_EQ(u.steps[i].text, t.steps[i].text);
    EXPECT_EQ(u.steps[i].guard, t.steps[i].guard);
    EXPECT_EQ(u.steps[i].reads.size(), t.steps[i].reads.size());
    EXPECT_EQ(u.steps[i].memory.has_value(), t.steps[i].memory.has_value());
  }
  EXPECT_EQ(u.kernel, t.kernel);
  EXPECT_EQ(u.stop_reason, t.stop_reason);
  EXPECT_EQ(u.notes, t.notes);
}

TEST(SassTrace, BadInput) {
  try {
    ParseCudaGdbLog("{\"kind\": \"end\", \"reason\": \"cannot focus: error: no such block\"}\n", "k");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot focus"), std::string::npos);
  }
  EXPECT_THROW(ParseCudaGdbLog("", "k"), Error);
  EXPECT_THROW(ReadSassTrace("{}"), Error);
  EXPECT_THROW(ReadSassTrace("{\"format\": \"strata-sass-trace\", \"version\": 9}"), Error);
  EXPECT_THROW(ReadSassTrace("{\"format\": \"strata-sass-trace\", \"version\": 1, \"kernel\": \"k\", \"steps\": [{}]}"), Error);
}

}  // namespace
}  // namespace strata::core
