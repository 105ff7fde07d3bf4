// Types of the Strata N-API addon (strata_addon.node), a thin async layer over the analysis
// core (native/core). Load it with require('<path>/strata_addon.node').
// Everything that reads the file or builds a view returns a Promise and runs on the libuv
// thread pool; rejections are Errors whose message is the core's one-line message
// ("not a Strata profile: ..."). Invalid arguments (a bad view kind, a negative index) throw
// a TypeError/RangeError synchronously.

// The column shape of a view is the webview protocol's: the extension hands it on unchanged.
import type { MetricNature, NodeColumns, NodeLine, PartColumns } from '../../webview/src/protocol';

export type ViewKind = 'top-down' | 'bottom-up' | 'flat';

export interface MetricInfo {
  name: string;   // "cpu_time", "wall_time", ...
  unit: string;   // "ns", "count", "bytes"
  /** A metric counting one PC-sampling stall reason ("stall_<reason>"): what the reason is
   *  (the core's one table); absent for other metrics. */
  stall?: 'latency' | 'throughput' | 'not_a_reason';
  /** Additive values (times, samples, bytes, launches) can be a flame graph's widths; an
   *  attribute (grid, block, registers, shared memory, occupancy) is read as mean / min / max. */
  nature?: MetricNature;       // always set by the addon
  /** Events recorded for it in the whole profile (0: the metric has no values here). */
  count?: number;              // always set by the addon
}

/**
 * Per source line, each asked metric's inclusive value summed over the call paths through the
 * line, each line counted once per path (its outermost frame). `values[k]` and `totals[k]` (the
 * root's inclusive value) are of the k-th metric asked for; file indexes into `strings`.
 */
export interface LineTotalsColumns {
  strings: string[];
  file: Uint32Array;
  line: Uint32Array;
  values: Float64Array[];
  /** The part of values[k] under autograd backward operators (backward kernels the runtime
   *  placed under their forward's line). */
  backward: Float64Array[];
  /** The part of values[k] from fused kernels computing the line (a torch.compile kernel's time
   *  counts on every line it fuses, also where the line is not on its call path; never twice on
   *  one line). Absent from addons built before it. */
  fused?: Float64Array[];
  totals: number[];
}

/**
 * One view: a frame table (`frames`, one entry per distinct frame: kind, name, file, line,
 * module) and columns with one entry per node, `frame[i]` indexing the table. Nodes are in
 * preorder: parent[i] < i, parent[0] = -1 (the root). The table's string columns (name, file,
 * module) index into `strings` (strings[0] = ""); its `kind` uses the numeric frame kinds of the
 * profile format / webview protocol: 0 root, 1 python, 2 native, 3 operator, 4 gpu_api, 5 kernel,
 * 6 pc, 7 region, 8 thread, 9 process (a run's process, in openRun's profile). inclusive/exclusive/count are of the metric `metricIndex`.
 */
/** Which frames a view shows: the Python view folds the interpreter's own frames into the Python
 *  line they serve; 'auto' is the Python view for a profile with Python frames. */
export type FrameFilterName = 'auto' | 'python' | 'all';

export interface ViewOptions {
  frames?: FrameFilterName;   // default 'auto'
  byFunction?: boolean;       // top-down: siblings of one function merged whatever their line
}

/** One metric's statistics at one node (nodeMetrics). */
export interface NodeMetricValues {
  name: string;
  unit: string;
  nature: MetricNature;
  inclusive: number;
  exclusive: number;
  count: number;                // exclusive events
  min: number; max: number; mean: number; std: number;   // of the exclusive values
}

/** The part of a view to send first (view()'s `first`): the nodes of at least `minShare` of
 *  the root's value (a viewer asks for what is over half a pixel at its width), at most
 *  `maxNodes` (the bound then rises), at most `maxDepth` levels deep (the rows a screen shows);
 *  a view of at most `wholeUpTo` nodes comes whole. */
export interface FirstPart { minShare: number; maxNodes?: number; maxDepth?: number; wholeUpTo?: number }

/** viewPart()'s bound: the nodes of at least `minValue`, at most `maxNodes`, `maxDepth` levels
 *  below the part's root. */
export interface PartBound { minValue: number; maxNodes?: number; maxDepth?: number }

