// What a viewer asks of the region decoder: "decode this buffer / Proton trace / captured launch
// of a profile, with these names (or this names file), this clock rate, this calibration",
// answered with the decoded trace and its typed names, or one line saying why not. The addon (timeline view) calls this; the
// CLI's `strata regions` keeps its own option handling.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "strata/core/profile_regions.h"
#include "strata/core/record_cost.h"
#include "strata/core/regions.h"

namespace strata::core::regions {

enum class TraceSource {
  kBuffer,         // a raw region buffer read back after a launch (docs/regions.md)
  kProton,         // Triton's Proton chrome trace
  kProfileLaunch,  // captured launch `launch` of a profile recorded with `strata record --regions`
};

struct TraceRequest {
  TraceSource source = TraceSource::kBuffer;
  std::string path;
  size_t launch = 0;          // kProfileLaunch
  std::string names;          // "id=name;..." (kBuffer, kProfileLaunch: these win over the profile's)
  std::string names_file;     // a names file (names_file.h): its names after `names`, before the
                              // profile's; its clock rate where cycles_per_ns is 0
  double cycles_per_ns = 0;   // 0: from the names file, the buffer (or the runtime's, or Proton's 1 GHz axis)
  RecordCostRequest cost;     // what replay takes out (a calibration buffer, a cost, a fit)
};

struct RequestedTrace {
  Trace trace;
  RegionNames names;  // the request's table first, then its names file's, then the profile's names
  // Proton: the kernels, and per lane an index into them; empty otherwise.
  std::vector<std::string> kernels;
  std::vector<uint32_t> lane_kernel;
  // Why `names_file` could not be used (one line, without the path); the trace was decoded
  // without it. Empty when it was used or none was given.
  std::string names_file_error;
  AppliedRecordCost record_cost;  // what replay took out (its note: one line for the reader)
};

// Decodes what `request` names. Throws Error with one line ("<path>: bad_header: ...", "<path>:
// no launch 3 (...)") when nothing decodable comes out.
RequestedTrace DecodeRequest(const TraceRequest& request);

// Throws Error ("<path>: no region buffers in this profile (...)") when `regions` has no launch.
void RequireRegionBuffers(const ProfileRegions& regions, const std::string& path);

// The captured launches of one kernel frame (its name as the views show it, demangled, or
// the mangled one), in the profile's order.
std::vector<size_t> LaunchesOfKernel(const ProfileRegions& regions, const std::string& kernel_name);

}  // namespace strata::core::regions
