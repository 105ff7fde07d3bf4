// Messages between the extension host and the webview (versioned). The webview never reads
// files: everything it shows arrives here. The extension imports these types.
// v2: 'highlightSource' (the frames of one source line, from the editor's cursor).
// v3: 'timeline' (an in-kernel region trace, docs/regions.md) with 'openRegionSource' and
//     'exportChromeTrace' back; every v2 message is unchanged.
// v4: 'showRegionTimeline' (webview -> extension): the focused kernel's in-kernel regions, from
//     the region buffers the profile carries; every v3 message is unchanged.
// v5: 'profile' data as a frame table (`frames`, one entry per distinct frame) and a per-node
//     `frame` index, instead of kind/name/file/line/module per node; a 'timeline' trace names its
//     regions in one typed table (`regions`: id, name, file, line) instead of a "file:line"
//     `location` per interval.
// v6: the frame table's `origin` (whose code: FrameOrigin) and `flags` (FrameFlag: a truncated
//     stack's marker); FlameData `frameFilter` / `byFunction` (the Python view, merged lines);
//     'profile' `metricInfo` (every metric's unit, nature and event count; `metrics` lists the
//     additive ones with values: what widths can be); 'requestView' `frames` / `byFunction`;
//     'requestDetails' → 'details' (every metric's statistics at one node, and the lines merged
//     into it in a view by function). Every v5 message is
//     unchanged; the new fields are optional.
// v7: large views arrive in parts: 'profile' data may be the part of the view wider than half a
//     pixel (`node`: each node's id in the host's view, `more`: children left out, all under
//     `minValue`; `nodes`: the whole view's size; `viewId`: which view), and the webview asks for
//     a node's part when zoomed into it ('requestNodes' → 'nodes'). Node ids in 'openSource',
//     'requestDetails', 'showRegionTimeline', 'details' and 'highlight' are the host's ids (the
//     indexes when the data is whole, as before). The sandwich is made by the host
//     ('requestSandwich' → 'sandwich'); 'progress' while the host opens a profile or builds a
//     view; 'ready' and 'requestView' carry the graph's `width`. Every v6 message is unchanged.
// v8: a fused kernel's frame carries every source line it computes: the frame table's optional
//     `fusedOffset` / `fusedFile` / `fusedFunction` / `fusedLine` columns (typed records, never
//     a "fuses a.py:12" name), and 'openSource' an optional `fusedLine` (which of them to open).
//     And 'diff' (two runs compared: B's view with A's value per node, the largest gains and
//     losses, kernels that appeared or vanished; docs/architecture.md "Two runs compared"); the
//     webview asks for its nodes' lines with 'openSource' as for a profile, and for a row's
//     line (the user's line on its path) with 'openDiffRow'. Every v7 message is unchanged.
// v9: a large 'diff' arrives in parts as a large 'profile' does: its data may be the part of B's
//     view wider than half a pixel (`node`, `more`, `minValue`, `nodes`, `viewId`, with
//     `baseline` / `match` for the nodes sent and `largestChange`, what colours are scaled to),
//     the webview asks for a node's part ('requestNodes' → 'nodes', whose part then carries
//     `baseline` / `match` too) and, for a row whose node it has not been sent, for the nodes
//     from the root to it ('requestPath' → 'nodes'). Every v8 message is unchanged.
// v10: a distributed job's run (ranks): 'ranks' (each rank's compute / communication / startup /
//     idle time and its median step, how it ended, the straggler ranks, which rank the graph shows), 'details' an
//     optional `spread` (the node's value on each rank: min / median / max and who holds them),
//     'selectRank' back (one rank alone, or null: every rank). Every v9 message is unchanged.
// v11: a distributed job's ranks on one timeline: 'rankTimeline' (per rank its steps, collective
//     calls and GPU streams' activities on one clock, as plain columns), 'openRankSlice' back (the
//     source line of one slice) and 'showRankTimeline' (the ranks panel asks for the timeline).
//     Every v10 message is unchanged.
export const PROTOCOL_VERSION = 11;

export type ViewName = 'top-down' | 'bottom-up';

/** Frame kinds, numeric values as in the profile format (generated from its layout.h). */
export { FrameKind } from './frameKinds.generated';

