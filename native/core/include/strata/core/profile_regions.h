// In-kernel region buffers carried by a profile (issue 7): `strata record --regions` keeps each
// captured launch's raw buffer as a blob of kind `region_buffer` (docs/profile-format.md "Blobs")
// on a ModuleRecord `regions:<mangled kernel>#<correlation id>`, and puts the decoded regions
// under the kernel's node as `region` frames (address = region id, name = its name). This lists
// those launches and gives back what decoding one again needs: the bytes, the names (from the
// region frames) and the clock rate the runtime used (recovered from the profile's metrics).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "strata/core/regions.h"

namespace strata::core::regions {

struct CapturedLaunch {
  size_t index = 0;             // 0, 1, ... in the order of the profile's blobs
  std::string kernel;           // demangled (as the flame graph shows it)
  std::string mangled;          // as recorded (the module path's kernel part)
  uint64_t correlation_id = 0;  // CUPTI's, of the launch
  std::string module;           // "regions:<mangled>#<correlation id>"
  std::string bytes;            // the raw buffer (docs/regions.md "The buffer")
  // How the runtime decoded it (blob kind region_info, when the runtime wrote one): DecodeLaunch
  // uses these unless the caller gives its own.
  double cycles_per_ns = 0, record_cost_cycles = 0;
  std::string names_table;      // the module's "id=name;..." table
};

struct ProfileRegions {
  std::vector<CapturedLaunch> launches;
  // Region id -> name from the profile's region frames (" (iteration)" taken off; the runtime's
  // placeholder "region N" left out). Empty when the profile has no region frames.
  std::map<uint16_t, std::string> names;
  // clock64 cycles per ns of the launches the runtime could not measure a rate for (it used the
  // device's SM clock attribute, which the profile does not store): recovered as the launches'
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
// "bytes"}], "names": {"1": "kernel", ...}, "cycles_per_ns": r}.
std::string LaunchesToJson(const ProfileRegions& regions);

}  // namespace strata::core::regions
