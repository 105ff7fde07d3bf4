// Value formatting for the editor surfaces (line heat, status bar, profiles view). Pure: no
// vscode import, unit-tested. Mirrors webview/src/model/format.ts so numbers read the same in
// the graph and in the editor.

/** A duration in nanoseconds: "850 ns", "12.3 us", "4.56 ms", "1.23 s", "2 min 5 s". */
export function formatDuration(ns: number): string {
  if (!Number.isFinite(ns)) return '?';
  const a = Math.abs(ns);
  if (a < 1e3) return `${Math.round(ns)} ns`;
  if (a < 1e6) return `${round3(ns / 1e3)} us`;
  if (a < 1e9) return `${round3(ns / 1e6)} ms`;
  if (a < 120e9) return `${round3(ns / 1e9)} s`;
  const s = Math.round(ns / 1e9);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** Three significant digits, without trailing zeros beyond them ("1.23", "12.3", "123"). */
function round3(x: number): string {
  const a = Math.abs(x);
  return a >= 100 ? x.toFixed(0) : a >= 10 ? x.toFixed(1) : x.toFixed(2);
}

/** A metric value with its unit ("ns" durations, "bytes", counts, anything else verbatim). */
export function formatValue(v: number, unit: string): string {
  if (unit === 'ns') return formatDuration(v);
  if (unit === 'bytes') {
    const k = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0, x = v;
    while (Math.abs(x) >= 1024 && i < k.length - 1) { x /= 1024; i++; }
    return i === 0 ? `${Math.round(x)} B` : `${round3(x)} ${k[i]}`;
  }
  const n = Math.abs(v) >= 100 || Number.isInteger(v) ? Math.round(v).toLocaleString('en-US') : round3(v);
  return unit && unit !== 'count' ? `${n} ${unit}` : n;
}

/** The duration of a recorded run from its meta (`duration_ns`), if there is one. */
export function metaDuration(meta: Readonly<Record<string, string>>): number | undefined {
  const d = Number(meta.duration_ns);
  return meta.duration_ns !== undefined && Number.isFinite(d) && d >= 0 ? d : undefined;
}

/** The profiles view's description of a profile: "1.23 s · python3 train.py 60". Paths in the
 *  command are shortened to their base names (the tooltip has the full command): in a narrow
 *  view the script's name matters, not where the interpreter lives. */
export function profileDescription(meta: Readonly<Record<string, string>>, maxCommand = 80): string {
  const parts: string[] = [];
  const d = metaDuration(meta);
  if (d !== undefined) parts.push(formatDuration(d));
  let cmd = (meta.command ?? '').trim().split(/\s+/)
    .map((w) => (/^\/[^\s]*[^/]$/.test(w) ? w.slice(w.lastIndexOf('/') + 1) : w)).join(' ');
  if (cmd.length > maxCommand) cmd = `${cmd.slice(0, maxCommand - 1)}…`;
  if (cmd) parts.push(cmd);
  return parts.join(' · ');
}
