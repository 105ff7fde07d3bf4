// Types of the Strata N-API addon (strata_addon.node), a thin async layer over the analysis
// core (native/core). Load it with require('<path>/strata_addon.node').
// Everything that reads the file or builds a view returns a Promise and runs on the libuv
// thread pool; rejections are Errors whose message is the core's one-line message
// ("not a Strata profile: ..."). Invalid arguments (a bad view kind, a negative index) throw
// a TypeError/RangeError synchronously.

export type ViewKind = 'top-down' | 'bottom-up' | 'flat';

export interface MetricInfo {
  name: string;   // "cpu_time", "wall_time", ...
  unit: string;   // "ns", "count", "bytes"
}

/**
 * One view as columns, one entry per node. Nodes are in preorder: parent[i] < i,
 * parent[0] = -1 (the root). String columns (name, file, module) index into `strings`
 * (strings[0] = ""). `kind` uses the numeric frame kinds of the profile format / webview
 * protocol: 0 root, 1 python, 2 native, 3 operator, 4 gpu_api, 5 kernel, 6 pc, 7 region, 8 thread.
 * inclusive/exclusive/count are of the metric `metricIndex`.
 */
export interface ViewColumns {
  view: ViewKind;
  metric: string;        // name of the metric (metrics()[metricIndex].name; "" if none)
  unit: string;
  metricIndex: number;
  total: number;         // inclusive value of the root
  strings: string[];
  parent: Int32Array;
  kind: Uint8Array;
  name: Uint32Array;
  file: Uint32Array;
  line: Uint32Array;     // 0 = unknown
  module: Uint32Array;
  inclusive: Float64Array;
  exclusive: Float64Array;
  count: Float64Array;   // exclusive sample/event count
}

export interface SourceLocation {
  file: string;          // absolute path as recorded / symbolized
  line: number;          // 0 = unknown
  name: string;
  kind: string;          // "python", "native", "kernel", ...
  module: string;
}

export interface Profile {
  /** Meta entries of the profile (command, how the target ended, host, ...). */
  meta(): Record<string, string>;
  metrics(): MetricInfo[];
  /** Builds (or returns the cached) view; children ordered by the metric `metricIndex`. */
  view(kind: ViewKind, metricIndex?: number): Promise<ViewColumns>;
  /**
   * Source of node `nodeId` of a view (the one built for `metricIndex`, default: the metric of
   * the latest view(kind, ...) call). null when the node is unknown or has no source file.
   */
  sourceLocation(kind: ViewKind, nodeId: number, metricIndex?: number): Promise<SourceLocation | null>;
  /**
   * Runs the analyzers (built-in rules, plus rule files) and resolves to the findings document
   * of docs/analyzers.md. Rule-file errors are in `errors` (the other rules still ran); an
   * unknown threshold key rejects.
   */
  analyze(options?: AnalyzeOptions): Promise<Findings>;
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
}

export interface Findings { format_version: 1; findings: Finding[]; errors: string[]; }

export function open(path: string): Promise<Profile>;
export const version: string;