/** Whose code a frame is (the core's FrameOrigin, same numbers). */
export const enum FrameOrigin {
  None = 0,        // the root, thread frames, truncation markers
  User = 1,        // the user's source files / program binaries
  Library = 2,     // site-packages, the standard library, system and package shared objects
  Interpreter = 3, // the Python interpreter's own native frames
  Gpu = 4,         // CUDA API calls, kernels, instructions, regions
}

/** FrameTable.flags bits. */
export const enum FrameFlag {
  /** Where a call stack was cut (depth limit, unwind failure): its callers are unknown. */
  Truncated = 1,
}

/** Which frames a view shows: 'python' folds the interpreter's own frames into the Python line
 *  they serve; 'all' shows every frame. */
export type FrameFilterName = 'python' | 'all';

/** Additive metrics can be widths; attributes are read as mean / min / max per frame. */
export type MetricNature = 'additive' | 'attribute';

/** v6: one metric of the profile. */
export interface MetricDescriptor {
  name: string;
  unit: string;
  nature: MetricNature;
  count: number;           // events recorded in the whole profile (0: no values here)
}

/** v6: one metric's statistics at one node ('details'). */
export interface NodeMetricValues {
  name: string;
  unit: string;
  nature: MetricNature;
  inclusive: number;
  exclusive: number;
  count: number;           // exclusive events
  min: number; max: number; mean: number; std: number;   // of the exclusive values
}

/** v6: one line merged into a node of a view by function ('details'). */
export interface NodeLine { file: string; line: number; value: number }

/**
 * The distinct frames of a view, one entry each (nodes name theirs by index: many nodes share a
 * frame). String columns index into the view's `strings` (0 = "").
 */
export interface FrameTable {
  kind: Uint8Array;        // FrameKind
  name: Uint32Array;
  file: Uint32Array;
  line: Uint32Array;       // 0 = unknown
  module: Uint32Array;
  origin?: Uint8Array;     // v6: FrameOrigin (absent: all None)
  flags?: Uint8Array;      // v6: FrameFlag bits (absent: none)
  /** v8: a fused kernel's frame: the source lines it computes, in the compiler's order (CSR:
   *  entry f's are [fusedOffset[f], fusedOffset[f + 1]) of fusedFile / fusedFunction (strings) and
   *  fusedLine). Absent: no frame of the view is fused. */
  fusedOffset?: Uint32Array;   // entries + 1
  fusedFile?: Uint32Array;
  fusedFunction?: Uint32Array;
  fusedLine?: Uint32Array;
}

/**
 * A tree of nodes as columns, as the addon builds a view and the flame graph draws it. Nodes are
 * in preorder: parent[i] < i, parent[0] = -1; frame[i] indexes `frames`.
 */
export interface NodeColumns {
  strings: string[];
  frames: FrameTable;
  parent: Int32Array;
  frame: Uint32Array;
  inclusive: Float64Array;
  exclusive: Float64Array;
}

/** v7: what a node of a part of a view lacks (PartColumns.more). */
export const enum LeftOut {
  None = 0,
  /** Children under the part's minValue: needed once that is worth half a pixel. */
  Narrow = 1,
  /** Every child, whatever its value (past the rows the part went down to). */
  Any = 2,
}

/**
 * v7: nodes of a part of a view, beside NodeColumns: each node's id in the host's view, what it
 * lacks, and the bound its narrow left-out children are under. Absent: the whole view, ids are
 * the indexes.
 */
export interface PartColumns {
  node?: Uint32Array;
  more?: Uint8Array;       // LeftOut per node
  minValue?: number;       // 0 or absent: nothing narrow left out
}

/** One view of a profile, for the flame graph. */
export interface FlameData extends NodeColumns, PartColumns {
  view: ViewName;
  metric: string;          // e.g. "cpu_time"
  unit: string;            // e.g. "ns"
  total: number;           // inclusive value of the root
  frameFilter?: FrameFilterName;  // v6: absent = 'all'
  byFunction?: boolean;    // v6: top-down siblings of one function merged (the heaviest line shown)
  nodes?: number;          // v7: the whole view's node count (absent: parent.length)
  viewId?: number;         // v7: the host's view these nodes are of ('requestNodes' names it)
}

/** v7: the part under one node of a view ('nodes'): node 0 is that node; frames index the
 *  view's frame table (the 'profile' message's). */
