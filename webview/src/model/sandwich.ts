// The sandwich of one function, from a top-down view: its callers (a tree rooted at the
// function, each level one caller further out) and its callees (a tree rooted at the function:
// everything it called, merged over all its calls). Nodes merge by function (kind, name, and the
// file of a Python frame or the module of another), as speedscope's sandwich does. Recursion is
// counted once per path: only the outermost occurrences of the function are taken.
import { FrameKind } from '../protocol';
import type { FlameData } from '../protocol';

/** Function identity of frame `f` of the table, from its typed columns (string indexes). */
export function functionKey(frames: FlameData['frames'], f: number): string {
  const k = frames.kind[f];
  return `${k}:${frames.name[f]}:${k === FrameKind.Python ? frames.file[f] : frames.module[f]}`;
}

export interface Sandwich {
  callers: FlameData;
  callees: FlameData;
  /** Calls of the function found (outermost occurrences). */
  occurrences: number;
}

interface TNode { frame: number; incl: number; excl: number; best: number; kids: Map<string, TNode> }

function child(p: TNode, key: string, frame: number, weight: number): TNode {
  let c = p.kids.get(key);
  if (!c) { c = { frame, incl: 0, excl: 0, best: -1, kids: new Map() }; p.kids.set(key, c); }
  if (weight > c.best) { c.best = weight; c.frame = frame; }
  return c;
}

/** Preorder columns, children by descending inclusive value. */
function toData(src: FlameData, root: TNode): FlameData {
  const parent: number[] = [], frame: number[] = [], incl: number[] = [], excl: number[] = [];
  const stack: [TNode, number][] = [[root, -1]];
  while (stack.length) {
    const [t, p] = stack.pop()!;
    const id = parent.length;
    parent.push(p); frame.push(t.frame); incl.push(t.incl); excl.push(t.excl);
    const kids = [...t.kids.values()].sort((a, b) => a.incl - b.incl);  // popped largest first
    for (const k of kids) stack.push([k, id]);
  }
  return {
    view: 'top-down', metric: src.metric, unit: src.unit, total: root.incl,
    strings: src.strings, frames: src.frames,
    parent: Int32Array.from(parent), frame: Uint32Array.from(frame),
    inclusive: Float64Array.from(incl), exclusive: Float64Array.from(excl),
    frameFilter: src.frameFilter, byFunction: true,
  };
}

/** The sandwich of the function of frame-table entry `fn` in top-down data `d`; null when the
 *  view is not top-down or the function does not occur in it. */
export function buildSandwich(d: FlameData, fn: number): Sandwich | null {
  if (d.view !== 'top-down' || fn < 0 || fn >= d.frames.kind.length) return null;
  const n = d.parent.length;
  const keyOf = new Array<string>(d.frames.kind.length);
  const key = (f: number) => keyOf[f] ?? (keyOf[f] = functionKey(d.frames, f));
  const target = key(fn);
  // end[i]: subtree end in preorder.
  const end = new Int32Array(n);
  for (let i = n - 1; i >= 0; i--) {
    if (end[i] === 0) end[i] = i + 1;
    const p = d.parent[i];
    if (p >= 0 && end[i] > end[p]) end[p] = end[i];
  }
  const callers: TNode = { frame: fn, incl: 0, excl: 0, best: -1, kids: new Map() };
  const callees: TNode = { frame: fn, incl: 0, excl: 0, best: -1, kids: new Map() };
  let occurrences = 0;
  for (let i = 1; i < n;) {
    if (key(d.frame[i]) !== target) { i++; continue; }
    occurrences++;
    const w = d.inclusive[i];
    // Callers: from the function outwards to the root's child.
    callers.incl += w;
    let cur = callers;
    for (let a = d.parent[i]; a > 0; a = d.parent[a]) {
      cur = child(cur, key(d.frame[a]), d.frame[a], w);
      cur.incl += w;
    }
    cur.excl += w;
    // Callees: the subtree merged by function under the root.
    callees.incl += w;
    callees.excl += d.exclusive[i];
    const map = new Map<number, TNode>([[i, callees]]);
    for (let j = i + 1; j < end[i]; j++) {
      const t = child(map.get(d.parent[j])!, key(d.frame[j]), d.frame[j], d.inclusive[j]);
      t.incl += d.inclusive[j];
      t.excl += d.exclusive[j];
      map.set(j, t);
    }
    i = end[i];  // nested occurrences are inside this one
  }
  if (occurrences === 0) return null;
  return { callers: toData(d, callers), callees: toData(d, callees), occurrences };
}
