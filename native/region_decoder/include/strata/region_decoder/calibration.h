// The per-record cost of a marker, measured by the calibration kernel
// (strata::regions::CalibrationKernel in regions.cuh), which replay takes out of every interval.
#pragma once

#include "strata/region_decoder/trace.h"

namespace strata::region_decoder {

// Cycles per record from a decoded calibration buffer: (D2 - D1) / (2n) with D1, D2 the raw
// spans of regions 1 and 2 and n the start/end pairs of region 0 inside region 2. Returns 0
// when the trace is not a calibration trace.
double CalibrateRecordCost(const Trace& calibration);

}  // namespace strata::region_decoder
