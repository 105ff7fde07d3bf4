// Overlap analysis of a decoded region trace (a region buffer or a Proton trace): which lane
// released which (dependency edges between lanes of one block, from barrier markers or inferred
// from region names), the critical path through the lanes, idle bubbles per lane, what share of
// its time each lane computes, loads or waits, and the software-pipelining and
// warp-specialization models that predict the kernel's time from the measured stage latencies
// (docs/regions.md "Overlap analysis"). Pure computation on a Trace: no files, no JSON here
// (the exports are in overlap_export).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/analyze.h"
#include "strata/core/regions.h"

namespace strata::core::overlap {

using regions::RegionNames;
using regions::Trace;

// What a lane does during a region (naming convention, docs/regions.md): a name beginning with
// "wait" waits, one naming a data movement (load, store, copy, tma, issue, fetch, cp.async)
// loads, anything else computes. Barrier waits and an async region's wait (second start to end)
// wait. Idle: inside the lane's span, in no innermost region.
enum class Activity : uint8_t { kCompute = 0, kLoad = 1, kWait = 2, kIdle = 3 };
const char* ActivityName(Activity a);
Activity ClassifyRegionName(const std::string& name);

enum class EdgeSource : uint8_t {
  kBarrier = 0,   // an arrive and a wait on the same barrier and use (barrier markers)
  kInferred = 1,  // a wait region and the last work region of another role that ended before it
};

// One lane releasing another's wait. Times are on the trace's axis of each lane (as its
// intervals), so that a viewer draws them where the intervals are.
struct DependencyEdge {
  uint32_t block = 0;
  uint32_t from_lane = 0, to_lane = 0;      // indices into Trace::lanes
  int32_t from_interval = -1;               // the releasing region (innermost enclosing the arrive); -1: none
  int32_t to_interval = -1;                 // the wait
  int64_t from_iteration = -1, to_iteration = -1;  // the loop iterations they belong to; -1: none
  int32_t barrier = -1;                     // barrier id (kBarrier); -1 when inferred
  int64_t use = -1;
  double release_ns = 0;                    // on from_lane's axis
  double wait_start_ns = 0, wait_end_ns = 0;  // on to_lane's axis
  double latency_ns = 0;                    // release to the wait's end (clocks of one SM aligned)
  bool binding = false;                     // the waiter was already waiting when the release came
  EdgeSource source = EdgeSource::kInferred;
};

// A piece of the critical path: lane time that the kernel's end depends on (`sync`: the hop from
// a release to the waiter's resumption).
struct PathSegment {
  uint32_t lane = 0;
  double start_ns = 0, end_ns = 0;  // on the lane's axis
  bool sync = false;
};

struct BlockPath {
  uint32_t block = 0;
  double span_ns = 0;             // first start to last end of the block's lanes (aligned)
  std::vector<PathSegment> segments;  // latest first
  std::vector<uint32_t> edges;    // indices into OverlapAnalysis::edges, in path order
  uint32_t lane_switches = 0;
};

// A region's time on the critical paths, summed over blocks.
struct PathRegion {
  int32_t region = -1;  // -1: on the path in no innermost region (untracked) ; -2: sync hops
  Activity activity = Activity::kCompute;
  double ns = 0;
  double share = 0;     // of the blocks' spans
};

struct LaneActivity {
  uint32_t lane = 0;
  uint32_t role = 0;
  double span_ns = 0, compute_ns = 0, load_ns = 0, wait_ns = 0, idle_ns = 0;
};

struct Bubble {
  uint32_t lane = 0;
  double start_ns = 0, end_ns = 0;  // on the lane's axis
  Activity activity = Activity::kWait;  // kWait or kIdle
};

// Lanes with the same set of regions play one role (a producer warp group, the consumer ones).
struct RoleStage {
  uint16_t region = 0;
  Activity activity = Activity::kCompute;
  double mean_ns = 0;          // per instance
  double per_iteration = 0;    // instances per lane and iteration
  double offset_ns = 0;        // mean start within its iteration, on the recorded clock (orders the stages)
  bool async = false;          // issue to arrival (overlaps the lane's work)
};
struct Role {
  uint32_t id = 0;
  uint32_t lanes = 0;
  double iterations = 0;       // per lane (median)
  double span_ns = 0;          // mean lane span
  double compute_ns = 0, load_ns = 0, wait_ns = 0;  // per iteration (means)
  double idle_ns = 0;          // per iteration: in no region (loop bookkeeping, the barrier instructions, markers)
  std::vector<RoleStage> stages;  // by offset within the iteration
  int32_t release_stage = -1;  // index into stages: the region after which it releases the other role
};

enum class ModelKind : uint8_t { kNone = 0, kSoftwarePipelining = 1, kWarpSpecialization = 2 };
enum class Bottleneck : uint8_t { kNone = 0, kLoad = 1, kCompute = 2, kProducer = 3, kConsumer = 4, kRing = 5 };
const char* ModelKindName(ModelKind k);
const char* BottleneckName(Bottleneck b);

struct StagePrediction {
  uint32_t stages = 0;
  double iteration_ns = 0;
  double kernel_ns = 0;
  Bottleneck bottleneck = Bottleneck::kNone;
};

// KPerfIR's models (§4.4, Table 4) on the measured stage latencies, per iteration:
// software pipelining with N stages: max(C + I, L / (N - 1)) (N = 1: C + I + L), C the compute,
// I the issue and L the load latency (issue to arrival): load- or compute-bound;
// warp specialization: max(producer busy, consumer busy, ring / S), ring the sum of the stages on
// the producer -> consumer -> producer cycle (each role's work up to its release, and both sync
// latencies), S the ring's depth. Kernel time = K iterations x that + the measured rest.
struct PipelineModel {
  ModelKind kind = ModelKind::kNone;
  uint32_t producer_role = 0, consumer_role = 0;  // warp specialization
  uint32_t stages = 0;            // inferred: in-flight loads + 1 (SWP) or the ring depth (WS)
  double iterations = 0;
  double measured_iteration_ns = 0, measured_kernel_ns = 0;
  double compute_ns = 0, issue_ns = 0, load_latency_ns = 0;       // SWP terms
  double producer_busy_ns = 0, consumer_busy_ns = 0, ring_ns = 0;  // WS terms
  double producer_chain_ns = 0, consumer_chain_ns = 0, sync_ns = 0;
  double rest_ns = 0;             // the kernel's time outside the modelled iterations
  StagePrediction current;        // the model at `stages` (against the measurement)
  std::vector<StagePrediction> by_stages;  // N = 1..4 (SWP), S = 1..4 (WS)
};

enum class FindingKind : uint8_t {
  kShortenRegion = 0,  // this region is on the critical path: shortening it shortens the kernel
  kArriveEarlier = 1,  // the release comes after regions that could follow it
  kMoreStages = 2,     // load-bound software pipeline: another stage hides the load
};
struct OverlapFinding {
  FindingKind kind = FindingKind::kShortenRegion;
  uint16_t region = 0;
  uint32_t role = 0;
  double region_ns = 0;           // per iteration
  double predicted_kernel_ns = 0; // after the change
  double gain_ns = 0;             // measured (or modelled) kernel time minus predicted
  double gain_share = 0;
  std::string message;            // one paragraph, names as the names table gives them
};

struct OverlapOptions {
  double min_bubble_ns = 20;      // shorter gaps are the markers' own time
  double min_gain_share = 0.02;   // findings predict at least this share of the kernel's time
};

struct OverlapAnalysis {
  std::vector<DependencyEdge> edges;
  std::vector<BlockPath> paths;
  std::vector<PathRegion> path_regions;  // largest first
  std::vector<LaneActivity> lanes;
  std::vector<Bubble> bubbles;
  std::vector<Role> roles;
  PipelineModel model;
  std::vector<OverlapFinding> findings;
  size_t barrier_edges = 0, inferred_edges = 0;
};

OverlapAnalysis AnalyzeOverlap(const Trace& trace, const RegionNames& names, const OverlapOptions& options = {});

// Exports: the analysis as JSON ({"edges", "paths", "path_regions", "lanes", "bubbles",
// "roles", "model", "findings"}) and as the text that `strata regions --critical-path` prints.
std::string OverlapToJson(const OverlapAnalysis& analysis, const Trace& trace, const RegionNames& names);
std::string OverlapToText(const OverlapAnalysis& analysis, const Trace& trace, const RegionNames& names);

// The typed findings as analyzer findings (rule "critical-path"), each on its region's marker
// line where the names give one: for SARIF and the inline diagnostics.
std::vector<Finding> OverlapFindingsAsFindings(const OverlapAnalysis& analysis, const RegionNames& names,
                                               const std::string& kernel);

}  // namespace strata::core::overlap
