// The per-record cost from a calibration trace (strata/region_decoder/calibration.h).
#include "strata/region_decoder/calibration.h"

namespace strata::region_decoder {

double CalibrateRecordCost(const Trace& cal) {
  if (cal.lanes.size() != 1) return 0;
  int64_t d1 = -1, d2 = -1;
  uint32_t s2 = 0, e2 = 0;
  for (const Interval& iv : cal.intervals) {
    if (iv.unmatched) continue;
    if (iv.region == kCalibBaseline) d1 = iv.end_cycles - iv.start_cycles;
    if (iv.region == kCalibMarked) {
      d2 = iv.end_cycles - iv.start_cycles;
      s2 = iv.start_index;
      e2 = iv.end_index;
    }
  }
  if (d1 < 0 || d2 < 0) return 0;
  uint64_t pairs = 0;
  for (const Interval& iv : cal.intervals)
    if (iv.region == 0 && !iv.unmatched && iv.start_index > s2 && iv.end_index < e2) ++pairs;
  if (pairs == 0) return 0;
  return double(d2 - d1) / (2.0 * double(pairs));
}
}  // namespace strata::region_decoder
