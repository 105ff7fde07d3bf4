// Line heat, the pure part: per source line, the inclusive value of each metric, from the
// addon's top-down view columns. No vscode import: unit-tested under plain node.
//
// A line's value is the sum, over the call paths through it, of the inclusive value of its
// OUTERMOST frame on each path: a recursive function (or a line reached twice on one path)
// would otherwise count the same time once per level and exceed 100%.
import { formatValue } from './format';

/** The columns heat needs (a subset of the addon's ViewColumns). */
export interface HeatColumns {
  strings: readonly string[];
  parent: ArrayLike<number>;
  file: ArrayLike<number>;
  line: ArrayLike<number>;
  inclusive: ArrayLike<number>;
}

/** file (as recorded in the profile) → line (1-based) → inclusive value of the metric. */
export type LineTotals = Map<string, Map<number, number>>;

/** Sums the inclusive value per (file, line), counting each line once per path (outermost). */
export function lineTotals(cols: HeatColumns): LineTotals {
  const n = cols.parent.length;
  const out: LineTotals = new Map();
  // Preorder walk with an explicit stack of open nodes; `open` counts how many nodes of the
  // current path sit on each (file, line) key.
  const open = new Map<number, number>();
  const stack: number[] = [];
  const keyOf = (i: number): number => {
    const f = cols.file[i], l = cols.line[i];
    return f > 0 && l > 0 ? f * 4294967296 + l : -1;   // file index and line in one exact double
  };
  for (let i = 1; i < n; i++) {
    const p = cols.parent[i];
    while (stack.length > 0 && stack[stack.length - 1] !== p) {
      const k = keyOf(stack.pop()!);
      if (k >= 0) open.set(k, open.get(k)! - 1);
    }
    stack.push(i);
    const k = keyOf(i);
    if (k < 0) continue;
    const depth = open.get(k) ?? 0;
    open.set(k, depth + 1);
    if (depth > 0) continue;   // an outer frame of this path already counted this line
    const file = cols.strings[cols.file[i]] ?? '';
    if (!file) continue;
    let lines = out.get(file);
    if (!lines) out.set(file, lines = new Map());
    const line = cols.line[i];
    lines.set(line, (lines.get(line) ?? 0) + cols.inclusive[i]);
  }
  return out;
}

export interface MetricHeat {
  metric: string;       // "cpu_time", "wall_time", "gpu_time", "pc_samples", "stall_<reason>"
  unit: string;
  total: number;        // inclusive value of the root
  lines: LineTotals;
}

/** CUPTI bookkeeping counters exported beside the stall reasons: not reasons. */
const NOT_A_REASON = new Set(['stall_sample_count', 'stall_samples_data_dropped']);

const isStall = (m: string): boolean => m.startsWith('stall_');

/** Which metrics line heat shows, in order: the time metrics, PC samples, then every stall
 *  reason. A kernel's CUDA/Triton lines carry no time of their own, only the PC samples of
 *  the instructions compiled from them (pc frames), so pc_samples is what heats them. */
export function heatMetrics(names: readonly string[]): string[] {
  const time = ['cpu_time', 'wall_time', 'gpu_time', 'pc_samples'].filter((m) => names.includes(m));
  return [...time, ...names.filter((m) => isStall(m) && !NOT_A_REASON.has(m))];
}

export interface LineInfo {
  share: number;                              // of the primary metric's total, 0..1
  text: string;                               // "▮ 12.3% cpu 1.2 s · gpu 30 ms · stall long_scoreboard 66%"
  values: { metric: string; value: number; unit: string; share: number }[];
  topStall?: string;                          // reason, without "stall_"
}

const SHORT: Record<string, string> = { cpu_time: 'cpu', wall_time: 'wall', gpu_time: 'gpu', pc_samples: 'pc samples' };

/** Line heat of a profile: the metrics' totals per line, looked up per editor line. */
export class LineHeat {
  /** The metric whose share colours the line: the first time metric present. */
  readonly primary: MetricHeat | undefined;
  /** What colours a line the primary metric does not reach (a kernel's source lines). */
  private readonly samples: MetricHeat | undefined;

  constructor(readonly metrics: readonly MetricHeat[]) {
    this.primary = metrics.find((m) => !isStall(m.metric));
    this.samples = metrics.find((m) => m.metric === 'pc_samples');
  }

  /** Every file (as recorded) with at least one line that has a value. */
  files(): string[] {
    const s = new Set<string>();
    for (const m of this.metrics) for (const f of m.lines.keys()) s.add(f);
    return [...s];
  }

  /** Lines of `file` with a value in any time metric, with their description. */
  linesOf(file: string): Map<number, LineInfo> {
    const lines = new Set<number>();
    for (const m of this.metrics) {
      if (isStall(m.metric)) continue;
      for (const l of m.lines.get(file)?.keys() ?? []) lines.add(l);
    }
    const out = new Map<number, LineInfo>();
    for (const l of lines) {
      const info = this.describe(file, l);
      if (info) out.set(l, info);
    }
    return out;
  }

  describe(file: string, line: number): LineInfo | undefined {
    const values: LineInfo['values'] = [];
    let top: { reason: string; value: number } | undefined;
    let stalls = 0;
    for (const m of this.metrics) {
      const v = m.lines.get(file)?.get(line) ?? 0;
      if (!(v > 0)) continue;
      if (isStall(m.metric)) {
        stalls += v;
        if (!top || v > top.value) top = { reason: m.metric.slice('stall_'.length), value: v };
      }
      values.push({ metric: m.metric, value: v, unit: m.unit, share: m.total > 0 ? v / m.total : 0 });
    }
    const times = values.filter((v) => !isStall(v.metric));
    if (times.length === 0) return undefined;
    // The share of the primary metric; a line only PC samples reach (kernel code) by its share
    // of the samples, so that the hottest CUDA line is as bright as the hottest host line.
    const primary = (this.primary ? values.find((v) => v.metric === this.primary!.metric) : undefined)
      ?? (this.samples ? values.find((v) => v.metric === 'pc_samples') : undefined);
    const share = primary?.share ?? 0;
    const parts = times.map((v) => `${SHORT[v.metric] ?? v.metric} ${formatValue(v.value, v.unit)}`);
    // The reason's share of the line's samples tells a dominant stall from a mixed line.
    // Floored: a line at 99.7% is not all one reason.
    if (top) parts.push(`stall ${top.reason} ${Math.floor((100 * top.value) / stalls)}%`);
    const pct = primary ? `${(share * 100).toFixed(1)}% ` : '';
    return { share, values, topStall: top?.reason, text: `▮ ${pct}${parts.join(' · ')}` };
  }
}

/** Which recorded file an editor's file is: the same path, else the one recorded path with the
 *  same base name that shares the longest path suffix with it (a checkout moved or recorded on
 *  another machine). undefined when none, or when two candidates tie. */
export function matchProfileFile(docPath: string, recorded: Iterable<string>): string | undefined {
  const parts = docPath.split(/[\\/]/).reverse();
  let best: string | undefined;
  let bestScore = 0;
  let tie = false;
  for (const r of recorded) {
    if (r === docPath) return r;
    const q = r.split(/[\\/]/).reverse();
    let k = 0;
    while (k < parts.length && k < q.length && parts[k] === q[k]) k++;
    if (k === 0) continue;   // not even the same base name
    if (k > bestScore) { best = r; bestScore = k; tie = false; } else if (k === bestScore) tie = true;
  }
  return tie ? undefined : best;
}