export interface NodePart extends PartColumns {
  parent: Int32Array;
  frame: Uint32Array;
  inclusive: Float64Array;
  exclusive: Float64Array;
  node: Uint32Array;
  more: Uint8Array;
  minValue: number;
  /** v9, a diff's part: A's inclusive value and the match (DiffMatch) per node. */
  baseline?: Float64Array;
  match?: Uint8Array;
}

/** v7: the sandwich of one function ('sandwich'): callers and callees as top-down data, one frame
 *  table; `partial` says what a bound left out. */
export interface SandwichData {
  calls: number;           // outermost calls of the function
  callers: FlameData;
  callees: FlameData;
  partial?: string;
}

/** v7: the host is working (opening a profile, building a view or a sandwich) for `elapsedMs`. */
export interface Progress {
  id: number;              // one per call: calls can overlap (a view, then a sandwich)
  active: boolean;         // false: done (hide it)
  label: string;           // what, for the user: "Building the bottom-up view"
  elapsedMs: number;
}

/** v8: how a node or call path of run B found its counterpart in run A (core DiffMatch). */
export const enum DiffMatch { Exact = 0, Fuzzy = 1, OnlyB = 2, OnlyA = 3 }
/** v8: a frame of a diff row (rows of A's only paths are not in B's frame table). */
export interface DiffFrame { kind: string; name: string; file: string; line: number }
/** v8: one call path's self value in each run. */
export interface DiffRowData {
  frame: DiffFrame | null;
  userFrame?: DiffFrame;   // the innermost frame of the user's code on the path
  a: number;
  b: number;
  match: 'exact' | 'fuzzy' | 'only in B' | 'only in A';
  node: number;            // its node in the diff's view (B's), -1 when only A has it
}
/** v8: two runs compared ('diff'): B's whole top-down view (the flame graph), with per node A's
 *  inclusive value of its matched path (`baseline`) and how it matched (`match`: DiffMatch).
 *  v9: or its first part (PartColumns, `nodes`, `viewId`), as a large 'profile' comes. */
export interface DiffData extends NodeColumns, PartColumns {
  metric: string;
  unit: string;
  totalA: number;
  totalB: number;
  commonPaths: number;
  fuzzyPaths: number;
  frameFilter?: FrameFilterName;
  count?: Float64Array;
  baseline: Float64Array;
  match: Uint8Array;
  nodes?: number;          // v9: B's view's node count (absent: parent.length)
  viewId?: number;         // v9: which diff its parts are asked of ('requestNodes', 'requestPath')
  largestChange?: number;  // v9: the largest change of any node but the root, of the whole view
  rows: DiffRowData[];     // largest absolute change first
  appeared: { name: string; value: number }[];
  vanished: { name: string; value: number }[];
}

/** v3: one lane of a decoded region trace (`strata regions --format json`, docs/regions.md). */
export interface RegionLane {
  block: number;              // linear block index
  block_xyz?: number[];
  group: number;              // lane index inside the block (warp group, warp or custom group)
  grouping?: string;          // "warp-group" | "warp" | "custom"
  smid: number;
  mode?: string;              // "circular" | "flush"
  records?: number;
  overflow?: number;
  start_ns: number;
  end_ns: number;
}

/** v3: one interval of a region trace. Times in ns on the trace's axis; start/end are replayed
 *  (marker cost taken out), raw_* as recorded. */
export interface RegionInterval {
  lane: number;               // index into lanes
  region: number;             // region id (0..4095)
  name?: string;
  depth: number;
  parent?: number;
  start_ns: number;
  end_ns: number;
  raw_start_ns?: number;
  raw_end_ns?: number;
  iteration?: number;         // loop iteration intervals (STRATA_ITER_START/END)
  wait_ns?: number;           // async regions: the wait (end - second start)
  unmatched?: boolean;
}

export interface RegionIssue { kind: string; count: number; message: string; lane?: number; region?: number }

/** v3: the decoded trace as the CLI writes it (extra fields are ignored). */
/** Per lane group, each region's share of the group's time (the core's GroupShares). */
export interface RegionShare { region: number; name: string; share: number; outermost: boolean; container: boolean; async: boolean }
export interface RegionGroupShare { group: number; lanes: number; regions: RegionShare[] }

/** v5: what region id `id` is called and where its marker is: `file` as the names table wrote it
 *  (relative to the names file's folder, or absolute), `line` 1-based; both absent when the names
 *  gave no location. */
export interface RegionName { id: number; name: string; file?: string; line?: number }

