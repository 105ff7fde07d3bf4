// Line heat, the pure part: per source line, the inclusive value of each metric (the core sums
// them: Profile.lineTotals), described for the editor. No vscode import: unit-tested under plain
// node.
import type { LineTotalsColumns, MetricInfo } from '../../native/addon/index';
import { formatEditorValue } from '../../webview/src/model/format';

/** file (as recorded in the profile) → line (1-based) → inclusive value of the metric. */
export type LineTotals = Map<string, Map<number, number>>;

/** The addon's line totals, one map per metric asked for (in that order). */
export function lineTotalsByMetric(cols: LineTotalsColumns): LineTotals[] {
  return cols.values.map((values) => {
    const out: LineTotals = new Map();
    for (let i = 0; i < cols.file.length; i++) {
      const file = cols.strings[cols.file[i]] ?? '';
      let lines = out.get(file);
      if (!lines) out.set(file, lines = new Map());
      lines.set(cols.line[i], values[i]);
    }
    return out;
  });
}

export interface MetricHeat {
  metric: string;       // "cpu_time", "wall_time", "gpu_time", "pc_samples", "stall_<reason>"
  unit: string;
  total: number;        // inclusive value of the root
  lines: LineTotals;
}

const isStall = (m: string): boolean => m.startsWith('stall_');

/** Which metrics line heat shows, in order: the time metrics, PC samples, then every stall
 *  reason (not CUPTI's bookkeeping counters beside them: the core's stall classes say which).
 *  A kernel's CUDA/Triton lines carry no time of their own, only the PC samples of the
 *  instructions compiled from them (pc frames), so pc_samples is what heats them. */
export function heatMetrics(metrics: readonly Pick<MetricInfo, 'name' | 'stall'>[]): string[] {
  const names = metrics.map((m) => m.name);
  const time = ['cpu_time', 'wall_time', 'gpu_time', 'pc_samples'].filter((m) => names.includes(m));
  return [...time, ...metrics.filter((m) => isStall(m.name) && m.stall !== undefined && m.stall !== 'not_a_reason').map((m) => m.name)];
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
    const parts = times.map((v) => `${SHORT[v.metric] ?? v.metric} ${formatEditorValue(v.value, v.unit)}`);
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
