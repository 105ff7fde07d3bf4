// In-kernel region launches carried by a profile: `strata record --regions` keeps each captured
// launch (kernel, correlation id, how the runtime decoded it, the kernel's region names, the raw
// buffer) in the region launches section (docs/profile-format.md), and puts the decoded regions
// under the kernel's node as `region` frames (address = region id). Profiles written before
// that section are read too (their blobs and frame name suffixes converted in one place,
// src/regions/legacy_region_form.cpp). This lists the launches and gives back what decoding one
// again needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "strata/core/regions.h"

namespace strata::core::regions {

struct CapturedLaunch {
  size_t index = 0;             // 0, 1, ... in the order the profile stores them
  std::string kernel;           // demangled (as the flame graph shows it)
  std::string mangled;          // as launched
  uint64_t correlation_id = 0;  // CUPTI's, of the launch
  uint32_t sm_clock_khz = 0;    // the device's SM clock attribute (0: unknown, as in older profiles)
  // How the runtime decoded it (0: not recorded): DecodeLaunch uses these unless the caller
  // gives its own.
  double cycles_per_ns = 0, record_cost_cycles = 0;
  RegionNames names;            // the kernel's region names, as the runtime had them
  std::string bytes;            // the raw buffer (docs/regions.md "The buffer")
};

struct ProfileRegions {
  std::vector<CapturedLaunch> launches;
  // Region id -> name: the launches' names, then the profile's region frames (their names and
  // marker lines; the runtime's placeholder "region N" left out). Empty when there are neither.
  RegionNames names;
  // clock64 cycles per ns of the launches the runtime could not measure a rate for (it used the
  // device's SM clock attribute, which older profiles do not store): recovered as the launches'
  // raw cycles over the profile's `region_raw_time` total. 0 when no launch needs it or the
  // profile has no such metric.
  double cycles_per_ns = 0;
};

// Whether the bytes start like a Strata profile ("STRATAPF").
bool LooksLikeProfile(const unsigned char* data, size_t size);
bool FileLooksLikeProfile(const std::string& path);

// Validates the profile (throws core::Error with one line on a bad file) and collects its
// region buffers; a profile without any gives an empty `launches`.
ProfileRegions ReadProfileRegions(const unsigned char* data, size_t size);
ProfileRegions ReadProfileRegions(const std::string& profile_path);

// Decodes one captured launch as the runtime did: `options` as given, and, when they give no
// rate and the buffer alone has none (`no_clock_rate`), with `regions.cycles_per_ns`.
Trace DecodeLaunch(const ProfileRegions& regions, size_t launch, const DecodeOptions& options = {});

// JSON of the launches: {"launches": [{"index", "kernel", "mangled", "correlation_id",
// "bytes"}], "regions": [{"id": 3, "name": "load", "file": "kernels.cuh", "line": 75}, ...],
// "cycles_per_ns": r} (file and line where the names gave the marker's location).
std::string LaunchesToJson(const ProfileRegions& regions);

}  // namespace strata::core::regions
