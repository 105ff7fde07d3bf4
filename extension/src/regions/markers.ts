// Finds the marker of a region in CUDA/C++ sources: the `STRATA_REGION_START(prof, kLoad)` (or
// ITER_START, WAIT, END) whose id argument is the region's id, either a literal or a constant
// whose value is found in the sources (`enum { kLoad = 3 }`, `constexpr unsigned kLoad = 3;`,
// `#define kLoad 3`). Without such a constant, an identifier that spells the region's name
// (`kLoad`, `LOAD`, `load` for "load") is taken. Pure text scanning (no preprocessor, no
// vscode), unit-tested; the workspace walk is in workspaceMarkers.ts.

export type MarkerKind = 'start' | 'iter' | 'wait' | 'end' | 'iterEnd' | 'scope';

export interface MarkerSite {
  file: string;
  line: number;     // 1-based
  kind: MarkerKind;
  /** The id argument as written, e.g. "kLoad", "Ids::kLoad", "3". */
  arg: string;
}

export interface FileScan {
  file: string;
  sites: MarkerSite[];
  /** Integer constants defined in the file (identifier → value). */
  constants: Map<string, number>;
}

const MACROS: Record<string, MarkerKind> = {
  REGION_START: 'start', ITER_START: 'iter', REGION_WAIT: 'wait', REGION_END: 'end', ITER_END: 'iterEnd',
};
// Which site of a region to open: where it starts, rather than where it ends.
const RANK: Record<MarkerKind, number> = { start: 0, iter: 1, wait: 2, end: 3, iterEnd: 4, scope: 0 };
// Triton's Proton scopes name their region outright: `pl.enter_scope("softmax")`.
const SCOPE = /\benter_scope\s*\(\s*(['"])([^'"\n]+)\1/g;

const MARKER = /\bSTRATA_(REGION_START|ITER_START|REGION_WAIT|REGION_END|ITER_END)\s*\(\s*[^,()]+?\s*,\s*([^,()]+?)\s*[,)]/g;
const ASSIGNED = /\b([A-Za-z_]\w*)\s*=\s*(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\s*[,;}\n]/g;
const DEFINED = /^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+\(?(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\)?[ \t]*$/gm;

function lineStarts(text: string): number[] {
  const out = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) out.push(i + 1);
  return out;
}

function lineOf(starts: number[], index: number): number {
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= index) lo = mid; else hi = mid - 1;
  }
  return lo + 1;
}

/** Marker sites and integer constants of one source file. */
export function scanSource(file: string, text: string): FileScan {
  const sites: MarkerSite[] = [];
  const constants = new Map<string, number>();
  if (text.includes('STRATA_')) {
    const starts = lineStarts(text);
    for (const m of text.matchAll(MARKER)) {
      const at = m.index ?? 0;
      // The macro's own definition (`#define STRATA_REGION_START(prof, id)`) is not a use.
      const lineStart = starts[lineOf(starts, at) - 1];
      if (/^\s*#\s*define\b/.test(text.slice(lineStart, at))) continue;
      sites.push({ file, line: lineOf(starts, at), kind: MACROS[m[1]], arg: m[2].trim() });
    }
  }
  if (text.includes('enter_scope')) {
    const starts = lineStarts(text);
    for (const m of text.matchAll(SCOPE)) sites.push({ file, line: lineOf(starts, m.index ?? 0), kind: 'scope', arg: m[2] });
  }
  for (const m of text.matchAll(ASSIGNED)) if (!constants.has(m[1])) constants.set(m[1], Number(m[2]));
  for (const m of text.matchAll(DEFINED)) if (!constants.has(m[1])) constants.set(m[1], Number(m[2]));
  return { file, sites, constants };
}

/** The identifier a marker argument names: `Ids::kLoad` → kLoad; a literal → null. */
function identifierOf(arg: string): string | null {
  const m = /(?:^|::)\s*([A-Za-z_]\w*)\s*$/.exec(arg);
  return m ? m[1] : null;
}

function literalOf(arg: string): number | null {
  const m = /^\(?\s*(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\s*\)?$/.exec(arg);
  return m ? Number(m[1]) : null;
}

/** kLoad, K_LOAD, LOAD, load → "load"; "load (cp.async)" → "loadcpasync". */
export function normalizeName(s: string): string {
  return s.replace(/^(k(?=[A-Z_])|K_)/, '').replace(/[^A-Za-z0-9]/g, '').toLowerCase();
}

/** The value of a marker argument: a literal, a constant of the marker's own file, else of the
 *  other files (when they agree). */
export function resolveArg(arg: string, file: string, scans: FileScan[]): number | null {
  const lit = literalOf(arg);
  if (lit !== null) return lit;
  const id = identifierOf(arg);
  if (!id) return null;
  const own = scans.find((s) => s.file === file)?.constants.get(id);
  if (own !== undefined) return own;
  const values = new Set<number>();
  for (const s of scans) { const v = s.constants.get(id); if (v !== undefined) values.add(v); }
  return values.size === 1 ? [...values][0] : null;
}

/** The best marker site of region `region` (named `name`), or undefined. `scopesOnly`: the
 *  trace is Proton's, whose region ids are the importer's numbering, not a marker's argument (a
 *  CUDA marker whose constant happens to equal one is not its site): Proton scopes by name only. */
export function findMarker(region: number, name: string | undefined, scans: FileScan[], scopesOnly = false): MarkerSite | undefined {
  const byId: MarkerSite[] = [];
  const byName: MarkerSite[] = [];
  const byScope: MarkerSite[] = [];
  const wanted = name ? normalizeName(name) : '';
  for (const s of scans) {
    for (const site of s.sites) {
      if (site.kind === 'scope') { if (name && site.arg === name) byScope.push(site); continue; }
      if (scopesOnly) continue;
      const v = resolveArg(site.arg, site.file, scans);
      if (v === region) byId.push(site);
      else if (v === null && wanted && normalizeName(identifierOf(site.arg) ?? '') === wanted) byName.push(site);
    }
  }
  const pick = byId.length ? byId : byScope.length ? byScope : byName;
  pick.sort((a, b) => RANK[a.kind] - RANK[b.kind] || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line);
  return pick[0];
}
