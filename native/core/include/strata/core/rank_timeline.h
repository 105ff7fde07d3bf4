// A distributed job's ranks on one timeline (issue: the merged view's per-rank timeline): per rank,
// its steps, its recorded collective calls and its GPU streams' activities, all on one clock.
//
// Clock: every rank's times are moved to CLOCK_REALTIME (collectives: CLOCK_MONOTONIC plus the
// profile's start pair, meta start_unix_ns - start_monotonic_ns; GPU activities: already host
// time when the GPU activities section says so) and then shown relative to the earliest rank's
// start (origin_unix_ns). On one host the ranks share both clocks; across hosts the alignment is
// as good as the hosts' CLOCK_REALTIME agreement (docs/architecture.md "Ranks").
//
// Streaming: the ranks' sections are read one profile at a time (no two members in memory); a
// member's stored node becomes the merged profile's through RankRun::MergedNode (the merge is
// by call path, and the merge keeps the mapping of the nodes a timeline names).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/api.h"

namespace strata::core {

class RankRun;
struct RankInfo;

enum class RankLaneKind : uint8_t {
  kSteps = 0,        // the rank's steps (RankRun::Steps): one slice per step
  kCollectives = 1,  // the rank's recorded collective calls, issue to completion
  kGpuStream = 2,    // one GPU stream of the rank: its kernels, copies and sets
};

struct RankLane {
  int rank = -1;  // RankInfo::rank
  RankLaneKind kind = RankLaneKind::kSteps;
  uint32_t device = 0, stream = 0;  // kGpuStream only
};

enum class RankSliceKind : uint8_t {
  kStep = 0,
  kCollective = 1,
  kKernel = 2,
  kMemcpy = 3,
  kMemset = 4,
};

// Where a slice's time was asked for in the user's code: the collective's issuing user line; a
// GPU activity's innermost user frame on its launch path (else its innermost Python frame, else
// the activity frame's own file and line).
struct RankSliceSource {
  std::string file;
  uint32_t line = 0;
};

struct RankSlice {
  uint32_t lane = 0;                  // index into RankTimeline::lanes
  int64_t start_ns = 0, end_ns = 0;   // relative to origin_unix_ns
  RankSliceKind kind = RankSliceKind::kStep;
  uint32_t name = 0;                  // index into RankTimeline::names ("all_reduce", a kernel's name, "step 3")
  int64_t node = -1;                  // stored node of RankRun::profile() (the merged tree), -1 none
  int32_t source = -1;                // index into RankTimeline::sources, -1 none
  uint64_t bytes = 0;                 // collectives and copies: bytes moved (0 unknown)
};

struct RankTimelineOptions {
  // At most this many slices; when a run has more, each lane keeps its earliest slices in the
  // same proportion and `truncated` says how many were left out.
  size_t max_slices = 2'000'000;
};

struct RankTimeline {
  int64_t origin_unix_ns = 0;  // time 0: the earliest rank's start
  int64_t span_ns = 0;         // origin to the latest rank's end
  std::vector<RankLane> lanes;  // by rank, then steps, collectives, GPU streams by (device, stream)
  std::vector<std::string> names;
  std::vector<RankSliceSource> sources;
  std::vector<RankSlice> slices;  // by lane, then by start
  uint64_t truncated = 0;         // slices left out by max_slices
  uint64_t gpu_dropped = 0;       // GPU activity records the ranks' runtimes dropped (their limit)
  // Ranks whose profile lacks the start clock pair (their collectives cannot be placed), or whose
  // GPU activities lack the tracer's clock readings (those cannot): left out.
  std::vector<int> ranks_without_clock;
};

// Throws Error (one line) when a member cannot be read.
RankTimeline BuildRankTimeline(const RankRun& run, const RankTimelineOptions& options = {});

// What the exports call a rank ("rank 0 (host)"), a lane ("steps", "collectives", "GPU 0 stream
// 7") and a slice's kind ("step", "collective", "kernel", "memcpy", "memset").
std::string RankTimelineRankName(const RankInfo& rank);
std::string RankTimelineLaneName(const RankLane& lane);
const char* RankTimelineSliceKindName(RankSliceKind kind);

// The timeline as a Chrome Trace Event JSON file (chrome://tracing, Perfetto's UI): a process per
// rank ("rank 0 (host)"), a thread per lane, a complete ("X") event per slice with its source,
// merged node and bytes in args; times in µs from origin_unix_ns (otherData keeps the origin).
std::string RankTimelineChromeJson(const RankRun& run, const RankTimeline& timeline);
// The same as a Perfetto protobuf trace (ui.perfetto.dev, trace_processor): a track per rank, a
// child track per lane (slices of a lane that overlap without nesting on the lane's
// "overlapping N" tracks), slices at unix ns with their source, merged node and bytes as args.
std::string RankTimelinePerfetto(const RankRun& run, const RankTimeline& timeline);

}  // namespace strata::core
