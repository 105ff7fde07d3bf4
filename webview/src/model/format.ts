// Human-readable values, the one TypeScript source for them: the views' style (formatValue,
// formatPercent: "12.3 µs", trailing zeros dropped) and the editor surfaces' (the extension's line
// heat, status bar, profiles view: formatEditorValue, formatDuration: "12.3 us", counts grouped).
import { FrameKind } from '../frameKinds.generated';

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** `v` bytes as [amount, unit] on the binary ladder. */
function scaleBytes(v: number): [number, number] {
  let x = v, k = 0;
  while (Math.abs(x) >= 1024 && k < BYTE_UNITS.length - 1) { x /= 1024; k++; }
  return [x, k];
}

/** Three significant digits ("1.20", "12.3", "123"). */
function fixed3(x: number): string {
  const a = Math.abs(x);
  return x.toFixed(a >= 100 ? 0 : a >= 10 ? 1 : 2);
}

/** Three significant digits, trailing zeros dropped ("1.2", "12.3", "123"). */
function trim(x: number): string {
  return fixed3(x).replace(/\.0+$|(\.\d*?[1-9])0+$/, '$1');
}

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
    const [x, k] = scaleBytes(v);
    return `${trim(x)} ${BYTE_UNITS[k]}`;
  }
  const s = Number.isInteger(v) ? String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : trim(v);
  return unit && u !== 'count' && u !== 'samples' ? `${s} ${unit}` : s;
}

/** A duration in nanoseconds for the editor: "850 ns", "12.3 us", "4.56 ms", "1.23 s", "2 min 5 s". */
export function formatDuration(ns: number): string {
  if (!Number.isFinite(ns)) return '?';
  const a = Math.abs(ns);
  if (a < 1e3) return `${Math.round(ns)} ns`;
  if (a < 1e6) return `${fixed3(ns / 1e3)} us`;
  if (a < 1e9) return `${fixed3(ns / 1e6)} ms`;
  if (a < 120e9) return `${fixed3(ns / 1e9)} s`;
  const s = Math.round(ns / 1e9);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** A metric value with its unit for the editor ("ns" durations, "bytes", counts grouped,
 *  anything else verbatim). */
export function formatEditorValue(v: number, unit: string): string {
  if (unit === 'ns') return formatDuration(v);
  if (unit === 'bytes') {
    const [x, k] = scaleBytes(v);
    return k === 0 ? `${Math.round(x)} B` : `${fixed3(x)} ${BYTE_UNITS[k]}`;
  }
  const n = Math.abs(v) >= 100 || Number.isInteger(v) ? Math.round(v).toLocaleString('en-US') : fixed3(v);
  return unit && unit !== 'count' ? `${n} ${unit}` : n;
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
  [FrameKind.Thread]: 'thread', [FrameKind.Process]: 'process',
};
export function kindName(k: number): string { return KIND_NAMES[k as FrameKind] ?? `kind ${k}`; }
