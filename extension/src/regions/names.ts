// Region names tables (docs/regions.md): `id=name` entries separated by ';' (STRATA_REGION_NAMES,
// `strata regions --names`) or by newlines (a names file, '#' starts a comment line). An entry may
// end in `@file:line`, the source line of the region's marker: `3=load@kernels.cuh:42`. The CLI
// is given the names without locations; the locations stay with the extension, for "open the
// marker". Pure (no vscode), unit-tested.

export interface RegionName {
  name: string;
  /** `file` as written (relative to the names file's folder, or absolute), 1-based `line`. */
  file?: string;
  line?: number;
}

/** A trailing `@file:line` (file without '@'; line a positive integer). */
const LOCATION = /^(.*?)@([^@]+):(\d+)\s*$/;

/** Splits `name@file:line` into the name and its location; anything else is just a name. */
export function splitLocation(entry: string): RegionName {
  const m = LOCATION.exec(entry);
  if (!m || !m[2].trim() || Number(m[3]) < 1) return { name: entry };
  return { name: m[1], file: m[2].trim(), line: Number(m[3]) };
}

/** Parses a names table (ids 0..4095; malformed entries are skipped, like the CLI does). */
export function parseNames(table: string): Map<number, RegionName> {
  const out = new Map<number, RegionName>();
  for (const raw of table.split(/[;\n]/)) {
    const item = raw.replace(/\r$/, '').trim();
    if (!item || item.startsWith('#')) continue;
    const eq = item.indexOf('=');
    if (eq <= 0) continue;
    const idText = item.slice(0, eq).trim();
    if (!/^\d+$/.test(idText)) continue;
    const id = Number(idText);
    if (id > 4095) continue;
    out.set(id, splitLocation(item.slice(eq + 1).trim()));
  }
  return out;
}

/** The table for the CLI's --names: `id=name;...`, locations taken off. Names cannot hold ';'. */
export function cliNames(names: Map<number, RegionName>): string {
  return [...names].sort((a, b) => a[0] - b[0]).map(([id, n]) => `${id}=${n.name}`).join(';');
}

export interface NamesSource {
  names: Map<number, RegionName>;
  /** clock64 cycles per ns of the device, when the file says (a harness sidecar does). */
  cyclesPerNs?: number;
}

/** Reads a names file: a harness sidecar (JSON with "names": "1=a;2=b" and optionally
 *  "clock_cycles_per_ns"), or a plain table. Throws on JSON without a "names" string. */
export function parseNamesFile(text: string): NamesSource {
  const t = text.trim();
  if (t.startsWith('{')) {
    let j: unknown;
    try { j = JSON.parse(t); } catch (e) { throw new Error(`not valid JSON (${(e as Error).message})`); }
    const o = j as { names?: unknown; clock_cycles_per_ns?: unknown; cycles_per_ns?: unknown };
    if (typeof o.names !== 'string') throw new Error('a JSON names file needs a "names" string ("1=load;2=mma")');
    const rate = typeof o.clock_cycles_per_ns === 'number' ? o.clock_cycles_per_ns : typeof o.cycles_per_ns === 'number' ? o.cycles_per_ns : undefined;
    return { names: parseNames(o.names), cyclesPerNs: rate !== undefined && rate > 0 ? rate : undefined };
  }
  return { names: parseNames(text) };
}
