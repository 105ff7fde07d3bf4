// A view that may hold only part of the host's: what it has, and per node the value its left-out
// children are all under (0: none left out; a node whose children were all left out, whatever
// their size, its own value). A node's part from the host adds the nodes of that subtree it did
// not hold, at the end: nodes keep their indexes (what is drawn, zoomed into, outlined or in the
// history never moves), so taking a part in costs the part, not the nodes held. The columns
// grow by doubling; `data` is a view of their first `n` entries. Node order is then parents
// before children (not preorder): the model walks children through its links.
import { LeftOut } from '../protocol';
import type { FlameData, NodePart } from '../protocol';

/** The value node i's left-out children are under. */
function limitOf(more: number, minValue: number, inclusive: number): number {
  return more === LeftOut.Narrow ? minValue : more === LeftOut.Any ? Math.max(inclusive, minValue) : 0;
}

/** The host's id of node i (the index when the data is the whole view). */
export function hostId(d: FlameData, i: number): number { return d.node ? d.node[i] : i; }

/** The index of the node with host id `id` in data whose ids ascend (a view or its first part,
 *  as the host sent it), or -1. */
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

type Column = Int32Array | Uint32Array | Float64Array | Uint8Array;
function grown<T extends Column>(a: T, n: number, capacity: number): T {
  const out = new (a.constructor as { new (k: number): T })(capacity);
  out.set(a.subarray(0, n) as never);
  return out;
}

/** Nodes a part added: the indexes [from, to) (none when from === to). */
export interface Added { from: number; to: number }

export class LoadedView {
  private parent: Int32Array;
  private frame: Uint32Array;
  private inclusive: Float64Array;
  private exclusive: Float64Array;
  private node: Uint32Array;
  private more: Uint8Array;
  private _limit: Float64Array;
  /** Per-node columns other modes add (the diff's A value and match), grown with the rest. */
  private extra: Map<string, Float64Array | Uint8Array>;
  private n: number;
  /** host id → index + 1 (0: not held), for ids that do not ascend any more (made on the first
   *  part added): an array as long as the host's view (4 bytes a node of it); a map where the
   *  host did not say how many nodes it has, or has very many. */
  private ids: Int32Array | null = null;
  private idMap: Map<number, number> | null = null;
  private _data: FlameData;
  /** Whether the host sent every node (ids are indexes; no part is ever needed). */
  readonly whole: boolean;
  /** Nodes some of whose children are left out. */
  private leftOut = 0;

  constructor(data: FlameData, extra: Record<string, Float64Array | Uint8Array> = {}) {
    const n = (this.n = data.parent.length);
    this.whole = !data.node;
    this.parent = data.parent;
    this.frame = data.frame;
    this.inclusive = data.inclusive;
    this.exclusive = data.exclusive;
    this.node = data.node ?? Uint32Array.from({ length: n }, (_, i) => i);
    this.more = data.more ?? new Uint8Array(n);
    this._limit = new Float64Array(n);
    if (data.more) for (let i = 0; i < n; i++) if ((this._limit[i] = limitOf(data.more[i], data.minValue ?? 0, data.inclusive[i])) > 0) this.leftOut++;
    this.extra = new Map(Object.entries(extra));
    this._data = data;
  }

  /** The nodes held, as FlameData (its columns are views of the held nodes). */
  get data(): FlameData { return this._data; }
  get size(): number { return this.n; }
  /** Whether no node held has children left out (every node of the host's view is here). */
  get complete(): boolean { return this.leftOut === 0; }
  /** Per node: every child left out is under this value; 0 when none is. */
  get limit(): Float64Array { return this._limit.subarray(0, this.n); }
  /** A per-node column given at construction, as far as nodes are held. */
  column<T extends Float64Array | Uint8Array>(name: string): T | undefined {
    const c = this.extra.get(name);
    return c ? (c.subarray(0, this.n) as T) : undefined;
  }

