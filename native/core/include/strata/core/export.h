// Exporting a profile's calling context tree to other tools' formats.
#pragma once

#include <string>

#include "strata/core/api.h"

namespace strata::core {

enum class ExportFormat {
  kPprof,       // gzipped profile.proto: one sample type per additive metric
  kSpeedscope,  // speedscope's file format: one sampled profile per additive metric
  kPerfetto,    // Perfetto protobuf trace of what has times: GPU activities, region launches
  kChrome,      // Chrome Trace Event JSON of the GPU activity timeline
};

// "pprof" | "speedscope" | "perfetto" | "chrome"; throws Error naming the known formats otherwise.
ExportFormat ParseExportFormat(const std::string& name);
const char* ExportFormatName(ExportFormat format);

// The profile in `format`, as the bytes of the output file. kPerfetto and kChrome also read the
// GPU activities (and kPerfetto the region launches) of the file at `profile_path` (the file
// `profile` was opened from). Throws Error (one line) when the format cannot represent the
// profile: the calling context tree keeps per-call-path totals, not the start time and stream of
// each kernel, so kChrome needs the GPU activity timeline and kPerfetto it or region launches.
std::string ExportProfile(const Profile& profile, ExportFormat format, const std::string& profile_path = {});

// ExportProfile written to `path` atomically (temporary file in the same folder, then rename):
// on any error `path` is left as it was. Throws Error (one line).
void ExportProfileToFile(const Profile& profile, ExportFormat format, const std::string& path,
                         const std::string& profile_path = {});

}  // namespace strata::core
