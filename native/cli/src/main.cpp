// strata: record a program with the Strata runtime, report and analyze a profile.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <exception>

#include "commands.h"

namespace {

// CLI11's NonNegativeNumber / PositiveNumber say "not in range 0 to 1.79769e+308" in full:
// these say what is wanted.
std::string NumberCheck(const std::string& v, bool positive) {
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  const bool ok = end != v.c_str() && *end == '\0' && (positive ? d > 0 : d >= 0);
  return ok ? "" : "must be a " + std::string(positive ? "positive" : "non-negative") + " number, not " + v;
}
const CLI::Validator kPositive([](std::string& v) { return NumberCheck(v, true); }, "POSITIVE", "positive");
const CLI::Validator kNonNegative([](std::string& v) { return NumberCheck(v, false); }, "NONNEGATIVE", "non-negative");
// Comma-separated paths, each an existing file.
const CLI::Validator kExistingFiles(
    [](std::string& v) {
      size_t from = 0;
      while (from <= v.size()) {
        const size_t comma = std::min(v.find(',', from), v.size());
        const std::string path = v.substr(from, comma - from);
        if (!path.empty() && !CLI::ExistingFile(path).empty()) return "File does not exist: " + path;
        from = comma + 1;
      }
      return std::string();
    },
    "FILE[,FILE...]", "existing files");

}  // namespace

