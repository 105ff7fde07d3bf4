// The subcommands of `strata`; each returns the process exit status.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strata::cli {

struct RecordOptions {
  std::string output;              // "" = ./strata-YYYYmmdd-HHMMSS.strata
  int period_ms = 10;
  bool wall = false;
  std::string pc_sampling;         // "" off | "continuous" | "serialized" (STRATA_PC_SAMPLING)
  int pc_sampling_period = -1;     // 2^N cycles, 5..31; -1 = the runtime's default
  std::string regions;             // "" off | "all" | kernel-name substring (STRATA_REGIONS)
  int regions_every = 1;           // capture every Nth launch of a kernel
  int checkpoint_s = 60;           // STRATA_CHECKPOINT_S: periodic checkpoint, 0 = off
  bool no_children = false;        // STRATA_CHILDREN=0: the first process only
  std::string ranks;               // "" = every rank | "0,2-3" (STRATA_RANKS): only these ranks
  std::string gpu_sampling;        // "" = every launch | "ON/PERIOD" ms (STRATA_GPU_SAMPLING)
  std::string capture_range;       // "" = whole run | "cudaProfilerApi" (STRATA_CAPTURE_RANGE)
  std::string operators;           // "" = auto | "callbacks" | "frames" (STRATA_OPERATORS): PyTorch operators' source
  std::string snap;                // "" off | KERNEL[:N] (STRATA_SNAP): one launch to a snapshot file
  std::string snap_output;         // "" = the profile's path with .snap for .strata
  uint64_t snap_max_bytes = 0;     // 0 = the runtime's default bound on region contents
  int snap_preludes = 0;           // launches before the snapped one kept (STRATA_SNAP_PRELUDES)
  std::vector<std::string> command;
};
int RunRecord(const RecordOptions& options);

struct ReportOptions {
  std::string file;
  std::string view = "top-down";
  std::string format = "text";
  long limit = -1;                 // -1: default (50 for text, all for json); 0: all
  std::string metric;              // "" = the first metric
  std::vector<std::string> symbol_paths;  // --symbol-path, then $STRATA_SYMBOL_PATH (a:b:c)
  bool by_rank = false;            // a distributed job's run folder: per-rank phases and spread
};
int RunReport(const ReportOptions& options);
// strata report RUN_DIR --by-rank (rank_report.cpp).
int RunRankReport(const ReportOptions& options);

struct AnalyzeCliOptions {
  std::string file;
  std::string format = "text";             // text | json | sarif
  std::vector<std::string> rule_files;     // --rules
  std::vector<std::string> settings;       // --set RULE.PARAM=VALUE
  std::vector<std::string> disabled;       // --disable RULE
  bool all_phases = false;                 // --all-phases
  std::vector<std::string> symbol_paths;
};
int RunAnalyze(const AnalyzeCliOptions& options);

struct RegionsOptions {
  std::string file;                 // the raw buffer, or a profile with region buffers
  bool list = false;                // a profile: list its captured launches
  long launch = -1;                 // a profile: the captured launch to decode (-1: 0)
  std::string names;                // "1=name;2=name"
  std::string names_file;           // a harness sidecar JSON ("names") or a bare table
  std::string calibration;          // a calibration buffer: replay with its record cost
  double record_cost = 0;           // cycles per record given outright (e.g. measured in context)
  std::string start_cost;           // "REGION=CYCLES,...": per start of a region, on top of its records
  std::string step_regions;         // a fit's per-step form: its steps are starts of these (ids or names)
  std::string fit_reference;        // fit the record cost: a trace of the kernel with fit_region's markers only
  std::string fit_region;           // id or name
  std::vector<double> fit_kernel_ns;  // or: the kernel's time plain and instrumented (ns)
  std::string fit_paced;            // the paced fit: more instrumented traces of the kernel (comma-separated)
  std::string format = "text";      // text | json | chrome
  std::string output;               // "" = stdout
  double cycles_per_ns = 0;         // the device's clock64 rate; 0: measured from the lanes
  std::string proton;               // a Proton trace (.chrome_trace) or hatchet instead of a buffer
  bool critical_path = false;       // the overlap analysis (edges, critical path, bubbles, models) instead
};
int RunRegions(const RegionsOptions& options);