  /** The index of the node with host id `id`, or -1. */
  indexOf(id: number): number {
    if (this.ids) return id >= 0 && id < this.ids.length ? this.ids[id] - 1 : -1;
    if (this.idMap) return (this.idMap.get(id) ?? 0) - 1;
    return indexOfHostId(this._data, id);
  }

  /** Takes a node's part in: the nodes of it not held are added at the end (their parents before
   *  them), the held ones get the part's left-out bound. Null when this view has no such node
   *  (the part is of another view) or the part is not its subtree's (its root's value differs). */
  add(part: NodePart, extra: Record<string, Float64Array | Uint8Array> = {}): Added | null {
    const root = this.indexOf(part.node[0]);
    if (root < 0 || this._data.inclusive[root] !== part.inclusive[0]) return null;
    if (!this.ids && !this.idMap) {
      const viewNodes = this._data.nodes ?? 0;
      if (viewNodes > 0 && viewNodes <= 1 << 26) {
        const ids = (this.ids = new Int32Array(viewNodes));
        for (let i = 0; i < this.n; i++) ids[this.node[i]] = i + 1;
      } else {
        const ids = (this.idMap = new Map());
        for (let i = 0; i < this.n; i++) ids.set(this.node[i], i + 1);
      }
    }
    const k = part.parent.length;
    const ids = this.ids, idMap = this.idMap;
    const held = (id: number): number => (ids ? (id < ids.length ? ids[id] : 0) : idMap!.get(id) ?? 0) - 1;
    let fresh = 0;
    for (let j = 1; j < k; j++) if (held(part.node[j]) < 0) fresh++;
    // Columns the host sent are not ours to write into: copied once, then grown.
    if (this.parent === this._data.parent || fresh > this.parent.length - this.n) this.reserveCopy(fresh);
    const at = new Int32Array(k);  // part index → index here
    const from = this.n;
    const extras = [...this.extra].map(([name, c]) => ({ c, src: extra[name] }));
    const parent = this.parent, frame = this.frame, inclusive = this.inclusive, exclusive = this.exclusive, node = this.node;
    const more = this.more, limits = this._limit;
    for (let j = 0; j < k; j++) {
      const id = part.node[j];
      let i = j === 0 ? root : held(id);
      if (i < 0) {
        i = this.n++;
        if (ids) ids[id] = i + 1; else idMap!.set(id, i + 1);
        parent[i] = at[part.parent[j]];
        frame[i] = part.frame[j];
        inclusive[i] = part.inclusive[j];
        exclusive[i] = part.exclusive[j];
        node[i] = id;
        for (let x = 0; x < extras.length; x++) extras[x].c[i] = extras[x].src ? extras[x].src[j] : 0;
      }
      at[j] = i;
      // A child left out now was left out by every part before (else it is held): it is under
      // the lower of the bounds.
      const limit = limitOf(part.more[j], part.minValue, part.inclusive[j]);
      const old = limits[i];
      if (i >= from || (old > 0 && limit < old)) {
        if (old > 0 && limit === 0) this.leftOut--;
        else if (!(old > 0) && limit > 0) this.leftOut++;
        more[i] = part.more[j];
        limits[i] = limit;
      }
    }
    const n = this.n;
    this._data = {
      ...this._data,
      parent: this.parent.subarray(0, n), frame: this.frame.subarray(0, n),
      inclusive: this.inclusive.subarray(0, n), exclusive: this.exclusive.subarray(0, n),
      node: this.node.subarray(0, n), more: this.more.subarray(0, n),
    };
    return { from, to: n };
  }

  private reserveCopy(k: number): void {
    const n = this.n;
    const cap = Math.max(n + k, Math.ceil(n * 1.5), 1024);
    this.parent = grown(this.parent, n, cap);
    this.frame = grown(this.frame, n, cap);
    this.inclusive = grown(this.inclusive, n, cap);
    this.exclusive = grown(this.exclusive, n, cap);
    this.node = grown(this.node, n, cap);
    this.more = grown(this.more, n, cap);
    this._limit = grown(this._limit, n, cap);
    for (const [name, c] of this.extra) this.extra.set(name, grown(c, n, cap));
  }
}