/** The part under node `root` of a view: node 0 is `root`; `frame` indexes the frame table of
 *  the view()'s answer for the same view. */
export interface ViewPart {
  view: ViewKind;
  root: number;
  parent: Int32Array;
  frame: Uint32Array;
  inclusive: Float64Array;
  exclusive: Float64Array;
  count: Float64Array;
  node: Uint32Array;       // ids in the view
  more: Uint8Array;        // LeftOut (webview/src/protocol.ts): 1 children under minValue, 2 every child
  minValue: number;
}

/** The sandwich of one function: callers and callees merged by function, values of the view's
 *  metric, one frame table (`frames`, `strings`). */
export interface SandwichColumns {
  calls: number;           // outermost calls of the function
  partial?: string;        // what a bound left out, one line
  metric: string;
  unit: string;
  total: number;           // the view's root value
  strings: string[];
  frames: NodeColumns['frames'];
  frameFilter: 'python' | 'all';
  byFunction: true;
  callers: Omit<ViewPart, 'view' | 'root' | 'node' | 'more' | 'minValue'>;
  callees: Omit<ViewPart, 'view' | 'root' | 'node' | 'more' | 'minValue'>;
}

/** A view (or, with `first`, the part of it to draw first: `node`, `more` and `minValue` are
 *  then set, see PartColumns). */
export interface ViewColumns extends NodeColumns, PartColumns {
  view: ViewKind;
  nodes: number;         // the whole view's node count
  metric: string;        // name of the metric (metrics()[metricIndex].name; "" if none)
  unit: string;
  metricIndex: number;
  total: number;         // inclusive value of the root
  count: Float64Array;   // exclusive sample/event count
  frameFilter?: 'python' | 'all';   // what the view was built with ('auto' resolved); set by the addon
  byFunction?: boolean;             // set by the addon
  /** Present when the view is partial (a bound on its size for memory was reached): why, one line. */
  partial?: string;
}

/** A frame of a diff row. */
export interface DiffFrame { kind: string; name: string; file: string; line: number }
/** A part of a diff's view (DiffColumns.part / path): a view's part with A's value and the
 *  match per node. */
export interface DiffPart extends Omit<ViewPart, 'view'> {
  baseline: Float64Array;
  match: Uint8Array;
}

/** Profile.diffAgainst: B's view as node columns (as view() sends them: with `first`, its first
 *  part, PartColumns then set) plus the diff. */
export interface DiffColumns extends NodeColumns, PartColumns {
  metric: string;
  unit: string;
  totalA: number;
  totalB: number;
  commonPaths: number;     // call paths with a self value in both runs
  fuzzyPaths: number;      // of which matched fuzzily (a moved line, another instantiation)
  frameFilter: 'python' | 'all';
  count: Float64Array;
  baseline: Float64Array;  // per node sent: A's inclusive value of the matched path (0: none)
  match: Uint8Array;       // per node sent: 0 exact, 1 fuzzy, 2 only in B
  nodes: number;           // B's view's node count
  largestChange: number;   // the largest |B - A| inclusive change of any node but the root
  /** The largest changes first (at most 200), each a call path's self value in A and B. */
  rows: { frame: DiffFrame | null; userFrame?: DiffFrame; a: number; b: number;
    match: 'exact' | 'fuzzy' | 'only in B' | 'only in A'; node: number }[];
  appeared: { name: string; value: number }[];   // kernels only B launched, heaviest first
  vanished: { name: string; value: number }[];   // kernels only A launched
  /** The part under node `node` of B's view (null: no such node). */
  part(node: number, bound: PartBound): Promise<DiffPart | null>;
  /** The nodes from the root to `node` (a part rooted at the root; each node's other children
   *  left out, more = 2). */
  path(node: number): Promise<DiffPart | null>;
  /** The frame of node `node` of B's view (null: no such node). */
  frameOf(node: number): DiffFrame | null;
}

export interface SourceLocation {
  file: string;          // absolute path as recorded / symbolized
  line: number;          // 0 = unknown
  name: string;
  kind: string;          // "python", "native", "kernel", ...
  module: string;
}

