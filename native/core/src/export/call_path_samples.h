// The calling context tree as the sample lists stack-sample formats want: one sample per tree
// node that holds self values, with its call path and those values. What pprof and speedscope
// exports share.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "strata/core/api.h"

namespace strata::core::detail {

struct CallPathSample {
  std::vector<uint32_t> path;  // frame_table indices, outermost first (the root left out)
  std::vector<double> values;  // self value per CallPathSamples::metrics entry
};

struct CallPathSamples {
  // Metrics as samples can carry them: additive ones only, since a sample format sums values
  // along paths and an attribute's sum (grid size, occupancy) means nothing.
  std::vector<size_t> metrics;  // indices into Profile::metrics()
  std::shared_ptr<const std::vector<FrameInfo>> frames;
  std::vector<CallPathSample> samples;  // nodes with a nonzero self value, in preorder
};

// Every frame as recorded (FrameFilter::kAll), native frames symbolized.
CallPathSamples CollectCallPathSamples(const Profile& profile);

// A frame's name in a foreign format, which has names, files and lines only: its name, its kind
// where it has none ("[thread]"), and for a fused kernel's frame the lines it computes after the
// name ("fused (2 lines): m.py:20, m.py:19"): text for the people reading pprof or speedscope,
// which no Strata layer reads back (a Strata profile keeps the lines typed).
std::string ExportFrameName(const FrameInfo& f);

}  // namespace strata::core::detail
