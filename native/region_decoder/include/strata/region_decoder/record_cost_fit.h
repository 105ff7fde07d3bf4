// The record cost of one kernel, fitted on its own plain / instrumented pair. The calibration
// kernel's cost (calibration.h) is what a record costs a warp alone; in a full block the other
// warps' markers and the barriers that make a warp wait for them cost more, and differently per
// kernel (docs/benchmarks.md: 30-85 cycles a record in the GEMMs against 14.7 alone). Two forms:
// - per record: replay takes c out per record;
// - per step: each record costs the start-up constant c0 (its own instructions), and each step
//   (a start of one of `step_regions`, e.g. a k-step's wait) costs s more: the other warps' marker
//   code that the step's barrier waits for (a software-pipelined kernel, where every warp meets
//   every other at each k-step). Replayed as a start cost of those regions (StartCosts).
// Two references for "plain":
// - a region's span without markers inside, per lane group: the plain build's clock64 around a
//   loop, or a trace of the same kernel recorded with that region's markers only (Proton: the
//   loop scope alone). The fit pools the lane groups (least squares over lanes).
// - the kernel's time plain and instrumented (e.g. CUPTI): the extra time is taken to be that of
//   the lane that ends last, over its records; anything else the markers cost (the lanes'
//   set-up and write-back) counts as records, so this form over-estimates a little.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "strata/region_decoder/trace.h"

namespace strata::region_decoder {

struct RecordCostFitOptions {
  std::vector<uint16_t> step_regions;  // not empty: the per-step form, steps = starts of these
  double startup_cost_cycles = 0;      // per-step form: each record's own cost (CalibrateRecordCost)
};

struct RecordCostFit {
  double record_cost_cycles = 0;  // per record (the start-up constant in the per-step form)
  double step_cost_cycles = 0;    // per step (per-step form)
  std::vector<uint16_t> step_regions;
  double extra_cycles = 0;        // what the markers added, mean per lane read
  double records = 0, steps = 0;  // records and steps in what was compared, mean per lane read
  size_t lanes = 0;               // lanes read
  std::string error;              // non-empty: no fit, one line saying why
  bool ok() const { return error.empty(); }
  // What decode takes (the rate and the rest unchanged).
  void ApplyTo(DecodeOptions& options) const;
};

// A reference's span of a region in one lane group: raw cycles, and the records inside it (its own
// start and any within: a reference trace's own markers, which replay would take out too; 0 for
// the plain build's clock64).
struct ReferenceSpan {
  double cycles = 0;
  double records = 0;
};
using ReferenceSpans = std::map<uint32_t, ReferenceSpan>;  // lane group -> span

// The region's raw span and records inside, mean per lane group (LaneMeta::group: a warp group,
// Proton's warp), over the lanes' matched, non-iteration intervals of `region`.
ReferenceSpans MeanRegionSpans(const Trace& trace, uint16_t region);

// Fits to a reference of the region's span per lane group (MeanRegionSpans of the reference
// trace, or the plain build's clock64 spans): the records the instrumented span holds beyond the
// reference's cost what it adds. `instrumented` decoded without replay.
RecordCostFit FitRecordCostToRegion(const Trace& instrumented, uint16_t region,
                                    const ReferenceSpans& reference,
                                    const RecordCostFitOptions& options = {});
// Several regions pooled into one cost (a warp-specialized kernel's producer and consumer loops):
// region -> its reference per lane group.
RecordCostFit FitRecordCostToRegions(const Trace& instrumented,
                                     const std::map<uint16_t, ReferenceSpans>& references,
                                     const RecordCostFitOptions& options = {});

// Fits to the kernel's time plain and instrumented (ns); `instrumented` is a trace of the
// instrumented kernel (decoded without replay, its clock rate known).
RecordCostFit FitRecordCostToKernelTime(const Trace& instrumented, double plain_ns, double instrumented_ns,
                                        const RecordCostFitOptions& options = {});

// The paced form, for a warp-specialized pipeline whose roles hand off every step (a producer
// waiting for free slots, consumers for full ones): every lane's step costs c times the records
// per step of the role that sets the pace (the fit region with the most records per step beyond
// its reference's), and each instance of a fit region a constant of its own (what instrumenting
// the loop costs once). The constants and c separate only across traces whose pace differs: fit
// on two or more instrumented traces of the kernel (two marker densities, or two lengths)
// against one reference. On the H100's Gluon attention: 12.8 cycles a consumer record and step,
// ~1,000 / ~800 cycles a consumer / producer loop (docs/benchmarks.md).
struct PacedFit {
  double pace_record_cycles = 0;          // c
  std::map<uint16_t, double> region_constant_cycles;  // per fit region: a
  std::vector<uint16_t> step_regions;
  size_t lanes = 0;                       // region instances read, all traces
  std::string error;                      // non-empty: no fit
  bool ok() const { return error.empty(); }
};
PacedFit FitPacedRecordCost(const std::vector<const Trace*>& instrumented,
                            const std::map<uint16_t, ReferenceSpans>& references,
                            const std::vector<uint16_t>& step_regions);
// The start costs that replay `trace` with the paced model: each step c x the trace's own pace
// (records per step of its pace-setting fit region beyond the reference's), each fit region its
// constant. No record cost besides.
StartCosts PacedStartCosts(const Trace& trace, const PacedFit& fit, const std::map<uint16_t, ReferenceSpans>& references);

}  // namespace strata::region_decoder
