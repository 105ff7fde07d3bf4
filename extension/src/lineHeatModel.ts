// Line heat, the pure part: per source line, the inclusive value of each metric (the core sums
// them: Profile.lineTotals), described for the editor. No vscode import: unit-tested under plain
// node.
import type { LineTotalsColumns, MetricInfo } from '../../native/addon/index';
import { formatEditorValue } from '../../webview/src/model/format';

/** file (as recorded in the profile) → line (1-based) → inclusive value of the metric. */
export type LineTotals = Map<string, Map<number, number>>;

/** The addon's line totals, one map per metric asked for (in that order); `part` picks the
 *  backward part (under autograd backward operators) or the fused part (fused kernels computing
 *  the line) instead of the whole value. */
export function lineTotalsByMetric(cols: LineTotalsColumns, part: 'values' | 'backward' | 'fused' = 'values'): LineTotals[] {
  return (cols[part] ?? []).map((values) => {
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
  /** The part of `lines` under autograd backward operators: backward kernels the runtime put
   *  under their forward's line. */
  backward?: LineTotals;
  /** The part of `lines` from fused kernels that compute the line (torch.compile): a fused
   *  kernel's time shows on every line it fuses. */
  fused?: LineTotals;
}

const isStall = (m: string): boolean => m.startsWith('stall_');

/** Which metrics line heat shows, in order: the time metrics, PC samples, then every stall
 *  reason (not CUPTI's bookkeeping counters beside them: the core's stall classes say which).
 *  A kernel's CUDA/Triton lines carry no time of their own, only the PC samples of the
 *  instructions compiled from them (pc frames), so pc_samples is what heats them. */
export function heatMetrics(metrics: readonly Pick<MetricInfo, 'name' | 'stall'>[], selected?: string): string[] {
  const names = metrics.map((m) => m.name);
  const time = ['cpu_time', 'wall_time', 'gpu_time', 'pc_samples'].filter((m) => names.includes(m));
  const stalls = metrics.filter((m) => isStall(m.name) && m.stall !== undefined && m.stall !== 'not_a_reason').map((m) => m.name);
  // The viewer's metric shades the lines: asked for too when it is none of the above (api_time,
  // memcpy_bytes, launches, ...).
  const extra = selected && names.includes(selected) && !time.includes(selected) && !stalls.includes(selected) ? [selected] : [];
  return [...time, ...extra, ...stalls];
}

export interface LineInfo {
  share: number;                              // of the shading metric's total, 0..1
  /** Short, so that it is not clipped at the editor's edge: the shading metric (its backward
   *  and fused parts labelled), the other times, the top stall.
   *  "▮ 12.3% gpu 1.2 s (0.9 s backward) (0.4 s fused) · cpu 30 ms" */
  text: string;
  /** Every metric of the line (the hover's table); `backward`: the part under backward operators;
   *  `fused`: the part from fused kernels computing this line. */
  values: { metric: string; value: number; unit: string; share: number; backward: number; fused: number }[];
  topStall?: string;                          // reason, without "stall_"
  /** The metric whose share shades the line. */
  shading?: string;
}

const SHORT: Record<string, string> = { cpu_time: 'cpu', wall_time: 'wall', gpu_time: 'gpu', pc_samples: 'pc samples' };
const TIMES = new Set(['cpu_time', 'wall_time', 'gpu_time']);

/** Line heat of a profile: the metrics' totals per line, looked up per editor line. */
export class LineHeat {
  /** The metric whose share shades the lines: the viewer's metric when line heat has it, else
   *  the first time metric present. */
  readonly primary: MetricHeat | undefined;
  /** What colours a line the primary metric does not reach (a kernel's source lines). */
  private readonly samples: MetricHeat | undefined;

  constructor(readonly metrics: readonly MetricHeat[], selected?: string) {
    this.primary = metrics.find((m) => m.metric === selected && !isStall(m.metric)) ?? metrics.find((m) => !isStall(m.metric));
    this.samples = metrics.find((m) => m.metric === 'pc_samples');
  }

  /** The same lines shaded by another metric (the viewer's metric changed). */
  withMetric(selected: string | undefined): LineHeat {
    return new LineHeat(this.metrics, selected);
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
      if (m !== this.primary && !TIMES.has(m.metric) && m.metric !== 'pc_samples') continue;
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
      const backward = m.backward?.get(file)?.get(line) ?? 0;
      const fused = m.fused?.get(file)?.get(line) ?? 0;
      values.push({ metric: m.metric, value: v, unit: m.unit, share: m.total > 0 ? v / m.total : 0, backward, fused });
    }
    const times = values.filter((v) => !isStall(v.metric));
    if (times.length === 0) return undefined;
    // The share of the primary metric; a line only PC samples reach (kernel code) by its share
    // of the samples, so that the hottest CUDA line is as bright as the hottest host line.
    const primary = (this.primary ? values.find((v) => v.metric === this.primary!.metric) : undefined)
      ?? (this.samples ? values.find((v) => v.metric === 'pc_samples') : undefined);
    if (!primary && !times.some((v) => TIMES.has(v.metric))) return undefined;
    const share = primary?.share ?? 0;
    const part = (v: LineInfo['values'][number]) => `${SHORT[v.metric] ?? v.metric} ${formatEditorValue(v.value, v.unit)}` +
      (v.backward > 0 ? ` (${v.backward >= v.value ? 'all' : formatEditorValue(v.backward, v.unit)} backward)` : '') +
      (v.fused > 0 ? ` (${v.fused >= v.value ? 'all' : formatEditorValue(v.fused, v.unit)} fused)` : '');
    // Inline: the shading metric first, then the other times; PC samples only where they shade.
    const rest = times.filter((v) => v !== primary && TIMES.has(v.metric));
    const parts = [...(primary ? [primary] : []), ...rest].map(part);
    // The reason's share of the line's samples tells a dominant stall from a mixed line.
    // Floored: a line at 99.7% is not all one reason.
    if (top) parts.push(`stall ${top.reason} ${Math.floor((100 * top.value) / stalls)}%`);
    const pct = primary ? `${(share * 100).toFixed(1)}% ` : '';
    return { share, values, topStall: top?.reason, shading: primary?.metric, text: `▮ ${pct}${parts.join(' · ')}` };
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

/** Text shown as it is inside markdown: every markdown and HTML character escaped. */
export function markdownText(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>&~]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, ' ');
}
