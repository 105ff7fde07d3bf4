// A view that may hold only part of the host's: what it has, and per node the value its left-out
// children are all under (0: none left out; a node whose children were all left out, whatever
// their size, its own value). A node's part from the host replaces its subtree:
// the part holds that subtree down to a lower bound. Children come sorted by descending value, so
// the ones a part adds go after the ones drawn: nothing already on screen moves.
import { LeftOut } from '../protocol';
import type { FlameData, NodePart } from '../protocol';

export interface LoadedView {
  data: FlameData;
  /** Per node: every child left out is under this value; 0 when none is. */
  limit: Float64Array;
}

/** The value node i's left-out children are under. */
function limitOf(more: number, minValue: number, inclusive: number): number {
  return more === LeftOut.Narrow ? minValue : more === LeftOut.Any ? Math.max(inclusive, minValue) : 0;
}

export function loadedView(data: FlameData): LoadedView {
  const n = data.parent.length;
  const limit = new Float64Array(n);
  if (data.more) for (let i = 0; i < n; i++) limit[i] = limitOf(data.more[i], data.minValue ?? 0, data.inclusive[i]);
  return { data, limit };
}

/** The host's id of node i (the index when the data is the whole view). */
export function hostId(d: FlameData, i: number): number { return d.node ? d.node[i] : i; }

/** The index of the node with host id `id`, or -1 (ids ascend: a binary search). */
export function indexOfHostId(d: FlameData, id: number): number {
  const node = d.node;
  if (!node) return Number.isInteger(id) && id >= 0 && id < d.parent.length ? id : -1;
  let lo = 0, hi = node.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (node[mid] === id) return mid;
    if (node[mid] < id) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

/** End (exclusive) of node i's subtree in preorder. */
function subtreeEnd(parent: Int32Array, i: number): number {
  let e = i + 1;
  while (e < parent.length && parent[e] >= i) e++;
  return e;
}

/** `v` with the subtree of the part's root replaced by the part; null when `v` has no such node
 *  (the part is of another view) or the part is not its subtree's (its root's value differs). */
export function spliceNodes(v: LoadedView, part: NodePart): LoadedView | null {
  const d = v.data;
  const at = indexOfHostId(d, part.node[0]);
  if (at < 0 || d.inclusive[at] !== part.inclusive[0]) return null;
  const end = subtreeEnd(d.parent, at);
  const n = d.parent.length, k = part.parent.length;
  const size = n - (end - at) + k;
  const delta = k - (end - at);
  const parent = new Int32Array(size), frame = new Uint32Array(size), node = new Uint32Array(size), more = new Uint8Array(size);
  const inclusive = new Float64Array(size), exclusive = new Float64Array(size), limit = new Float64Array(size);
  // Before the subtree: as it was.
  parent.set(d.parent.subarray(0, at));
  frame.set(d.frame.subarray(0, at));
  inclusive.set(d.inclusive.subarray(0, at));
  exclusive.set(d.exclusive.subarray(0, at));
  limit.set(v.limit.subarray(0, at));
  for (let i = 0; i < at; i++) node[i] = hostId(d, i);
  if (d.more) more.set(d.more.subarray(0, at)); else for (let i = 0; i < at; i++) more[i] = limit[i] > 0 ? 1 : 0;
  // The part.
  for (let j = 0; j < k; j++) {
    const i = at + j;
    parent[i] = j === 0 ? d.parent[at] : part.parent[j] + at;
    frame[i] = part.frame[j];
    inclusive[i] = part.inclusive[j];
    exclusive[i] = part.exclusive[j];
    node[i] = part.node[j];
    more[i] = part.more[j];
    limit[i] = limitOf(part.more[j], part.minValue, part.inclusive[j]);
  }
  // After it: parents before the subtree keep their index, later ones move with it.
  for (let i = end; i < n; i++) {
    const o = i + delta;
    const p = d.parent[i];
    parent[o] = p < at ? p : p + delta;
    frame[o] = d.frame[i];
    inclusive[o] = d.inclusive[i];
    exclusive[o] = d.exclusive[i];
    node[o] = hostId(d, i);
    limit[o] = v.limit[i];
    more[o] = d.more ? d.more[i] : limit[o] > 0 ? 1 : 0;
  }
  let minValue = 0;
  for (let i = 0; i < size; i++) if (limit[i] > minValue) minValue = limit[i];
  return { data: { ...d, parent, frame, inclusive, exclusive, node, more, minValue }, limit };
}