/** The overlap analysis of a trace (optional: older hosts and traces leave it out) (docs/regions.md "Overlap analysis"): the critical path
 *  through the lanes and the lanes' bubbles, each a list of pieces on a lane's axis; the model's
 *  verdict; each region's share of the critical path (region -1: in no region, -2: the hops from
 *  a release to the waiter); findings with the region they name. */
export interface RegionPathPiece { lane: number; start_ns: number; end_ns: number; sync?: boolean }
export interface RegionBubble { lane: number; start_ns: number; end_ns: number; idle?: boolean }
export interface RegionOverlap {
  path: RegionPathPiece[];
  bubbles: RegionBubble[];
  model?: { kind: string; stages: number; bottleneck: string; measured_ns: number; predicted_ns: number };
  path_regions?: { region: number; name: string; activity: string; share: number }[];
  findings?: { kind: string; region: number; name: string; message: string; gain_ns: number; gain_share: number }[];
}

export interface RegionTraceData {
  overlap?: RegionOverlap;
  cycles_per_ns?: number;
  record_cost_cycles?: number;
  regions?: RegionName[];       // the names table (v5)
  lanes: RegionLane[];
  intervals: RegionInterval[];
  issues?: RegionIssue[];
  groups?: RegionGroupShare[];  // several lane groups only; largest share first
}

/** v10: a node's value on each rank of a distributed job (the drawn metric, inclusive). */
export interface RankSpreadData {
  ranks: number[];              // rank numbers, in the order of `values`
  values: number[];
  min: number; median: number; max: number;
  minRank: number; maxRank: number;
}

/** v10: one rank of a distributed job: where its time over the run's window went. */
export interface RankRow {
  rank: number;
  host: string;
  /** How it ended when not by a normal exit ("signal SIGKILL", "checkpoint", ...); "" otherwise. */
  ended: string;
  windowNs: number; computeNs: number; communicationNs: number; startupNs: number; idleNs: number;
  /** Collective kernels overlapped by other kernels (0..1); null: no GPU activity. */
  overlapShare: number | null;
  /** Its median step (steps told by the recorded collectives): time outside and inside
   *  collectives, and in how many steps it issued the collective last; absent without steps. */
  step?: { computeNs: number; communicationNs: number; issuedLast: number };
}

/** v10: the ranks of the run a viewer shows. */
export interface RanksData {
  metric: string;               // what the phases are measured in ("wall_time", "cpu_time")
  ranks: RankRow[];             // by rank number
  missing: number[];            // ranks of the world size without a profile
  stragglers: number[];         // ranks the analyzers call stragglers
  /** The rank the graph shows alone; null: every rank merged. */
  selected: number | null;
  /** The steps, each ended by this collective (the ranks' recorded collectives); absent: none recorded. */
  steps?: { collective: string; file: string; line: number; count: number };
}

/** v11: one lane of a distributed job's timeline: a rank's steps, its collective calls, or one
 *  GPU stream (device, stream: 'gpu' only). */
export interface RankLaneData { rank: number; kind: 'steps' | 'collectives' | 'gpu'; device: number; stream: number }

/** v11: what a slice of the ranks' timeline is (the core's RankSliceKind, same numbers). */
export const enum RankSliceKind { Step = 0, Collective = 1, Kernel = 2, Memcpy = 3, Memset = 4 }

/** v11: a distributed job's ranks on one timeline (the addon's RankTimeline as plain arrays:
 *  typed arrays do not survive the webview's message). Slices are columns, by lane then start;
 *  times in ns from the earliest rank's start. */
export interface RankTimelineData {
  originUnixNs: number;
  spanNs: number;
  /** Each rank's host (the ranks' meta), for the rank groups' labels. */
  hosts: { rank: number; host: string }[];
  lanes: RankLaneData[];        // by rank, then steps, collectives, GPU streams
  names: string[];
  sources: { file: string; line: number }[];
  lane: number[];               // index into lanes
  start: number[];
  end: number[];
  kind: number[];               // RankSliceKind
  name: number[];               // index into names
  source: number[];             // index into sources, -1 none
  bytes: number[];              // bytes moved, 0 unknown
  truncated: number;            // slices left out (the host's limit)
  gpuDropped: number;           // GPU activity records the ranks' runtimes dropped
  ranksWithoutClock: number[];  // ranks whose collectives could not be placed on the clock
}

