// The executed SASS of one warp of a replayed kernel (`strata trace`, docs/async-copies.md
// "Trace"): what cuda-gdb single-stepped, in order, with predication, the registers and memory
// the warp read before it wrote them (lane 0's values), and what follows from the order: each
// branch's outcomes and each loop's iteration count.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::core {

struct SassTraceRead {
  std::string reg;            // "R4", "UR6", "P0"
  std::optional<uint32_t> value;  // none: cuda-gdb could not read it
};

struct SassTraceMemory {
  std::string space;          // global | shared | local | generic
  uint64_t address = 0;
  std::vector<uint32_t> words;  // as read before the instruction ran (empty: unreadable)
  std::string error;
};

struct SassTraceStep {
  uint64_t offset = 0;        // pc offset inside the kernel
  std::string text;           // the instruction as cuda-gdb disassembled it, guard included
  int guard = -1;             // -1: no guard (or unread); 0: predicated off for lane 0; 1: on
  std::vector<SassTraceRead> reads;     // first reads only
  std::optional<SassTraceMemory> memory;  // a load's first read of that address
};

struct SassTrace {
  static constexpr int kVersion = 1;
  std::string kernel;
  std::string debugger;       // cuda-gdb's version line
  std::string block, thread;  // the focus, "x,y,z"
  uint64_t max_instructions = 0;
  std::string stop_reason;    // "limit", "exited", or why it stopped early
  double seconds = 0;         // the debugger's wall time
  std::vector<std::string> notes;  // what the debugger refused (commands, focus)
  std::vector<SassTraceStep> steps;
};

struct SassBranchOutcome {
  uint64_t offset = 0;        // the control-flow instruction
  uint64_t taken = 0, fallthrough = 0;
};

struct SassLoop {
  uint64_t head = 0, back_edge = 0;  // a taken backward branch: back_edge -> head
  uint64_t iterations = 0;           // times the head was entered from the back edge, + 1
};

// Reads cuda-gdb's log: the JSON lines of `strata trace`'s Python script, or the plain output of
// its command file (`x/i $pc` lines). Throws core::Error (one line) when it holds no step, with
// the debugger's own reason when it gave one. `kernel` "" = the one the log's meta line names.
SassTrace ParseCudaGdbLog(std::string_view log, const std::string& kernel);

// Conditional and indirect control flow seen in the trace, by offset.
std::vector<SassBranchOutcome> BranchOutcomes(const SassTrace& trace);
// Loops: each taken backward jump, with how many times it was taken (+1: the first entry). The
// same offset twice in a row is a step the debugger did not advance (a barrier), not a loop.
std::vector<SassLoop> TraceLoops(const SassTrace& trace);

// The trace file (JSON, "strata-sass-trace" version 1); Read throws core::Error on bad input.
std::string WriteSassTrace(const SassTrace& trace);
SassTrace ReadSassTrace(std::string_view json);

}  // namespace strata::core
