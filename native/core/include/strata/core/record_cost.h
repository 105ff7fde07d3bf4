// What replay takes out of a trace, as a viewer or the CLI asks for it (docs/regions.md, "Replay
// and the record cost"): a cost per record given outright or read off a calibration buffer
// (CalibrationKernel: a warp alone), a cost per step on top (the other warps' markers that each
// step's barrier waits for), or both fitted on the kernel's own plain / instrumented pair
// (record_cost_fit.h): against a reference trace of the same kernel that holds the fit region
// with no markers inside, or against the kernel's plain and instrumented times. Region buffers
// (and a profile's captured launches) and Proton traces alike.
#pragma once

#include <functional>
#include <string>

#include "strata/core/proton_import.h"
#include "strata/core/regions.h"

namespace strata::core::regions {

struct RecordCostRequest {
  double record_cost_cycles = 0;  // per record, given outright
  std::string calibration;        // a CalibrationKernel buffer: its cost per record (not with the above)
  std::string start_costs;        // "REGION=CYCLES,...": each start of a region (id or name) costs that more
  // The fit (replaces the per-record cost; with step_regions, finds one cost per step on top of
  // the per-record cost given above, the start-up constant):
  std::string step_regions;       // "R,R": a step is each start of one of these (ids or names)
  std::string fit_reference;      // a region buffer or Proton trace of the same kernel (several,
                                  // comma-separated: launches of it, their mean span per lane group) ...
  std::string fit_region;         // ... holding these regions (ids or names, comma-separated: pooled)
                                  // with no markers inside
  double fit_plain_ns = 0;        // or: the kernel's time plain and instrumented
  double fit_instrumented_ns = 0;
  // The paced form (record_cost_fit.h, PacedFit): more instrumented traces of the kernel at
  // another marker density or length (comma-separated paths, the same kind as the one decoded),
  // fitted with it against fit_reference; needs fit_region (the loops) and step_regions.
  std::string fit_paced_with;
  bool Fits() const { return !fit_reference.empty() || fit_plain_ns > 0 || fit_instrumented_ns > 0 || !fit_paced_with.empty(); }
};

// What was replayed with, for the reader: "record cost 43.4 cycles (fitted on ...)".
struct AppliedRecordCost {
  double record_cost_cycles = 0;
  StartCosts start_cost_cycles;
  bool fitted = false;
  RecordCostFit fit;   // when fitted (per record or per step)
  PacedFit paced;      // when fitted in the paced form
  std::string note;    // one line describing it; empty when nothing is replayed
};

// A region buffer or a profile's captured launch: `decode` decodes it with the options given
// (the rate and the rest already set in `base`). Returns the options to decode with (fitting
// first when asked, on a decode without replay). Throws Error with one line when the request
// cannot be used (both a calibration and a cost, a region that is not there, a fit that fails).
DecodeOptions ResolveBufferRecordCost(const RecordCostRequest& request, const RegionNames& names, DecodeOptions base,
                                      const std::function<Trace(const DecodeOptions&)>& decode,
                                      AppliedRecordCost* applied = nullptr);

// A Proton trace, imported without replay: fits when asked and replays it in place
// (ReplayProtonTrace). Regions are named by their scope names. Throws Error as above.
AppliedRecordCost ApplyProtonRecordCost(const RecordCostRequest& request, ProtonTrace& proton);

}  // namespace strata::core::regions