export interface GpuSampling {
  windowMs: number;
  periodMs: number;
  scale: number;
  windowsOpened: number;
  /** The windows' share of time as a factor (PERIOD/ON); `scale` differs when `byOperatorCalls`. */
  timeScale: number;
  /** `scale` is all operator calls over those traced in windows (torch programs). */
  byOperatorCalls: boolean;
  /** Too few windows opened for steady line shares (each line's share can be several points off). */
  fewWindows: boolean;
}

export interface Profile {
  /** Meta entries of the profile (command, how the target ended, host, ...). */
  meta(): Record<string, string>;
  /** Sampled GPU tracing (GPU work traced in windows of `windowMs` every `periodMs`; the additive
   *  GPU metrics multiplied by `scale` estimate the whole run, counts are as observed), or null
   *  when every launch was traced. */
  gpuSampling(): GpuSampling | null;
  metrics(): MetricInfo[];
  /** Builds (or returns the cached) view; children ordered by the metric `metricIndex`. With
   *  `first`, only its part to draw first (the nodes wider than a bound). */
  view(kind: ViewKind, metricIndex?: number, options?: ViewOptions, first?: FirstPart): Promise<ViewColumns>;
  /** The part under node `nodeId` of the view last built for `kind`; null when that view has no
   *  such node. */
  viewPart(kind: ViewKind, nodeId: number, bound: PartBound): Promise<ViewPart | null>;
  /** The sandwich of the function of node `nodeId` of the view last built for `kind`, made from
   *  the top-down view of the same metric and frames; null for an unknown node or a function with
   *  no call there. Bounded: `partial` says what was left out. */
  sandwich(kind: ViewKind, nodeId: number): Promise<SandwichColumns | null>;
  /** Every metric's statistics at node `nodeId` of the view last built for `kind` and, in a view
   *  by function, the lines merged into it (heaviest first, at most 50; `value` of the view's
   *  metric); null when the node is unknown. */
  nodeMetrics(kind: ViewKind, nodeId: number): Promise<{ metrics: NodeMetricValues[]; lines: NodeLine[] } | null>;
  /**
   * Source of node `nodeId` of a view (the one built for `metricIndex`, default: the metric of
   * the latest view(kind, ...) call). null when the node is unknown or has no source file. With
   * `fusedLine`: line `fusedLine` of the lines the node's fused kernel computes (kind "python",
   * name its function); null when the frame has no such line.
   */
  sourceLocation(kind: ViewKind, nodeId: number, metricIndex?: number, fusedLine?: number): Promise<SourceLocation | null>;
  /**
   * Runs the analyzers (built-in rules, plus rule files) and resolves to the findings document
   * of docs/analyzers.md. Rule-file errors are in `errors` (the other rules still ran); an
   * unknown threshold key rejects.
   */
  analyze(options?: AnalyzeOptions): Promise<Findings>;
  /**
   * The captured region launches (`strata record --regions`) of the kernel at node `nodeId` of
   * the view built for `metricIndex` (default: the metric of the latest view(kind, ...) call);
   * none when the node is not a kernel.
   */
  regionLaunchesOf(kind: ViewKind, nodeId: number, metricIndex?: number): Promise<RegionLaunches>;
  /** Line totals of the metrics `metricIndexes` (one top-down walk in the core); rejects on an
   *  index out of range. */
  lineTotals(metricIndexes: number[]): Promise<LineTotalsColumns>;
  /** This profile (run B) compared with `baseline` (run A) on `metric` (default: the first
   *  additive metric both have): B's whole top-down view with A's value per node, the largest
   *  gains and losses, kernels that appeared or vanished. Rejects with the core's one line when
   *  the two have no call path in common or the metric is missing or not additive. */
  diffAgainst(baseline: Profile, metric?: string, first?: FirstPart): Promise<DiffColumns>;
  /** A distributed job's ranks (a profile from openRankRun); null for any other profile. */
  ranks(): RankRunInfo | null;
  /** Each rank's compute / communication / startup / idle time over the run's window; [] for a
   *  profile not from openRankRun. */
  rankPhases(): Promise<RankPhases[]>;
  /** Per step, from the ranks' recorded collectives (the collectives section): each rank's time
   *  before the step's collective and inside collectives, when it issued it (one realtime clock),
   *  who issued last. `steps` empty without recorded collectives or ranks. */
  rankSteps(): Promise<RankSteps>;
  /** A node's inclusive values over the ranks, for the view last built for `kind` (metric: that
   *  view's, or `metricIndex`'s view); null for an unknown node or a profile without ranks. */
  rankSpread(kind: ViewKind, nodeId: number, metricIndex?: number): Promise<RankSpread | null>;
  /** The ranks on one timeline (steps, collective calls, GPU streams) on one clock; null for a
   *  profile not from openRankRun. At most `maxSlices` slices (default 2,000,000): each lane keeps
   *  its earliest, in proportion, and `truncated` counts the rest. */
  rankTimeline(maxSlices?: number): Promise<RankTimeline | null>;
  /** Releases the profile (pending calls still complete). Later calls throw. */
  close(): void;
  readonly closed: boolean;
}

