// Human-readable values for a metric unit ("ns", "us", "ms", "s", "bytes", counts).
import { FrameKind } from '../frameKinds.generated';

export function formatValue(v: number, unit: string): string {
  const u = unit.toLowerCase();
  const time: Record<string, number> = { ns: 1e-9, us: 1e-6, 'µs': 1e-6, ms: 1e-3, s: 1 };
  if (u in time) {
    const s = v * time[u];
    const a = Math.abs(s);
    if (a === 0) return '0 s';
    if (a >= 1) return `${trim(s)} s`;
    if (a >= 1e-3) return `${trim(s * 1e3)} ms`;
    if (a >= 1e-6) return `${trim(s * 1e6)} µs`;
    return `${trim(s * 1e9)} ns`;
  }
  if (u === 'bytes' || u === 'b') {
    const steps = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let x = v, k = 0;
    while (Math.abs(x) >= 1024 && k < steps.length - 1) { x /= 1024; k++; }
    return `${trim(x)} ${steps[k]}`;
  }
  const s = Number.isInteger(v) ? String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : trim(v);
  return unit && u !== 'count' && u !== 'samples' ? `${s} ${unit}` : s;
}

function trim(x: number): string {
  const a = Math.abs(x);
  const digits = a >= 100 ? 0 : a >= 10 ? 1 : 2;
  return x.toFixed(digits).replace(/\.0+$|(\.\d*?[1-9])0+$/, '$1');
}

export function formatPercent(part: number, whole: number): string {
  if (!(whole > 0)) return '–';
  const p = (100 * part) / whole;
  return `${p >= 10 || p === 0 ? p.toFixed(1) : p.toFixed(2)}%`;
}

/** What the tooltip calls each frame kind (every kind of the format: the compiler checks). */
const KIND_NAMES: Record<FrameKind, string> = {
  [FrameKind.Root]: 'root', [FrameKind.Python]: 'Python', [FrameKind.Native]: 'native', [FrameKind.Operator]: 'operator',
  [FrameKind.GpuApi]: 'GPU API', [FrameKind.Kernel]: 'GPU kernel', [FrameKind.Pc]: 'GPU instruction', [FrameKind.Region]: 'region',
  [FrameKind.Thread]: 'thread',
};
export function kindName(k: number): string { return KIND_NAMES[k as FrameKind] ?? `kind ${k}`; }
