// A fused kernel's source lines, read from the frame table's v8 columns (typed: file, function,
// line per entry), and the check that those columns fit the table.
import type { FrameTable } from '../protocol';

export interface FusedLine { file: string; function: string; line: number }

/** The lines frame-table entry `f` fuses, in the compiler's order; [] for any other frame. */
export function fusedLinesOf(frames: FrameTable, strings: readonly string[], f: number): FusedLine[] {
  const off = frames.fusedOffset;
  if (!off || !frames.fusedFile || !frames.fusedFunction || !frames.fusedLine || f + 1 >= off.length) return [];
  const out: FusedLine[] = [];
  for (let k = off[f]; k < off[f + 1]; k++) {
    out.push({ file: strings[frames.fusedFile[k]] ?? '', function: strings[frames.fusedFunction[k]] ?? '', line: frames.fusedLine[k] });
  }
  return out;
}

/** Throws a readable Error when the fused columns do not fit a table of `m` entries and `ns`
 *  strings (all four present or none, offsets ascending from 0 to the lines' count). */
export function checkFusedColumns(frames: FrameTable, m: number, ns: number): void {
  const { fusedOffset: off, fusedFile: file, fusedFunction: fn, fusedLine: line } = frames;
  if (!off && !file && !fn && !line) return;
  if (!off || !file || !fn || !line) throw new Error('profile data: the frame table\'s fused columns are incomplete');
  if (off.length !== m + 1) throw new Error(`profile data: column "frames.fusedOffset" has ${off.length} entries, expected ${m + 1}`);
  const count = file.length;
  if (fn.length !== count || line.length !== count) throw new Error('profile data: the fused line columns differ in length');
  if (off[0] !== 0 || off[m] !== count) throw new Error('profile data: "frames.fusedOffset" does not span the fused lines');
  for (let f = 0; f < m; f++) if (off[f + 1] < off[f]) throw new Error(`profile data: "frames.fusedOffset" descends at entry ${f}`);
  for (let k = 0; k < count; k++) if (file[k] >= ns || fn[k] >= ns) throw new Error(`profile data: fused line ${k} names a string out of range`);
}