/** extension -> webview */
export type HostMessage =
  | { type: 'profile'; version: number; title: string; metrics: string[]; data: FlameData; metricInfo?: MetricDescriptor[] }
  // v6: the answer to 'requestDetails' (empty `metrics`: the node is unknown).
  | { type: 'details'; node: number; view: ViewName; metrics: NodeMetricValues[]; lines?: NodeLine[]; spread?: RankSpreadData }
  // v10: the ranks of a distributed job's run (sent after its first view, again when it changes).
  | { type: 'ranks'; data: RanksData }
  | { type: 'error'; message: string }
  // v7: the part under node `root` (a host id) of view `viewId`, answering 'requestNodes'.
  | { type: 'nodes'; viewId: number; root: number; part: NodePart }
  // v7: the sandwich of the function of node `node` (a host id of view `view`); null data: the
  // function is not in the view (it was rebuilt).
  | { type: 'sandwich'; view: ViewName; node: number; data: SandwichData | null }
  | { type: 'progress'; progress: Progress }
  // A line for the user that is no error: progress while a view is built ("Building the
  // bottom-up view… 2.1 s"), why a view is partial; "" clears it.
  | { type: 'status'; message: string }
  | { type: 'highlight'; nodes: number[] }    // nodes to outline (e.g. frames of a source line)
  // v2: outline every frame at `file`:`line` (file as recorded in the profile, i.e. one of
  // FlameData.strings; line 1-based). Kept across view switches until the next one; file ""
  // clears it. Unlike 'highlight' it never changes the zoom: the cursor moving in an editor must
  // not move the graph under the user.
  | { type: 'highlightSource'; file: string; line: number }
  // v3: show a region trace as a timeline instead of the flame graph. `sources`: where each
  // region's marker is (region id → "file:line", for the tooltip); `canExport`: the host can
  // write a Chrome trace of it (it has the buffer).
  | { type: 'timeline'; version: number; title: string; data: RegionTraceData; sources?: Record<string, string>; canExport?: boolean }
  | { type: 'diff'; version: number; title: string; nameA: string; nameB: string; data: DiffData }
  // v11: a distributed job's ranks on one timeline instead of the flame graph.
  | { type: 'rankTimeline'; version: number; title: string; data: RankTimelineData };

/** webview -> extension */
export type WebviewMessage =
  | { type: 'ready'; version: number; width?: number }
  | { type: 'openSource'; node: number; view: ViewName; fusedLine?: number }   // v8: fusedLine: which of the frame's fused lines
  | { type: 'requestView'; view: ViewName; metric: string; frames?: FrameFilterName; byFunction?: boolean; width?: number }
  // v7: the part of view `viewId` under node `node` (a host id) down to `minValue` (what half a
  // pixel is worth at the zoom the user reached).
  | { type: 'requestNodes'; viewId: number; view: ViewName; node: number; minValue: number }
  // v7: the sandwich of the function of node `node` of the view on screen.
  | { type: 'requestSandwich'; view: ViewName; node: number }
  // v6: every metric's statistics at `node` of the view on screen (answered with 'details').
  | { type: 'requestDetails'; node: number; view: ViewName }
  // v3 (timeline): open the source line of a region's marker; write the trace as Chrome JSON.
  | { type: 'openRegionSource'; region: number; lane?: number }
  | { type: 'exportChromeTrace' }
  | { type: 'openDiffRow'; row: number }      // v8: the line of the diff's rows[row]
  // v9 (diff): the nodes from the root to node `node` (a host id) of diff `viewId`, answered
  // with 'nodes' (a part rooted at the root): a row's node the webview has not been sent.
  | { type: 'requestPath'; viewId: number; node: number }
  // v4 (flame graph): show the region timeline of a kernel node that has region children (the
  // host asks the core for that node's captured launches); `kernel` is its frame name as shown,
  // for messages only.
  | { type: 'showRegionTimeline'; node: number; view: ViewName; kernel: string }
  // v10: show one rank of a distributed job alone (its own profiles), or null: every rank merged.
  | { type: 'selectRank'; rank: number | null }
  // v11 (ranks panel): show this run's ranks on one timeline (strata.showRankTimeline).
  | { type: 'showRankTimeline' }
  // v11 (rank timeline): open the source line of slice `slice` (its index in the columns).
  | { type: 'openRankSlice'; slice: number };
