// In-kernel regions in the core: the region decoder's API (native/region_decoder: decode, replay,
// names tables, calibration, per-group shares) under strata::core::regions, the trace exports
// (JSON, Chrome/Perfetto: JSON stays out of the decoder) and how a loop iteration's region
// frame reads. Buffer layout: docs/regions.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "strata/region_decoder/calibration.h"
#include "strata/region_decoder/decode.h"
#include "strata/region_decoder/group_shares.h"
#include "strata/region_decoder/names.h"
#include "strata/region_decoder/record_cost_fit.h"

namespace strata::core::regions {

// The decoder's names, as the core's users (CLI, addon, tests) spell them.
using region_decoder::kAbiVersion;
using region_decoder::kCalibBackToBack;
using region_decoder::kCalibBaseline;
using region_decoder::kCalibMarked;
using region_decoder::kChunkEntryBytes;
using region_decoder::kEntryChunk;
using region_decoder::kEntryLane;
using region_decoder::kHeaderBytes;
using region_decoder::kLaneEntryBytes;
using region_decoder::kMagic;
using region_decoder::kMaxRegionId;
using region_decoder::kRecordBytes;
using region_decoder::CalibrateRecordCost;
using region_decoder::Decode;
using region_decoder::DecodeFile;
using region_decoder::DecodeOptions;
using region_decoder::FitRecordCostToKernelTime;
using region_decoder::FitRecordCostToRegion;
using region_decoder::FitRecordCostToRegions;
using region_decoder::FitPacedRecordCost;
using region_decoder::MeanRegionSpans;
using region_decoder::PacedFit;
using region_decoder::PacedStartCosts;
using region_decoder::RecordCostFit;
using region_decoder::RecordCostFitOptions;
using region_decoder::ReferenceSpan;
using region_decoder::ReferenceSpans;
using region_decoder::GroupShare;
using region_decoder::GroupShares;
using region_decoder::Header;
using region_decoder::Interval;
using region_decoder::Issue;
using region_decoder::IssueKind;
using region_decoder::IssueName;
using region_decoder::Lane;
using region_decoder::LaneMeta;
using region_decoder::NameOf;
using region_decoder::ParseNameEntry;
using region_decoder::ParseNameTable;
using region_decoder::Record;
using region_decoder::RecordKind;
using region_decoder::RegionName;
using region_decoder::RegionNames;
using region_decoder::RegionShare;
using region_decoder::StartCosts;
using region_decoder::Trace;

// A loop's iterations share the loop's region id; their frames carry the loop's name and
// format::kFrameFlagIteration, and read "<name> (iteration)" wherever a frame's name is shown
// (views, reports, findings, the CLI's summary rows).
inline constexpr std::string_view kIterationSuffix = " (iteration)";
std::string RegionFrameLabel(std::string_view name, bool iteration);

// JSON (the lanes, the names table as "regions" (id, name, and the marker's file and line where
// known), intervals with their region's name, issues and, for several lane groups, "groups":
// GroupShares) and a Chrome/Perfetto trace (one track per lane; the marker's "file:line" in an
// event's args, for display).
std::string ToJson(const Trace& trace, const RegionNames& names = {});
std::string ToChromeTrace(const Trace& trace, const RegionNames& names = {});

}  // namespace strata::core::regions
