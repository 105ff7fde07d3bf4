// Report formatting shared by the CLI (`strata report`) and the addon. docs/report-json.md is
// the JSON contract.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/api.h"

namespace strata::core {

struct ReportOptions {
  size_t metric = 0;  // index into profile.metrics(): the metric used for % and --limit
  size_t limit = 0;   // keep the `limit` nodes with the largest inclusive value of `metric`
                      // plus their ancestors; 0 = all nodes
};

// View node ids kept by `limit` (see ReportOptions), in preorder (ascending id). limit 0: all.
std::vector<int32_t> SelectNodes(const View& view, size_t metric, size_t limit);

// Human-readable report: meta first (command, how it ended, samples), then an indented tree
// (top-down, bottom-up) or a table (flat).
std::string TextReport(const Profile& profile, const View& view, const ReportOptions& options);

// JSON report, format_version 1 (docs/report-json.md). Invalid UTF-8 in names is replaced.
std::string JsonReport(const Profile& profile, const View& view, const ReportOptions& options);

}  // namespace strata::core
