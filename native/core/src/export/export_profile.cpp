// strata/core/export.h: picks the format's writer and writes its bytes atomically.
#include "strata/format/writer.h"
#include "chrome_export.h"
#include "gpu_timeline.h"
#include "perfetto_export.h"
#include "pprof_export.h"
#include "speedscope_export.h"
#include "strata/core/export.h"

namespace strata::core {

ExportFormat ParseExportFormat(const std::string& name) {
  if (name == "pprof") return ExportFormat::kPprof;
  if (name == "speedscope") return ExportFormat::kSpeedscope;
  if (name == "perfetto") return ExportFormat::kPerfetto;
  if (name == "chrome") return ExportFormat::kChrome;
  throw Error("unknown export format '" + name + "' (pprof, speedscope, perfetto or chrome)");
}

const char* ExportFormatName(ExportFormat format) {
  switch (format) {
    case ExportFormat::kPprof: return "pprof";
    case ExportFormat::kSpeedscope: return "speedscope";
    case ExportFormat::kPerfetto: return "perfetto";
    case ExportFormat::kChrome: return "chrome";
  }
  return "?";
}

std::string ExportProfile(const Profile& profile, ExportFormat format, const std::string& profile_path) {
  switch (format) {
    case ExportFormat::kPprof: return detail::ExportPprof(profile);
    case ExportFormat::kSpeedscope: return detail::ExportSpeedscope(profile);
    case ExportFormat::kPerfetto:
      if (profile_path.empty()) throw Error("perfetto: needs the profile's file (its GPU activities and region launches)");
      return detail::ExportPerfetto(profile, regions::ReadProfileRegions(profile_path), detail::ReadGpuTimeline(profile_path));
    case ExportFormat::kChrome:
      if (profile_path.empty()) throw Error("chrome: needs the profile's file (its GPU activities)");
      return detail::ExportChrome(profile, detail::ReadGpuTimeline(profile_path));
  }
  throw Error("unknown export format");
}

void ExportProfileToFile(const Profile& profile, ExportFormat format, const std::string& path,
                         const std::string& profile_path) {
  const std::string bytes = ExportProfile(profile, format, profile_path);
  std::string error;
  if (!strata::format::WriteFileAtomically(path, std::vector<unsigned char>(bytes.begin(), bytes.end()), &error))
    throw Error(error);
}

}  // namespace strata::core