/** Opens and validates a profile file. */
export interface AnalyzeOptions {
  rules?: string[];                       // rule files (the user-rule language)
  thresholds?: Record<string, number>;    // "hotspot.share": 0.05, ...
  disabled?: string[];                    // rule ids not to run
}

export interface FindingFrame { kind: string; name: string; file: string; line: number; }

export interface Finding {
  rule: string;                           // "hotspot", "kernel-fusion", ... or a user rule id
  severity: 'error' | 'warning' | 'note';
  message: string;
  node: number;                           // top-down view node (metric 0); -1: whole profile
  location: FindingFrame;                 // the source line it is about (file "" when none)
  path: FindingFrame[];                   // call path, root excluded
  evidence: { name: string; value: number; unit: string }[];
  cause: string;                          // what the rule found ("launch-bound", a kernel's name, ...)
  other_paths: FindingFrame[][];          // the call paths of the findings merged into this one
}

/** `profile`: the analyzed file, what a finding without a source line is attached to. */
export interface Findings { format_version: 1; profile: string; findings: Finding[]; errors: string[]; }

export function open(path: string): Promise<Profile>;

/** One additive metric's total over one process (what a list of processes shows). */
export interface ProcessTotal { name: string; unit: string; total: number; count: number }

/** One process of a recorded run (its profile and meta). */
export interface RunProcess {
  path: string;            // its profile
  pid: number;
  parentPid: number;       // 0 for the run's first process
  parentProfile: string;   // the parent's profile file name (same folder), or ""
  command: string;
  ended: string;           // "exit", "_exit", "signal SIGTERM", "checkpoint", ...
  depth: number;           // 0: the first process (or one whose parent's profile is missing)
  totals: ProcessTotal[];  // additive metrics with values, in the profile's order
}

/** The processes of the run at `path` (a folder: every profile in it; a profile: it and the
 *  processes it started), in tree order: a parent before its children, children by pid.
 *  Rejects with one line when there is none. */
export function runProcesses(path: string): Promise<RunProcess[]>;
/** Every process of the run at `path` in one profile: under the root, one frame of kind 9
 *  (process: the command and pid) per process, its tree and metrics below. Meta: the first
 *  process's, plus `processes` (how many) and `run` (their folder). */
export function openRun(path: string): Promise<Profile>;