struct ExportOptions {
  std::string file;                 // the profile
  std::string format;               // pprof | speedscope | chrome (core::ParseExportFormat)
  std::string output;               // written atomically
  std::vector<std::string> symbol_paths;
};
int RunExport(const ExportOptions& options);

struct ImportOptions {
  std::string trace;                // a PyTorch-profiler (Kineto) Chrome trace
  std::string output;               // the profile, written atomically
};
int RunImport(const ImportOptions& options);

struct DiffOptions {
  std::string a, b;                 // the runs before and after
  std::string metric;               // "" = the first additive metric both have
  long limit = 20;                  // rows shown; 0: all
  std::vector<std::string> symbol_paths;
};
int RunDiff(const DiffOptions& options);

struct SassOptions {
  std::string file;                 // the profile
  std::string nvdisasm;             // "" = core::FindNvdisasm()
};
int RunSass(const SassOptions& options);
// Embeds the listings (nvdisasm "" = found as core::FindNvdisasm does); returns meta `sass`.
// Throws core::Error when the profile cannot be read or replaced.
std::string EmbedSass(const std::string& profile, const std::string& nvdisasm);

struct ReplayCliOptions {
  std::string file;                 // the snapshot
  int repeat = 20;
  double rtol = 0, atol = 0;        // 0, 0: bit-exact
  std::string dtype = "f32";
  bool any_driver = false;
  bool relocate = false;
  std::string l2 = "clean";         // restored | clean | back-to-back | prelude (replay::L2State)
  bool info = false;                // print what the snapshot holds; no GPU needed
  // Instruments on the replay: the replay runs under `strata record` with these (as
  // RecordOptions), and the profile goes to `output`.
  std::string pc_sampling;          // "" off | "continuous" | "serialized"
  std::string regions;              // "" off | "all" | kernel-name substring
  std::string output;               // "" = record's default name
  bool alone = false;               // no wait kernel, no floor kernel: the snapped kernel only
};
// 0: outputs match; 3: they differ; 1: no replay (the one-line reason on stderr).
int RunReplay(const ReplayCliOptions& options);

struct TraceOptions {
  std::string file;                 // the snapshot
  std::string output;               // "" = FILE.trace.json
  long max_instructions = 2000;
  std::string block = "0,0,0";
  long warp = 0;                    // warp index inside the block (threads 32w..32w+31, linear)
  std::string cuda_gdb;             // "" = on PATH, then /usr/local/cuda/bin
  std::string nvdisasm;             // "" = found as `strata sass` finds it (the operand table)
  std::string log;                  // "" = a temporary file: where cuda-gdb's log is kept
  std::string from_log;             // a log made before: parse it, run nothing
};
// 0: a trace written; 1: no trace (the one-line reason, and cuda-gdb's last output, on stderr).
int RunTrace(const TraceOptions& options);

struct SassDepsOptions {
  std::string profile;              // code and PC samples from a profile
  std::string cubin, sass;          // or code from files (samples still from `profile` if given)
  std::string kernel;               // substring of the kernel or function name; "" = every kernel with a wait
  std::string trace;                // a trace file (strata trace): the timing model
  uint32_t threads = 0;             // threads per block; 0 = the cubin's launch bounds
  uint64_t dynamic_shared = 0;      // dynamic shared memory per block
  double stalled_share = 0.05;      // a wait with this share of the kernel's samples stalls
  std::string format = "text";      // text | json | chrome (the timing model's timeline)
  bool graph = false;               // every instruction with its control bits and edges
};
int RunSassDeps(const SassDepsOptions& options);

// Exit statuses.
inline constexpr int kExitUsage = 2;
inline constexpr int kExitError = 1;

}  // namespace strata::cli
