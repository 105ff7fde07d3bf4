// The profile's GPU activity timeline (its GPU activities section) as the exporters use it: the
// records in host time (the header's clock readings map the tracer's clock onto CLOCK_REALTIME)
// with their kernel names, and what the runtime dropped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/api.h"
#include "strata/format/layout.h"

namespace strata::core::detail {

struct GpuTimelineRecord {
  uint64_t start_ns = 0, end_ns = 0;  // host time (unix ns) when the clock relation is known
  strata::format::GpuActivityKind kind = strata::format::GpuActivityKind::kKernel;
  uint32_t device = 0, context = 0, stream = 0, correlation_id = 0;
  uint32_t node = 0;                  // stored tree node (the kernel / memcpy / memset frame's)
  std::string mangled;                // kernels: the name as launched
  strata::format::GpuCopyKind copy_kind = strata::format::GpuCopyKind::kOther;
  uint64_t bytes = 0;
  uint32_t grid[3] = {}, block[3] = {};
};

struct GpuTimeline {
  bool present = false;               // the profile has the section (version this core reads)
  std::vector<GpuTimelineRecord> records;  // records of known kinds, in stored order
  uint64_t dropped = 0, limit = 0;
  bool host_clock = false;            // times were mapped to host time (else: the tracer's clock)
};

// Throws Error (one line) for a file that does not parse or a section of a newer version.
GpuTimeline ReadGpuTimeline(const unsigned char* data, size_t size);
GpuTimeline ReadGpuTimeline(const std::string& profile_path);

// "memcpy HtoD", ... (what the runtime names a copy's frame).
const char* CopyKindName(strata::format::GpuCopyKind kind);
// "kernel", "memcpy", "memset".
const char* ActivityKindName(strata::format::GpuActivityKind kind);

// The exporters' names and paths, from a top-down view of the profile built with FrameFilter::kAll
// (its `landing` maps stored nodes to view nodes).
// A record's display name: the kernel frame's (demangled) name, or the copy's / set's.
std::string SliceName(const View& view, const GpuTimelineRecord& record);
// The launch's call path: the view nodes above the record's node, outermost first, root left
// out (empty when the node is not in the view).
std::vector<size_t> LaunchPath(const View& view, uint32_t node);

}  // namespace strata::core::detail
