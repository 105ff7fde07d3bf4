// A distributed job's run (one profile per rank, docs/architecture.md "Ranks") opened as one
// profile with a rank dimension: the ranks' calling context trees merged by calling context (the
// same call path in every rank is one node, no process frames), and beside it, per rank, the
// values each stored node holds (sparse columns). A frame's per-rank values, their spread and the
// ranks' compute / communication / idle split are computed from those columns.
//
// Streaming: the ranks' profiles are read one at a time into the merged tree and their columns;
// no two are in memory at once (bench/ranks, docs/benchmarks.md).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "strata/core/api.h"
#include "strata/core/run_family.h"

namespace strata::core {

// One rank of the run: its processes (the rank's own and those it started that know no other
// rank: DataLoader workers) count under it.
struct RankInfo {
  int rank = -1;
  int local_rank = -1, node_rank = -1;
  std::string host;
  std::vector<std::string> profiles;  // the rank's process first, then its workers
  std::vector<long> pids;             // same order
  // How the rank's process ended when not by a normal exit ("" otherwise): AbnormalEnd.
  std::string ended;
  // CLOCK_REALTIME span of the rank's process (meta start_unix_ns, duration_ns); 0 when unknown.
  int64_t start_unix_ns = 0, end_unix_ns = 0;
};

// A frame's values over the ranks (one metric, inclusive): `values` in RankRun::ranks() order.
struct RankSpread {
  std::vector<double> values;
  double min = 0, median = 0, max = 0;
  int min_rank = -1, max_rank = -1;  // rank numbers (RankInfo::rank) holding min / max
};

// One rank's time split over the run's window (the ranks' realtime spans on one clock).
// busy = compute + communication: the main thread's time under the program's code in the steady
// state (docs/analyzers.md "Phases"); startup: its time in imports, construction, compilation,
// warm-up and shutdown; idle: the rest of the window (before the rank started, after it ended,
// and waits outside collectives the sampler saw as no code, e.g. the interpreter not yet up).
struct RankPhases {
  int rank = -1;
  double window_ns = 0;
  double compute_ns = 0, communication_ns = 0, startup_ns = 0, idle_ns = 0;
  // Share of the rank's GPU communication (collective kernels) overlapped by its other kernels;
  // nullopt without GPU activity (a CPU-only run: communication blocks the issuing thread).
  std::optional<double> overlap_share;
  std::string metric;  // what the times are of: "wall_time" (wall-clock sampling) or "cpu_time"
  // communication_ns is the wall time of the rank's recorded collective calls (the collectives
  // section: issue to completion, overlaps counted once), not samples: CPU-time sampling does
  // not see a rank waiting in a collective.
  bool communication_from_calls = false;
};

// One step of a job whose ranks recorded their collectives (the collectives section): from the
// end of one call of the step's collective (the call site every step issues: the most frequent)
// to the end of the next, per rank, on one clock (each rank's CLOCK_MONOTONIC call times moved
// to CLOCK_REALTIME by its profile's start pair, meta start_unix_ns / start_monotonic_ns).
struct RankStep {
  std::vector<int64_t> arrive_unix_ns;  // per rank: when it issued the step's collective
  std::vector<double> compute_ns;       // per rank: the step's time outside collectives (the time
                                        // before it reached the collective)
  // per rank: the step's time with at least one of its collectives in flight (asynchronous calls,
  // such as DDP's gradient buckets, overlap: counted once)
  std::vector<double> communication_ns;
  // per rank: the step's span, from the previous call's completion to this call's
  std::vector<int64_t> start_unix_ns, end_unix_ns;
  int last_rank = -1;                   // the rank that issued the collective last
  double arrival_spread_ns = 0;         // last issue minus first issue
};

// A step runs from one call of the step's collective to the next: the call site (name, line and
// size) the first rank calls most often, the earliest such site on a tie (DDP: the forward's
// buffer broadcast, not one of the backward's bucket all-reduces, which share one line).
struct RankSteps {
  std::string collective;  // the step's collective ("all_reduce"), "" when there are no steps
  std::string file;        // the Python line that issues it
  uint32_t line = 0;
  std::vector<RankStep> steps;  // as many as every rank completed
};

// A part of a run: the steady state (the work the program is run for) or its startup (imports,
// construction, compilation, warm-up, and shutdown).
enum class RunPart : uint8_t { kSteady, kStartup };

class RankRun {
 public:
  // `members` as RunFamily returns them. Throws Error (one line) when no member has rank meta,
  // when two processes claim one rank, or when a member cannot be read.
  static std::unique_ptr<RankRun> Open(const std::vector<RunMember>& members, const OpenOptions& options = {});
  static std::unique_ptr<RankRun> Open(const std::string& path, const OpenOptions& options = {});
  virtual ~RankRun() = default;

