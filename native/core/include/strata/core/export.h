// Exporting a profile's calling context tree to other tools' formats.
#pragma once

#include <string>

#include "strata/core/api.h"

namespace strata::core {

enum class ExportFormat {
  kPprof,       // gzipped profile.proto: one sample type per additive metric
  kSpeedscope,  // speedscope's file format: one sampled profile per additive metric
  kChrome,      // Chrome Trace Event JSON of GPU activity (needs activity times; see ExportProfile)
};

// "pprof" | "speedscope" | "chrome"; throws Error naming the known formats otherwise.
ExportFormat ParseExportFormat(const std::string& name);
const char* ExportFormatName(ExportFormat format);

// The profile in `format`, as the bytes of the output file. Throws Error (one line) when the
// format cannot represent the profile: kChrome always does today, because the calling context
// tree keeps per-call-path totals, not the start time and stream of each kernel.
std::string ExportProfile(const Profile& profile, ExportFormat format);

// ExportProfile written to `path` atomically (temporary file in the same folder, then rename):
// on any error `path` is left as it was. Throws Error (one line).
void ExportProfileToFile(const Profile& profile, ExportFormat format, const std::string& path);

}  // namespace strata::core
