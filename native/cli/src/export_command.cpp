// strata export: a profile's calling context tree in another tool's format (the core writes it);
// a distributed job's run folder (or one of its ranks' profiles) as its ranks' timeline.
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "strata/core/api.h"
#include "strata/core/export.h"
#include "strata/core/rank_run.h"
#include "strata/core/rank_timeline.h"
#include "strata/format/writer.h"
#include "symbol_paths.h"

namespace strata::cli {
namespace {

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The ranks on one timeline (chrome or perfetto), written atomically; `folder` is the run's.
void ExportRankTimeline(const std::string& folder, core::ExportFormat format, const std::string& output,
                        const core::OpenOptions& open) {
  if (format != core::ExportFormat::kChrome && format != core::ExportFormat::kPerfetto)
    throw core::Error(std::string(core::ExportFormatName(format)) +
                      ": a run's ranks export as their timeline, --format chrome or perfetto");
  auto run = core::RankRun::Open(folder, open);
  const core::RankTimeline timeline = core::BuildRankTimeline(*run);
  const std::string bytes = format == core::ExportFormat::kChrome ? core::RankTimelineChromeJson(*run, timeline)
                                                                  : core::RankTimelinePerfetto(*run, timeline);
  std::string error;
  if (!format::WriteFileAtomically(output, std::vector<unsigned char>(bytes.begin(), bytes.end()), &error))
    throw core::Error(error);
}

}  // namespace

int RunExport(const ExportOptions& options) {
  core::ExportFormat format;
  try {
    format = core::ParseExportFormat(options.format);
  } catch (const core::Error& e) {
    std::fprintf(stderr, "strata export: %s\n", e.what());
    return kExitUsage;
  }
  try {
    core::OpenOptions open;
    open.symbol_paths = SymbolPaths(options.symbol_paths);
    if (IsDirectory(options.file)) {
      ExportRankTimeline(options.file, format, options.output, open);
    } else {
      auto profile = core::Profile::Open(options.file, open);
      // One rank's profile as a Chrome trace: the timeline of its run's ranks (its folder). Its
      // Perfetto trace stays its own (that one also holds its in-kernel region launches).
      if (format == core::ExportFormat::kChrome && profile->meta("rank")) {
        profile.reset();
        const std::string dir = std::filesystem::path(options.file).parent_path().string();
        ExportRankTimeline(dir.empty() ? "." : dir, format, options.output, open);
      } else {
        core::ExportProfileToFile(*profile, format, options.output, options.file);
      }
    }
  } catch (const core::Error& e) {
    std::fprintf(stderr, "strata: %s: %s\n", options.file.c_str(), e.what());
    return kExitError;
  }
  std::fprintf(stderr, "strata: wrote %s\n", options.output.c_str());
  return 0;
}

}  // namespace strata::cli