  // The merged profile: every view, line total and analyzer works on it. Meta: the first rank's,
  // plus `ranks`, `world_size`, `run` (the folder) and `ranks_ended` (which rank ended how) when
  // some rank did not exit normally.
  virtual const Profile& profile() const = 0;
  virtual std::shared_ptr<const Profile> shared_profile() const = 0;
  virtual const std::vector<RankInfo>& ranks() const = 0;  // by rank number
  // Ranks the job had (world_size) whose profile is missing, e.g. killed before writing one.
  virtual const std::vector<int>& missing_ranks() const = 0;
  // Members that belong to no rank (the launcher: torchrun's agent), left out of the merge.
  virtual const std::vector<std::string>& left_out() const = 0;

  // Per-rank inclusive values of `metric` at view node `node` of a view built from profile()
  // (any kind; its `landing` is used when present, else a top-down view's own values cannot be
  // split and Error is thrown: build views with ViewOptions::all_metrics = false).
  virtual RankSpread Spread(const View& view, size_t node, size_t metric) const = 0;
  // The same for many nodes in one pass over the columns (a table, an analyzer); with
  // `only_stored`, only the stored nodes it marks count (an analyzer's compute-only values).
  virtual std::vector<RankSpread> Spreads(const View& view, const std::vector<size_t>& nodes, size_t metric,
                                          const std::vector<char>* only_stored = nullptr) const = 0;
  // Per frame rather than per path: the distinct frames (View::frame_id: a function at a line) of
  // `nodes`, each with its values summed over every path through it (a path that holds the frame
  // more than once, recursion, counts once), so that one line reached by different paths on
  // different ranks is one row. `node`: the frame's heaviest node among `nodes` (primary values).
  struct FrameSpread {
    uint32_t frame = 0;
    size_t node = 0;
    RankSpread spread;
  };
  // With `only_stored`, only the stored nodes it marks count (StoredIn: one part of the run).
  virtual std::vector<FrameSpread> FrameSpreads(const View& view, const std::vector<size_t>& nodes, size_t metric,
                                                const std::vector<char>* only_stored = nullptr) const = 0;
  // Per stored node of profile(): 1 where its time belongs to `part` (any thread; the phases of
  // docs/analyzers.md "Phases", classified once with Phases()). The profiler's own work is in
  // neither part. Ranks that differ only in how long they took to start differ in startup,
  // which is rarely what a user compares ranks for.
  virtual std::vector<char> StoredIn(RunPart part) const = 0;
  // Exclusive sum of `metric` per rank over the stored nodes of profile() (stored node ids).
  // `stored_selected[stored_node]` selects them. For analyzers that classify nodes themselves.
  virtual std::vector<double> RankTotals(size_t metric, const std::vector<char>& stored_selected) const = 0;
  // Compute / communication / idle per rank (RankPhases), by rank number.
  virtual std::vector<RankPhases> Phases() const = 0;
  // Per step, from the ranks' recorded collectives; no steps when the profiles have none.
  virtual RankSteps Steps() const = 0;
  // Per rank (ranks() order): the wall time its recorded collective calls cover (completed calls,
  // overlapping calls counted once); nullopt for a rank whose profile recorded none.
  virtual std::vector<std::optional<double>> CollectiveCallNs() const = 0;
  // The stored node of profile() that stored node `node` of a rank's profile became (the merge
  // is by call path), for the nodes that profile's collective sites and GPU activities name
  // (what a timeline shows; kept while merging, not a whole map); -1 for any other node.
  // `rank_index` in ranks() order, `profile` an index into its RankInfo::profiles.
  virtual int64_t MergedNode(size_t rank_index, size_t profile, uint32_t node) const = 0;
};

// The RankSpread of per-rank values (min, median, max and who holds them).
RankSpread SpreadOf(const std::vector<double>& values, const std::vector<RankInfo>& ranks);

// A frame that issues a collective or waits for one: torch.distributed's Python API
// (distributed_c10d.py: all_reduce, broadcast, all_gather, reduce_scatter, barrier, ...), the
// c10d operators (c10d::allreduce_, ...), Work::wait, and NCCL kernels.
bool IsCollectiveFrame(const FrameInfo& frame);

}  // namespace strata::core
