// Proton import (issue 7, part 4): Triton kernels recorded with Triton's own in-kernel
// instrumentation (`triton.profiler.language.enter_scope/exit_scope`, `proton.start(name,
// backend="instrumentation", data="trace")`) come in as the same decoded structure that Strata's
// region buffers decode to (regions::Trace), so `strata regions`, its exports and the timeline
// view show them unchanged.
//
// What Proton writes (`name.chrome_trace`): one complete event ("ph":"X") per scope instance,
// process "<kernel> Core<SM> CTA<block>", thread "warp <w> (line <l>)" (the line only spreads
// overlapping scopes for display), `ts` and `dur` in µs on an axis that assumes its "Frequency
// (MHz)" (1000): a block's start is the globaltimer gap to the first block, and offsets inside a
// block are clock cycles. With the device's real rate (`cycles_per_ns`) the offsets become ns.
//
// The default data (`name.hatchet`) is a tree of scopes with cycles; it has no timeline and is
// read as a table (ImportProtonHatchet).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "strata/core/regions.h"

namespace strata::core::regions {

struct ProtonImportOptions {
  // The SM clock in cycles per ns (1.98 on the H100 here). 0: keep Proton's axis (1 cycle = 1 ns
  // at its 1000 MHz), reported as `no_clock_rate`.
  double cycles_per_ns = 0;
};

struct ProtonTrace {
  Trace trace;                              // lanes: one per (kernel, CTA, warp); no replay (ReplayProtonTrace)
  RegionNames names;                        // region id (first seen order, from 1) -> scope name
  std::vector<std::string> kernels;         // kernel names, first seen order
  std::vector<uint32_t> lane_kernel;        // per lane: index into kernels
  double proton_mhz = 0;                    // the frequency Proton assumed
  bool ok = false;                          // false: nothing readable (trace.issues says why)
};

// Parses Proton's chrome trace (the text of `name.chrome_trace`, or that file gzipped). Never throws: what cannot be read
// is an issue (bad_header: not JSON or no traceEvents; empty: no scope events; truncated: events
// without ts/dur/name, skipped; no_clock_rate: see above).
ProtonTrace ImportProtonTrace(const std::string& text, const ProtonImportOptions& options = {});
ProtonTrace ImportProtonFile(const std::string& path, const ProtonImportOptions& options = {});

// Replay (as the decoder does for region buffers): each record costs `record_cost_cycles`, each
// enter of a scope in `start_costs` (by region id) that much more (record_cost_fit.h); a scope's
// replayed times take out what the records before its enter / exit cost. Records are in the
// order the warp wrote them (Interval::start_index / end_index). Replaying again replaces the
// earlier cost.
void ReplayProtonTrace(ProtonTrace& proton, double record_cost_cycles, const StartCosts& start_costs = {});

// True when the text looks like Proton's chrome trace (cheap check of the first bytes and pids).
bool LooksLikeProtonTrace(const std::string& text);

// ToJson of the trace plus "source": "proton", "kernels" and each lane's "kernel".
std::string ProtonToJson(const ProtonTrace& proton);

// Proton's default data: one row per scope path with its numeric metrics (cycles, count, ...).
struct HatchetRow {
  std::string path;                  // "kernel/loop/load"
  uint32_t depth = 0;
  std::map<std::string, double> metrics;
};
struct HatchetTable {
  std::vector<HatchetRow> rows;      // depth first
  std::string error;                 // non-empty: not a hatchet file
};
HatchetTable ImportProtonHatchet(const std::string& text);
// {"source": "proton-hatchet", "rows": [{path, depth, metrics}]}
std::string HatchetToJson(const HatchetTable& table);

}  // namespace strata::core::regions