int main(int argc, char** argv) {
  using namespace strata::cli;
  CLI::App app{"Strata: a profiler for C++, Python and GPU programs", "strata"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every subcommand");

  RecordOptions rec;
  CLI::App* record = app.add_subcommand("record", "Run a command under the Strata runtime and write a profile");
  record->add_option("-o,--output", rec.output, "Profile to write (default ./strata-<time>.strata)");
  record->add_option("--period-ms", rec.period_ms, "Sampling period in milliseconds")
      ->check(CLI::Range(1, 60000));
  record->add_flag("--wall", rec.wall, "Sample wall-clock time instead of CPU time");
  record->add_option("--pc-sampling", rec.pc_sampling,
                     "GPU PC sampling with stall reasons: continuous (kernels overlap as usual; samples "
                     "shared among a kernel's call paths by GPU time) or serialized (exact per launch, "
                     "kernels serialized)")
      ->expected(0, 1)
      ->default_str("continuous")
      ->check(CLI::IsMember({"continuous", "serialized"}));
  record->add_option("--regions", rec.regions,
                     "Hand in-kernel region buffers to launches of kernels built with strata/regions.cuh "
                     "(all, or those whose name contains the value) and put the decoded regions under "
                     "their kernel nodes")
      ->expected(0, 1)
      ->default_str("all");
  record->add_option("--regions-every", rec.regions_every, "With --regions: capture every Nth launch of a kernel")
      ->check(CLI::Range(1, 1 << 30));
  record->add_option("--pc-sampling-period", rec.pc_sampling_period,
                     "PC sampling period: 2^N GPU cycles per SM between samples (5..31, default 14; 0: CUPTI's default)")
      ->check([](const std::string& v) -> std::string {
        int n = std::atoi(v.c_str());
        return n == 0 || (n >= 5 && n <= 31) ? "" : "must be 5..31 (or 0: CUPTI's default)";
      });
  record->add_option("--checkpoint", rec.checkpoint_s,
                     "Write the profile so far every N seconds (atomically: a crash or SIGKILL leaves the "
                     "last one); 0: only at the end")
      ->check(CLI::Range(0, 1000000));
  record->add_option("--gpu-sampling", rec.gpu_sampling,
                     "Sampled GPU tracing for launch-bound programs: trace GPU work ON ms out of every PERIOD ms "
                     "(ON/PERIOD, e.g. 100/1000: each window costs a few ms to open and close, and a window shorter than "
                     "a step sees only part of it); GPU times are scaled by PERIOD/ON and the profile says so")
      ->check([](const std::string& v) -> std::string {
        unsigned on = 0, period = 0;
        char rest = 0;
        return sscanf(v.c_str(), "%u/%u%c", &on, &period, &rest) == 2 && on > 0 && period > on
                   ? "" : "must be ON/PERIOD in ms with 0 < ON < PERIOD (e.g. 100/1000)";
      });
  record->add_option("--capture-range", rec.capture_range,
                     "Collect GPU work only between the program's cudaProfilerStart and cudaProfilerStop calls "
                     "(torch.cuda.profiler.start()/stop()); CPU samples cover the whole run")
      ->check(CLI::IsMember({"cudaProfilerApi"}));
  record->add_option("--operators", rec.operators,
                     "Where PyTorch operators come from: auto (default: named from the dispatcher's native frames "
                     "until the program builds its first autograd graph, torch's RecordFunction callbacks from then "
                     "on), callbacks "
                     "(from the start; backward operators land on their forward line) or frames (never callbacks: "
                     "cheapest on launch-bound programs, no backward-to-forward links)")
      ->check(CLI::IsMember({"auto", "callbacks", "frames"}));
  record->add_flag("--no-children", rec.no_children,
                   "Profile only the first process, not the processes it starts (each of which gets a "
                   "profile of its own beside the first one's by default)");
  record->add_option("--ranks", rec.ranks,
                     "Profile only these ranks of a distributed job (e.g. 0,2-3; the rank each process's "
                     "launcher sets: RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID); processes "
                     "without a rank, such as the launcher, are profiled as before");
  record->add_option("--snap", rec.snap,
                     "Write the N-th launch (default 1st) of a kernel whose name contains KERNEL to a snapshot "
                     "file for `strata replay`: KERNEL[:N]")
      ->excludes("--gpu-sampling")
      ->excludes("--capture-range");
  record->add_option("--snap-output", rec.snap_output, "The snapshot file (default: the profile's name with .snap)");
  record->add_option("--snap-max-bytes", rec.snap_max_bytes,
                     "Keep the contents of the snapped allocations up to this many bytes (default 4 GiB)")
      ->check(CLI::PositiveNumber);
  record->add_option("--snap-preludes", rec.snap_preludes,
                     "Also keep up to N launches before the snapped one on its stream, with their allocations and "
                     "module images, for `strata replay --l2 prelude` (at most 12; default 0)")
      ->check(CLI::Range(0, 12));
  std::string program;
  record->add_option("command", program, "The command to run, after -- (CMD ARGS...)");
  record->prefix_command();  // without --: everything after the program goes to the target

  ReportOptions rep;
  CLI::App* report = app.add_subcommand("report", "Print a profile as a tree, a table or JSON");
  report->add_option("file", rep.file, "Profile file")->required();
  report->add_option("--view", rep.view, "top-down, bottom-up or flat")
      ->check(CLI::IsMember({"top-down", "bottom-up", "flat"}));
  report->add_option("--format", rep.format, "text or json")->check(CLI::IsMember({"text", "json"}));
  report->add_option("--limit", rep.limit, "Keep the N heaviest nodes and their ancestors (0: all)")
      ->check(kNonNegative);
  report->add_option("--metric", rep.metric, "Metric to order and limit by (default: the first)");
  report->add_flag("--by-rank", rep.by_rank,
                   "A distributed job's run folder: each rank's compute / communication / idle time and "
                   "each frame's values over the ranks (min, median, max), the steady state's and startup's apart");
  report->add_option("--symbol-path", rep.symbol_paths,
                     "Folder with the modules of a profile recorded elsewhere, matched by build id "
                     "(repeatable; also $STRATA_SYMBOL_PATH, colon-separated)")
      ->check(CLI::ExistingDirectory);

  AnalyzeCliOptions ana;
  CLI::App* analyze = app.add_subcommand("analyze", "Run the analyzers over a profile and print their findings");
  analyze->add_option("file", ana.file, "Profile file, or a run folder (a distributed job's ranks are compared)")->required();
  analyze->add_option("--format", ana.format, "text, json or sarif")->check(CLI::IsMember({"text", "json", "sarif"}));
  analyze->add_option("--rules", ana.rule_files, "A rule file (docs/analyzers.md); repeatable");
  analyze->add_option("--set", ana.settings, "RULE.PARAMETER=VALUE, e.g. hotspot.share=0.05; repeatable");
  analyze->add_option("--disable", ana.disabled, "A rule id not to run; repeatable");
  analyze->add_flag("--all-phases", ana.all_phases,
                    "Judge imports, model construction, compilation and warm-up too (default: the steady state)");
  analyze->add_option("--symbol-path", ana.symbol_paths, "As for report")->check(CLI::ExistingDirectory);

  RegionsOptions reg;
  CLI::App* regions = app.add_subcommand("regions", "Decode an in-kernel region buffer (docs/regions.md)");
  CLI::Option* reg_file = regions->add_option(
      "file", reg.file, "The raw buffer read back after the launch, or a profile recorded with --regions");
  CLI::Option* reg_list =
      regions->add_flag("--list", reg.list, "A profile: list its captured launches (index, kernel, correlation id, bytes)");
  regions->add_option("--launch", reg.launch, "A profile: decode its Nth captured launch (default 0)")
      ->check(kNonNegative)
      ->excludes(reg_list);
  regions->add_option("--proton", reg.proton, "A Triton kernel's Proton trace (name.chrome_trace) or name.hatchet")
      ->check(CLI::ExistingFile)
      ->excludes(reg_file);
  regions->add_option("--names", reg.names, "Region names: \"1=load;2=compute\"");
  regions->add_option("--names-file", reg.names_file, "A file with the names table (or a harness JSON sidecar)")
      ->check(CLI::ExistingFile);
  CLI::Option* reg_cal = regions->add_option("--calibration", reg.calibration,
                                             "A calibration buffer: replay removes its per-record cost")
                             ->check(CLI::ExistingFile);
  regions->add_option("--record-cost", reg.record_cost,
                      "Cycles one record costs, given outright (e.g. measured on this kernel); replay removes it")
      ->check(kPositive)
      ->excludes(reg_cal);
  regions->add_option("--start-cost", reg.start_cost,
                      "REGION=CYCLES[,...]: each start of the region (id or name) costs that on top of its records (a "
                      "software-pipelined k-step's wait: the other warps' markers its barrier waits for); replay removes it");
  regions->add_option("--step-region", reg.step_regions,
                      "With a --fit-*: fit one cost per step on top of --calibration's or --record-cost's per record; a "
                      "step is each start of these regions (ids or names, comma-separated)");
  CLI::Option* reg_fit_ref = regions->add_option(
      "--fit-reference", reg.fit_reference,
      "Fit the record cost on this kernel's own pair: a region buffer or Proton trace of the same kernel with "
      "--fit-region's markers only (its span without markers inside; several, comma-separated: their mean, a "
      "launch-to-launch spread averaged out); with --step-region, the per-step cost on top of "
      "--calibration's or --record-cost's per record")
                                   ->check(kExistingFiles);
  regions->add_option("--fit-region", reg.fit_region, "The region (id or name) --fit-reference compares")->needs(reg_fit_ref);
  regions->add_option("--fit-paced", reg.fit_paced,
                      "The paced fit (a warp-specialized pipeline: every step costs each role the pace-setting role's "
                      "records, each loop a constant): more traces of the kernel at another marker density or length, "
                      "comma-separated; with --fit-reference, --fit-region (the loops) and --step-region")
      ->needs(reg_fit_ref);
  regions->add_option("--fit-kernel-ns", reg.fit_kernel_ns,
                      "Fit the record cost on the kernel's time plain and instrumented (ns, e.g. CUPTI's): PLAIN,INSTRUMENTED")
      ->delimiter(',')
      ->expected(2)
      ->excludes(reg_fit_ref);
  regions->add_option("--format", reg.format, "text, json or chrome (Chrome/Perfetto trace); with --critical-path: text, json or sarif")
      ->check(CLI::IsMember({"text", "json", "chrome", "sarif"}));
  regions->add_flag("--critical-path", reg.critical_path,
                    "Overlap analysis: dependency edges between lanes, the critical path, bubbles, each lane's "
                    "compute/load/wait shares, the SWP/WS model's prediction and its findings");
  regions->add_option("-o,--output", reg.output, "Write here instead of stdout (atomically)");
  regions->add_option("--cycles-per-ns", reg.cycles_per_ns, "The device's clock64 rate (SM clock kHz / 1e6); default: measured")
      ->check(kPositive);

  SassOptions sas;
  CLI::App* sass = app.add_subcommand("sass", "Embed the SASS listings of a profile's GPU code (runs nvdisasm)");
  sass->add_option("file", sas.file, "Profile file")->required();
  sass->add_option("--nvdisasm", sas.nvdisasm,
                   "nvdisasm to run (default: $STRATA_NVDISASM, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)");

  ExportOptions exp;
  CLI::App* export_cmd = app.add_subcommand("export", "Write a profile for another tool: its calling context tree, or its GPU activity and region timelines");
  export_cmd->add_option("file", exp.file, "Profile file, or a distributed job's run folder (chrome or perfetto: its ranks on one timeline; chrome also from one rank's profile)")->required();
  // Not checked with IsMember here: the core names the known formats in its one-line error.
  export_cmd->add_option("--format", exp.format, "pprof (gzipped profile.proto), speedscope (JSON), perfetto (protobuf trace of the GPU activity timeline and the in-kernel region launches) or chrome (Trace Event JSON of the GPU activity timeline)")
      ->required();
  export_cmd->add_option("-o,--output", exp.output, "File to write (atomically)")->required();
  export_cmd->add_option("--symbol-path", exp.symbol_paths, "As for report")->check(CLI::ExistingDirectory);

  ImportOptions imp;
  CLI::App* import_cmd = app.add_subcommand("import", "Turn a pprof profile, a speedscope file or a PyTorch-profiler (Kineto) trace into a Strata profile");
  import_cmd->add_option("trace", imp.trace, "A pprof profile (.pb.gz), a speedscope .json, or the trace (.json) torch.profiler exported")->required();
  import_cmd->add_option("-o,--output", imp.output, "Profile to write (atomically)")->required();

  DiffOptions dif;
  CLI::App* diff_cmd = app.add_subcommand("diff", "Compare two runs: the call paths whose time grew or shrank most");
  diff_cmd->add_option("a", dif.a, "The profile before")->required();
  diff_cmd->add_option("b", dif.b, "The profile after")->required();
  diff_cmd->add_option("--metric", dif.metric, "Metric to compare (default: the first additive metric both have)");
  diff_cmd->add_option("--limit", dif.limit, "Rows to show (0: all)")->check(kNonNegative);
  diff_cmd->add_option("--symbol-path", dif.symbol_paths, "As for report")->check(CLI::ExistingDirectory);

  ReplayCliOptions rpl;
  CLI::App* replay_cmd = app.add_subcommand("replay", "Launch a snapped kernel alone: restore its memory, compare its outputs, time it");
  replay_cmd->add_option("file", rpl.file, "Snapshot file (strata record --snap)")->required();
  replay_cmd->add_option("--repeat", rpl.repeat, "Timed launches, each after restoring the memory but with --l2 back-to-back (default 20)")
      ->check(CLI::Range(0, 1000000));
  replay_cmd->add_option("--rtol", rpl.rtol, "Relative tolerance for differing outputs (default 0: bit-exact)")->check(kNonNegative);
  replay_cmd->add_option("--atol", rpl.atol, "Absolute tolerance for differing outputs (default 0)")->check(kNonNegative);
  replay_cmd->add_option("--dtype", rpl.dtype, "How differing bytes are read for the tolerance: f32, f16 or bf16")
      ->check(CLI::IsMember({"f32", "f16", "bf16"}));
  replay_cmd->add_flag("--any-driver", rpl.any_driver, "Replay a snapshot taken under another CUDA driver version");
  replay_cmd->add_flag("--info", rpl.info, "Print what the snapshot holds (kernel, launch, parameters, regions) and stop; no GPU needed");
  replay_cmd->add_flag("--relocate", rpl.relocate,
                       "Place the memory anywhere and patch the pointers the snap found (default: the snapped addresses)");
  replay_cmd->add_option("--l2", rpl.l2,
                         "The L2 a timed launch finds: clean (default: the restore copy's dirty lines written back first), "
                         "restored (what the restore copy left), back-to-back (restored once, the previous launch's lines), "
                         "prelude (the launches before it on its stream in the run, replayed first)")
      ->check(CLI::IsMember({"restored", "clean", "back-to-back", "prelude"}));
  replay_cmd->add_option("--pc-sampling", rpl.pc_sampling, "PC sampling with stall reasons on the replay, as for record")
      ->expected(0, 1)
      ->default_str("continuous")
      ->check(CLI::IsMember({"continuous", "serialized"}));
  replay_cmd->add_option("--regions", rpl.regions,
                         "In-kernel regions of the replayed kernel (built with strata/regions.cuh), as for record")
      ->expected(0, 1)
      ->default_str("all");
  replay_cmd->add_flag("--alone", rpl.alone,
                       "Launch the snapped kernel only: no wait kernel before each timed launch (times then include the "
                       "launch latency), no empty kernel for the floor (--pc-sampling and --regions replay so)");
  replay_cmd->add_option("-o,--output", rpl.output,
                         "With --pc-sampling or --regions: the replay's profile (default ./strata-<time>.strata)");

  TraceOptions trc;
  CLI::App* trace_cmd = app.add_subcommand("trace", "Single-step one warp of a snapped kernel under cuda-gdb (on strata replay): the executed SASS");
  trace_cmd->add_option("file", trc.file, "Snapshot file (strata record --snap); not needed with --from-log");
  trace_cmd->add_option("-o,--output", trc.output, "Trace file (default FILE.trace.json)");
  trace_cmd->add_option("--max-instructions", trc.max_instructions, "Instructions to step at most (default 2000)")->check(CLI::Range(1L, 10000000L));
  trace_cmd->add_option("--block", trc.block, "The block, x,y,z (default 0,0,0)");
  trace_cmd->add_option("--warp", trc.warp, "The warp inside the block (default 0)")->check(CLI::Range(0L, 1024L));
  trace_cmd->add_option("--cuda-gdb", trc.cuda_gdb, "cuda-gdb to use (default: on PATH, then /usr/local/cuda/bin)");
  trace_cmd->add_option("--nvdisasm", trc.nvdisasm, "nvdisasm for the operand table (default: as strata sass finds it)");
  trace_cmd->add_option("--log", trc.log, "Keep cuda-gdb's log here (and its own output in LOG.out)");
  trace_cmd->add_option("--from-log", trc.from_log, "Make the trace from a log kept before (--log); runs nothing");

  SassDepsOptions sdp;
  CLI::App* sass_deps = app.add_subcommand("sass-deps", "A kernel's SASS dependencies: asynchronous copies paired with their waits, stalled or with slack, and copies to issue earlier");
  sass_deps->add_option("profile", sdp.profile, "Profile with GPU code (cubins, listings) and PC samples");
  sass_deps->add_option("--cubin", sdp.cubin, "Cubin file (control bits), with --sass")->check(CLI::ExistingFile);
  sass_deps->add_option("--sass", sdp.sass, "nvdisasm -c -gi listing of the cubin")->check(CLI::ExistingFile);
  sass_deps->add_option("--kernel", sdp.kernel, "Kernel (substring of its name); default: every kernel with an asynchronous-copy wait");
  sass_deps->add_option("--trace", sdp.trace, "Trace file (strata trace): per-instruction issue and stall from the timing model")->check(CLI::ExistingFile);
  sass_deps->add_option("--threads", sdp.threads, "Threads per block (default: the cubin's launch bounds)");
  sass_deps->add_option("--dynamic-shared", sdp.dynamic_shared, "Dynamic shared memory per block, bytes");
  sass_deps->add_option("--stalled-share", sdp.stalled_share, "Share of the kernel's PC samples that makes a wait stalled (default 0.05)")->check(CLI::Range(0.0, 1.0));
  sass_deps->add_option("--format", sdp.format, "text, json, or chrome (the timing model's timeline of --trace)")
      ->check(CLI::IsMember({"text", "json", "chrome"}));
  sass_deps->add_flag("--graph", sdp.graph, "Every instruction with its control bits and dependency edges");

  // `strata record [options] -- CMD ARGS...`: everything after the first -- is the target's,
  // split off here (CLI11's handling of -- with prefix commands is not faithful).
  std::vector<std::string> after_dashes;
  bool has_dashes = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--") {
      has_dashes = true;
      for (int j = i + 1; j < argc; ++j) after_dashes.emplace_back(argv[j]);
      argc = i;
      break;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string where = record->parsed() ? " record" : report->parsed() ? " report" : analyze->parsed() ? " analyze" : regions->parsed() ? " regions" : sass->parsed() ? " sass" : export_cmd->parsed() ? " export" : import_cmd->parsed() ? " import" : diff_cmd->parsed() ? " diff" : replay_cmd->parsed() ? " replay" : trace_cmd->parsed() ? " trace" : sass_deps->parsed() ? " sass-deps" : "";
    std::fprintf(stderr, "strata: %s (see 'strata%s --help')\n", e.what(), where.c_str());
    return kExitUsage;
  }
  try {
    if (record->parsed()) {
      const auto extras = record->remaining();
      if (program.empty() && !extras.empty() && extras[0].size() > 1 && extras[0][0] == '-') {
        std::fprintf(stderr, "strata: The following argument was not expected: %s (see 'strata record --help')\n",
                     extras[0].c_str());
        return kExitUsage;
      }
      if (!program.empty()) rec.command.push_back(program);
      for (const auto& extra : extras) rec.command.push_back(extra);
      for (const auto& arg : after_dashes) rec.command.push_back(arg);
      if (rec.command.empty()) {
        std::fprintf(stderr, "strata: record needs a command: strata record [-o FILE] -- CMD ARGS...\n");
        return kExitUsage;
      }
      return RunRecord(rec);
    }
    if (has_dashes) {
      std::fprintf(stderr, "strata: unexpected '--' (see 'strata report --help')\n");
      return kExitUsage;
    }
    if (analyze->parsed()) return RunAnalyze(ana);
    if (regions->parsed()) {
      if (reg.file.empty() && reg.proton.empty()) {
        std::fprintf(stderr, "strata regions: give a region buffer or --proton FILE\n");
        return kExitUsage;
      }
      return RunRegions(reg);
    }
    if (sass->parsed()) return RunSass(sas);
    if (export_cmd->parsed()) return RunExport(exp);
    if (import_cmd->parsed()) return RunImport(imp);
    if (diff_cmd->parsed()) return RunDiff(dif);
    if (replay_cmd->parsed()) return RunReplay(rpl);
    if (trace_cmd->parsed()) return RunTrace(trc);
    if (sass_deps->parsed()) return RunSassDeps(sdp);
    return RunReport(rep);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "strata: %s\n", e.what());
    return kExitError;
  }
}
