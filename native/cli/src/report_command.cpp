// strata report: a profile as a text tree/table or as JSON (docs/report-json.md), or every
// profile of a run folder (the first process and the processes it started).
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <string>

#include "commands.h"
#include "symbol_paths.h"
#include "strata/core/api.h"
#include "strata/core/report.h"
#include "strata/core/run_family.h"

#include <nlohmann/json.hpp>

namespace strata::cli {

namespace {

// The report of one profile, or "" with the error printed (exit code in *code).
std::string ReportOne(const ReportOptions& options, const std::string& file, int* code) {
  try {
    core::OpenOptions open;
    open.symbol_paths = SymbolPaths(options.symbol_paths);
    auto profile = core::Profile::Open(file, open);
    core::ReportOptions ro;
    if (!options.metric.empty()) {
      auto m = core::FindMetric(*profile, options.metric);
      if (!m) {
        std::string names;
        for (const auto& mi : profile->metrics()) names += (names.empty() ? "" : ", ") + mi.name;
        std::fprintf(stderr, "strata: %s: no metric named '%s' (the profile has: %s)\n",
                     file.c_str(), options.metric.c_str(), names.empty() ? "none" : names.c_str());
        *code = kExitUsage;
        return "";
      }
      ro.metric = *m;
    }
    const bool json = options.format == "json";
    ro.limit = options.limit >= 0 ? size_t(options.limit) : (json ? 0 : 50);
    core::ViewOptions vo;
    vo.primary_metric = ro.metric;
    vo.expand = false;  // the reports read the compact form
    core::View view = profile->BuildView(core::ParseViewKind(options.view), vo);
    *code = 0;
    return json ? core::JsonReport(*profile, view, ro) : core::TextReport(*profile, view, ro);
  } catch (const core::Error& e) {
    std::fprintf(stderr, "strata: %s: %s\n", file.c_str(), e.what());
    *code = kExitError;
    return "";
  }
}

bool IsFolder(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// A run folder: every process's report in tree order, each under a line naming the process and
// its parent (text), or {"processes": [{file, pid, parent_pid, parent_profile, command, ended,
// depth, report}]} (json).
int ReportFolder(const ReportOptions& options) {
  std::vector<core::RunMember> members;
  try {
    members = core::RunFamily(options.file);
  } catch (const core::Error& e) {
    std::fprintf(stderr, "strata: %s: %s\n", options.file.c_str(), e.what());
    return kExitError;
  }
  const bool json = options.format == "json";
  nlohmann::json processes = nlohmann::json::array();
  std::string out;
  int worst = 0;
  for (const core::RunMember& m : members) {
    int code = 0;
    std::string report = ReportOne(options, m.path, &code);
    if (code != 0) { worst = code; continue; }
    std::string name = std::filesystem::path(m.path).filename().string();
    if (json) {
      processes.push_back({{"file", name}, {"pid", m.pid}, {"parent_pid", m.parent_pid},
                           {"parent_profile", m.parent_profile}, {"command", m.command},
                           {"ended", m.ended}, {"depth", m.depth},
                           {"report", nlohmann::json::parse(report)}});
    } else {
      out += std::string(size_t(m.depth) * 2, ' ') + "== " + name + ": pid " + std::to_string(m.pid);
      if (m.parent_pid) out += ", started by pid " + std::to_string(m.parent_pid) + " (" + m.parent_profile + ")";
      out += ", ended: " + m.ended + "\n" + std::string(size_t(m.depth) * 2, ' ') + "   " + m.command + "\n";
      out += report + "\n";
    }
  }
  if (json) out = nlohmann::json{{"processes", processes}}.dump(1) + "\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  if (std::fflush(stdout) != 0) return kExitError;
  return worst;
}

}  // namespace

int RunReport(const ReportOptions& options) {
  if (options.by_rank) return RunRankReport(options);
  if (IsFolder(options.file)) return ReportFolder(options);
  int code = 0;
  std::string out = ReportOne(options, options.file, &code);
  if (code != 0) return code;
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : kExitError;
}

}  // namespace strata::cli