/** One rank of a distributed job: its process first in `profiles`, then its workers. */
export interface RankInfo {
  rank: number; localRank: number; nodeRank: number;  // -1 when unknown
  host: string;
  profiles: string[]; pids: number[];
  ended: string;                 // how it ended when not by a normal exit; "" otherwise
  startUnixNs: number; endUnixNs: number;  // CLOCK_REALTIME span, 0 when unknown
}
export interface RankRunInfo {
  ranks: RankInfo[];             // by rank number
  missingRanks: number[];        // ranks of world_size without a profile
  leftOut: string[];             // profiles of no rank (the launcher)
}
export interface RankPhases {
  rank: number; metric: string;  // "wall_time" or "cpu_time"
  windowNs: number; computeNs: number; communicationNs: number; startupNs: number; idleNs: number;
  communicationFromCalls: boolean;  // communicationNs is the recorded collective calls' wall time
  overlapShare: number | null;   // collective kernels overlapped by other kernels; null: no GPU activity
}
export interface RankSpread {
  ranks: Int32Array;             // rank numbers, in the order of `values`
  values: Float64Array;          // inclusive value per rank
  min: number; median: number; max: number;
  minRank: number; maxRank: number;
}
export interface RankStep {
  arriveUnixNs: Float64Array;     // per rank (ranks() order): when it issued the step's collective
  computeNs: Float64Array;        // per rank: the step's time outside collectives
  communicationNs: Float64Array;  // per rank: its time inside collectives in the step
  lastRank: number;
  arrivalSpreadNs: number;
}
export interface RankSteps { collective: string; file: string; line: number; steps: RankStep[]; }
export interface RankTimelineLane { rank: number; kind: 'steps' | 'collectives' | 'gpu'; device: number; stream: number; }
export interface RankTimeline {
  originUnixNs: number;           // time 0: the earliest rank's start (unix ns, as a double)
  spanNs: number;
  lanes: RankTimelineLane[];      // by rank, then steps, collectives, GPU streams
  names: string[];
  sources: { file: string; line: number }[];
  // one entry per slice (columns), by lane then start:
  lane: Uint32Array;
  start: Float64Array;            // ns from originUnixNs
  end: Float64Array;
  kind: Uint8Array;               // 0 step, 1 collective, 2 kernel, 3 memcpy, 4 memset
  name: Uint32Array;              // index into names
  node: Float64Array;             // stored node of the merged profile, -1 none
  source: Int32Array;             // index into sources, -1 none
  bytes: Float64Array;
  truncated: number;              // slices left out (maxSlices)
  gpuDropped: number;             // GPU activity records the ranks' runtimes dropped (their limit)
  ranksWithoutClock: number[];    // ranks whose collectives or GPU activities could not be placed
}
/** A distributed job's run folder (profiles with rank meta) as one profile with a rank
 *  dimension: the ranks' trees merged by calling context (no process frames), the launcher left
 *  out, a rank's workers under it. Meta adds `ranks`, `world_size`, `run`, and `ranks_ended`
 *  (which rank ended how, ranks without a profile). Rejects with one line: no rank meta, two
 *  runs in the folder, two processes claiming one rank, an unreadable profile. */
export function openRankRun(path: string): Promise<Profile>;
/** The core's frame kind strings, indexed by numeric kind (as `ViewColumns.frames.kind`). */
export const frameKinds: readonly string[];

/** What to decode (docs/regions.md): a region buffer, a Proton chrome trace, or captured launch
 *  `launch` of a profile recorded with `strata record --regions`. */
export interface RegionRequest {
  source: 'buffer' | 'proton' | 'profile';
  path: string;
  launch?: number;          // source 'profile' (required there)
  names?: string;           // "id=name;..." (buffer, profile: these win over the profile's)
  /** A names file (docs/regions.md: a `.names` table or a harness sidecar JSON), read by the
   *  core: its names after `names`, before the profile's; its clock rate where `cyclesPerNs` is
   *  not given. One the core cannot use is skipped: `namesFileError` of the trace says why. */
  namesFile?: string;
  cyclesPerNs?: number;     // the device's clock64 rate; default: from the buffer / the runtime
  calibration?: string;     // a CalibrationKernel buffer: replayed with its cost per record
  /** The record cost (native/core/include/strata/core/record_cost.h): per record given
   *  outright (not with `calibration`), a cost per start of some regions on top (`startCost`:
   *  "REGION=CYCLES,...", ids or names), or fitted on the kernel's own pair: against
   *  `fitReference`, a trace of the same kernel holding `fitRegion` (ids or names,
   *  comma-separated) with no markers inside, or against its plain and instrumented kernel
   *  times; with `stepRegion` ("R,R") the fit finds a cost per step on top of the per-record one.
   *  A request the core cannot use rejects with one line. */
  recordCost?: number;
  startCost?: string;
  stepRegion?: string;
  fitReference?: string;
  fitRegion?: string;
  fitPlainNs?: number;
  fitInstrumentedNs?: number;
  /** The paced fit: more traces of the kernel at another marker density or length
   *  (comma-separated), with `fitReference`, `fitRegion` (the loops) and `stepRegion`. */
  fitPacedWith?: string;
}

/** Captured launches as columns (one entry per launch, the profile's order). */
export interface RegionLaunches {
  strings: string[];
  index: Uint32Array;         // the launch's index in the profile (RegionRequest.launch)
  kernel: Uint32Array;        // demangled, as the flame graph shows it (into strings)
  mangled: Uint32Array;
  correlationId: Float64Array;
  bytes: Float64Array;        // size of the raw buffer
  total: number;              // launches in the profile (of every kernel)
}

