// A kernel's SASS as a dependency graph, its asynchronous copies paired with their waits, each
// wait judged stalled or with slack, and where the graph allows, the suggestion to issue a copy
// earlier (docs/async-copies.md). Inputs: the cubin (code bytes: each instruction's control
// bits) and nvdisasm's listing of it (opcodes, operands, branch labels, source lines), as a
// profile carries them or as files; PC samples and a cuda-gdb trace (sass_trace.h) are optional.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/core/sass_trace.h"

namespace strata::core {

// The scheduling bits of one 128-bit instruction (sm_70 and later; bits 105-125).
struct SassControl {
  uint8_t stall = 0;             // cycles before the warp's next instruction may issue (0-15)
  bool yield = false;            // the scheduler prefers another warp after this one
  int8_t write_scoreboard = -1;  // scoreboard held until the result is written (-1: none)
  int8_t read_scoreboard = -1;   // scoreboard held until the operands are read (-1: none)
  uint8_t wait_mask = 0;         // scoreboards waited for before issue (bit i: SB i)
  uint8_t reuse = 0;             // operand reuse cache flags
};

enum class SassRegFile : uint8_t { kR, kUR, kP, kUP };
struct SassReg {
  SassRegFile file = SassRegFile::kR;
  uint16_t index = 0;
  bool operator==(const SassReg& o) const { return file == o.file && index == o.index; }
  bool operator<(const SassReg& o) const { return file != o.file ? file < o.file : index < o.index; }
};
std::string SassRegName(const SassReg& r);  // "R4", "UR6", "P0", "UP1"

struct SassSourceLine {
  std::string file;
  uint32_t line = 0;
};

// The memory a load reads (LDG, LD, LDL, LDS, LDSM; LDGSTS's global source): [base(.64) + index + imm].
struct SassMemoryOperand {
  std::string space;            // global | shared | local | generic
  std::optional<SassReg> base;  // none: an absolute address ([0x10])
  bool wide = false;            // base is a 64-bit pair (R2.64)
  std::optional<SassReg> index; // a second register added ([R2.64+UR4])
  int64_t imm = 0;
  uint32_t bytes = 4;           // the access width
};

struct SassInstr {
  uint64_t offset = 0;
  std::string text;             // as listed: "@!P0 BRA `(.L_x_3)"
  std::string opcode;           // with modifiers: "LDGSTS.E.BYPASS.LTC128B.128"
  std::string base;             // without: "LDGSTS"
  std::optional<SassReg> guard; // the predicate that guards it
  bool guard_negated = false;
  std::vector<SassReg> defs, uses;  // registers written and read (the guard among the uses)
  std::string branch_label;     // ".L_x_3" for a branch, "" otherwise
  std::optional<SassMemoryOperand> memory;  // what a load reads
  std::optional<SassControl> control;  // none when the cubin's code was not at hand
  SassSourceLine line;          // innermost source line (line 0: none)
  std::vector<SassSourceLine> inlined_at;  // callers of inlined code, innermost caller first
};

struct SassBlock {
  size_t first = 0, last = 0;   // instruction indices, inclusive
  std::vector<size_t> successors, predecessors;  // block indices
  bool loop_head = false;       // the target of a backward branch
};

enum class SassEdgeKind : uint8_t {
  kRegister,    // a general or uniform register written, then read
  kPredicate,   // a predicate written, then read
  kScoreboard,  // a variable-latency producer's scoreboard, then an instruction that waits on it
  kAsyncCopy,   // an asynchronous copy, then the wait that covers it
  kBarrier,     // a wait, then the block-wide barrier after it
};
const char* SassEdgeKindName(SassEdgeKind k);

struct SassEdge {
  size_t from = 0, to = 0;      // instruction indices: `to` depends on `from`
  SassEdgeKind kind = SassEdgeKind::kRegister;
  std::string what;             // the register, "SB3", ...
  bool loop_carried = false;    // `from` runs in an earlier iteration of an enclosing loop
};

struct SassDependencyGraph {
  std::string function;         // mangled
  std::vector<SassInstr> instructions;  // by offset
  std::vector<SassBlock> blocks;        // in layout order
  std::vector<size_t> block_of;         // instruction -> block
  std::vector<SassEdge> edges;
  uint64_t static_shared_bytes = 0;     // from the cubin
  uint32_t max_threads = 0;             // __launch_bounds__ from the cubin (0: not declared)
  bool has_control_bits = false;
};

// Builds the graph of `function` (mangled; "" = the only function, or the first with an
// asynchronous copy). `cubin` may be empty (no control bits then). Throws core::Error (one
// line) when the listing cannot be read or holds no such function.
SassDependencyGraph BuildSassDependencyGraph(std::string_view cubin, std::string_view listing, const std::string& function);
// The functions of a listing (mangled), in its order.
std::vector<std::string> SassListingFunctions(std::string_view listing);

enum class AsyncCopyKind : uint8_t { kCpAsync, kTma, kBulk };
const char* AsyncCopyKindName(AsyncCopyKind k);

// One wait with the copies it waits for, on the steady-state path: walking back from the wait,
// a loop head is entered from its back edge (the loop's later iterations), a join from its
// fall-through.
struct AsyncCopyWait {
  AsyncCopyKind kind = AsyncCopyKind::kCpAsync;
  size_t wait = 0;               // DEPBAR.LE SB0, N or SYNCS...TRYWAIT
  std::vector<size_t> copies;    // LDGSTS / UTMALDG / UBLKCP of the group it completes
  std::optional<size_t> commit;  // the LDGDEPBAR that closed that group (cp.async)
  int allowed_pending = 0;       // N: groups that may stay in flight past the wait
  uint64_t distance = 0;         // instructions from the group's last copy to the wait
  uint32_t iterations = 0;       // loop back edges between them (0: the same iteration)
  bool iterations_at_least = false;  // an mbarrier armed in an earlier iteration: `iterations`
                                     // and `distance` are lower bounds
  uint32_t bytes_per_thread = 0; // what the group copies per thread
  std::optional<size_t> barrier; // the block-wide barrier right after the wait, if any
  std::vector<size_t> retries;   // an mbarrier wait's out-of-line retry loop: its own try-waits
  std::string note;              // why no copy was found, when none was
};

std::vector<AsyncCopyWait> PairAsyncCopies(const SassDependencyGraph& graph);

// PC samples of one kernel by pc offset: reason -> samples ("" when the reasons are unknown).
using SassPcSamples = std::map<uint64_t, std::map<std::string, double>>;

enum class WaitVerdict : uint8_t { kUnknown, kStalled, kSlack };
const char* WaitVerdictName(WaitVerdict v);

struct WaitClassification {
  size_t wait = 0;               // index into the PairAsyncCopies result
  WaitVerdict verdict = WaitVerdict::kUnknown;
  std::string evidence;          // "pc samples" | "trace (timing model)"
  double samples = 0, barrier_samples = 0, kernel_samples = 0;
  double share = 0;              // samples / kernel_samples, or the model's stall share
  std::string top_reason;
  double model_stall_cycles = 0; // the timing model's stall at the wait per pass (trace)
};

struct WaitThresholds {
  double stalled_share = 0.05;   // a wait holding this share of the kernel's samples stalls
  double min_kernel_samples = 100;
};

std::vector<WaitClassification> ClassifyWaitsFromSamples(const SassDependencyGraph& graph, const std::vector<AsyncCopyWait>& waits,
                                                         const SassPcSamples& samples, const WaitThresholds& t = {});

struct CopySuggestion {
  size_t wait = 0;               // index into the PairAsyncCopies result
  uint32_t iterations_earlier = 0;
  uint64_t instructions_earlier = 0;   // K
  uint32_t loop_instructions = 0;      // one iteration of the loop around the copy
  uint32_t ring_groups = 0;            // groups the shared memory holds (0: unknown)
  uint32_t group_bytes = 0;            // bytes per group for the whole block (0: threads unknown)
  int new_allowed_pending = 0;         // the wait's N after the change
  bool addresses_from_counters = false;  // the copy's address registers come from integer
                                         // arithmetic only (no loaded or computed data)
  std::string message;
};

struct SuggestionLimits {
  uint32_t threads_per_block = 0;      // 0: the cubin's __launch_bounds__
  uint64_t dynamic_shared_bytes = 0;
  uint64_t shared_bytes_limit = 227 * 1024;  // per block (H100)
};

std::vector<CopySuggestion> SuggestEarlierCopies(const SassDependencyGraph& graph, const std::vector<AsyncCopyWait>& waits,
                                                 const std::vector<WaitClassification>& verdicts, const SuggestionLimits& limits = {});

// The timing model (docs/async-copies.md "Timing model"): the trace's instructions issued in
// order, each after the stall count of the one before and its scoreboard waits; a variable-
// latency producer releases its scoreboard after a fixed latency per kind; a cp.async group
// completes `copy_latency` cycles after its commit. Yields each step's issue cycle and stall.
struct TimingModelParams {
  double global_latency = 600;   // cycles: LDG, LDGSTS group (H100 global memory, L2 miss)
  double shared_latency = 30;    // LDS, LDSM
  double other_latency = 20;     // other variable-latency producers (MUFU, S2R, LDC, ...)
  double barrier_cycles = 20;    // BAR.SYNC with every warp already there
};
struct TimedStep {
  size_t step = 0;
  uint64_t offset = 0;
  double issue = 0;              // cycle the instruction issues
  double stall = 0;              // cycles it waited beyond the previous one's stall count
  std::string waited_for;        // "SB0", "cp.async group", ...
};
std::vector<TimedStep> ModelTraceTiming(const SassDependencyGraph& graph, const SassTrace& trace, const TimingModelParams& p = {});
// Waits classified from the model: stalled when their stall is at least `stalled_share` of the
// trace's modeled cycles.
std::vector<WaitClassification> ClassifyWaitsFromTrace(const SassDependencyGraph& graph, const std::vector<AsyncCopyWait>& waits,
                                                       const std::vector<TimedStep>& timed, const WaitThresholds& t = {});

// The asynchronous-copy wait (`DEPBAR.LE SB0, N`, an mbarrier try-wait) right before `offset`
// in `function` of `listing`: a warp held by such a wait is sampled on the instruction after it.
// "" when there is none (or the listing cannot be read).
std::string AsyncWaitBefore(std::string_view listing, const std::string& function, uint64_t offset);

// What `strata trace`'s cuda-gdb script reads before each step, per instruction offset (JSON:
// {"<offset>": {"uses": ["R4", ...], "defs": [...], "guard": "P0", "negated": false, "mem": {"space", "base",
// "wide", "index", "imm", "bytes"}}}): the registers to read where first read and the memory a
// load is about to read, from nvdisasm's listing of `cubin` (cuda-gdb's own disassembly leaves
// out commas). Runs `nvdisasm` (a path; "" = found as `strata sass` finds it). Throws
// core::Error (one line) when the cubin cannot be disassembled or has no such function.
std::string TraceOperandTable(std::string_view cubin, const std::string& function, const std::string& nvdisasm);

// Everything for one kernel, and where its inputs came from.
struct AsyncCopyAnalysis {
  SassDependencyGraph graph;
  std::vector<AsyncCopyWait> waits;
  std::vector<WaitClassification> verdicts;
  std::vector<CopySuggestion> suggestions;
  std::vector<TimedStep> timeline;   // from a trace, when one was given
  std::vector<std::string> notes;
};

// A kernel's code and PC samples read from a profile (its cubin and listing blobs; the samples
// of its pc frames by stall reason): `kernel` matches the kernel frame's name (demangled) or the
// mangled function; "" = the kernel with the most samples that has an asynchronous copy, else
// the most samples. Throws core::Error (one line) when the profile has no such code.
struct ProfileKernelCode {
  std::string kernel;            // as the profile shows it
  std::string function;          // mangled
  std::string cubin, listing;    // bytes
  SassPcSamples samples;
  uint32_t threads = 0;          // block size of its launches (metric block_size, the largest)
  uint64_t dynamic_shared_bytes = 0;
};
std::vector<ProfileKernelCode> ReadProfileKernelCode(const std::string& profile_path);

// The GPU code blobs of a profile by module path ("cubin:0000000072470f07"): cubin and listing
// bytes (either may be empty). Throws core::Error on an unreadable profile.
struct ProfileGpuCode {
  std::string cubin, listing;
};
std::map<std::string, ProfileGpuCode> ReadProfileGpuCode(const std::string& profile_path);
// The listing's function (mangled) whose demangled name is `kernel` (or that is `kernel`); "".
std::string ListingFunctionOf(std::string_view listing, const std::string& kernel);

AsyncCopyAnalysis AnalyzeAsyncCopies(std::string_view cubin, std::string_view listing, const std::string& function,
                                     const SassPcSamples* samples, const SassTrace* trace, const SuggestionLimits& limits = {},
                                     const WaitThresholds& thresholds = {});

// Text (for people) and JSON (for tools) of an analysis.
std::string AsyncCopyReportText(const AsyncCopyAnalysis& a, bool with_graph);
std::string AsyncCopyReportJson(const AsyncCopyAnalysis& a, bool with_graph);
// The timing model's timeline as a Chrome trace (Perfetto, chrome://tracing): a slice per
// traced instruction from its issue to the next one's on track "issue", each stall before an
// issue on track "stall" (what it waited for); one cycle drawn as one nanosecond.
std::string AsyncCopyTimelineChrome(const AsyncCopyAnalysis& a);

}  // namespace strata::core
