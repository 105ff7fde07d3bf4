// Colours of the diff mode's flame graph: each node of run B by how its inclusive value changed
// against its matched path in run A — warmer the more it grew, cooler the more it shrank (both
// against the largest change of any frame), neutral when unchanged, and its own hue where only B
// has the path.
import type { RGBA } from '../ui/theme';
import { DiffMatch } from '../protocol';

export interface DiffNodes {
  inclusive: Float64Array;
  baseline: Float64Array;
  match: Uint8Array;
}

const GREW: RGBA = [214, 69, 65, 255];
const SHRANK: RGBA = [54, 123, 214, 255];
const ONLY_B: RGBA = [166, 96, 200, 255];

/** The change of node i (B's inclusive minus A's). */
export function changeOf(d: DiffNodes, i: number): number { return d.inclusive[i] - d.baseline[i]; }

/** The largest change of any node but the root (what colours are scaled to). */
export function largestChange(d: DiffNodes): number {
  let scale = 0;
  for (let i = 1; i < d.inclusive.length; i++) scale = Math.max(scale, Math.abs(changeOf(d, i)));
  return scale;
}

/** RGBA per node into `out` for nodes [from, n); `neutral` is the unchanged frames' colour (from
 *  the theme); `scale` the largest change (of the whole view: a view in parts has it from the
 *  host, so that colours do not shift as parts come in). */
export function diffNodeColors(d: DiffNodes, neutral: RGBA, scale = largestChange(d), out: Uint8Array = new Uint8Array(d.inclusive.length * 4), from = 0): Uint8Array {
  const n = d.inclusive.length;
  for (let i = from; i < n; i++) {
    let c: RGBA = neutral;
    let t = 0;
    if (d.match[i] === DiffMatch.OnlyB) {
      c = ONLY_B;
      t = 1;
    } else if (scale > 0) {
      const x = changeOf(d, i) / scale;
      c = x >= 0 ? GREW : SHRANK;
      t = Math.sqrt(Math.min(1, Math.abs(x)));  // small changes still show
    }
    for (let k = 0; k < 3; k++) out[i * 4 + k] = Math.round(neutral[k] + (c[k] - neutral[k]) * t);
    out[i * 4 + 3] = 255;
  }
  return out;
}

export const DIFF_LEGEND: readonly [string, RGBA][] = [['Grew', GREW], ['Shrank', SHRANK], ['Only in B', ONLY_B]];