/**
 * A decoded region trace as columns. Times in ns on the trace's axis; start/end replayed (marker
 * cost taken out), raw* as recorded. -1 in iteration / waitNs: none. String columns index into
 * `strings` (0 = "").
 */
export interface RegionTraceColumns {
  cyclesPerNs: number;
  recordCostCycles: number;
  startCostCycles?: { region: number; cycles: number }[];  // per start of these regions, taken out too
  recordCostNote?: string;    // how the cost was had, one line (e.g. fitted on the kernel's own pair)
  strings: string[];
  /** Why the request's names file was not used (one line, without its path); absent when it was. */
  namesFileError?: string;
  /** The names table: region id, its name and its marker's file and line (file 0 / line 0: none). */
  regions: { id: Uint32Array; name: Uint32Array; file: Uint32Array; line: Uint32Array };
  lanes: {
    block: Uint32Array; blockX: Uint32Array; blockY: Uint32Array; blockZ: Uint32Array;
    group: Uint32Array;
    grouping: Uint8Array;     // 0 warp group, 1 warp, 2 custom
    smid: Uint32Array;
    mode: Uint8Array;         // 0 circular, 1 flush
    records: Uint32Array; overflow: Uint32Array;
    startNs: Float64Array; endNs: Float64Array;
    kernel: Uint32Array;      // Proton: the lane's kernel (into strings); 0 otherwise
  };
  intervals: {
    lane: Uint32Array; region: Uint32Array; depth: Uint32Array;
    parent: Int32Array;       // enclosing interval, -1 none
    startNs: Float64Array; endNs: Float64Array; rawStartNs: Float64Array; rawEndNs: Float64Array;
    iteration: Float64Array; waitNs: Float64Array;
    unmatched: Uint8Array;
  };
  issues: { kind: string; count: number; message: string; lane?: number; region?: number }[];
  /** Per lane group, each region's share of the group's time (empty: one group). */
  groups: { group: number; lanes: number; regions: { region: number; share: number; outermost: boolean; container: boolean; async: boolean }[] }[];
  /** The overlap analysis (docs/regions.md "Overlap analysis"): the critical path's segments and
   *  the lanes' bubbles (wait, or idle = 1) on each lane's axis, the model's verdict, each
   *  region's share of the critical path (-1: no region, -2: sync hops), the findings. */
  overlap: RegionOverlapColumns;
}

export interface RegionOverlapColumns {
  path: { lane: Uint32Array; startNs: Float64Array; endNs: Float64Array; sync: Uint8Array };
  bubbles: { lane: Uint32Array; startNs: Float64Array; endNs: Float64Array; idle: Uint8Array };
  model: { kind: string; stages: number; bottleneck: string; measuredNs: number; predictedNs: number };
  pathRegions: { region: number; activity: string; share: number }[];
  findings: { kind: string; region: number; message: string; gainNs: number; gainShare: number }[];
  edges: number;
}

/** Decodes a region buffer, Proton trace or captured launch; rejects with one line
 *  ("<path>: bad_header: ...", "<path>: no launch 3 (...)"). */
export function decodeRegions(request: RegionRequest): Promise<RegionTraceColumns>;
/** Writes the request's trace as a Chrome/Perfetto trace to `outPath` (atomically). */
export function writeRegionChromeTrace(request: RegionRequest, outPath: string): Promise<void>;
/** Every captured launch of a profile; rejects when it carries no region buffers. */
export function regionLaunches(profilePath: string): Promise<RegionLaunches>;

/** A names file read by the core: its names table as columns (as RegionTraceColumns.regions)
 *  and the sidecar's clock rate (0: none). */
export interface RegionNamesColumns {
  strings: string[];
  regions: { id: Uint32Array; name: Uint32Array; file: Uint32Array; line: Uint32Array };
  cyclesPerNs: number;
}
/** Reads a names file (a `.names` table or a harness sidecar JSON); rejects with one line
 *  ("<path>: not valid JSON (...)"). */
export function readRegionNames(path: string): Promise<RegionNamesColumns>;
export const version: string;
