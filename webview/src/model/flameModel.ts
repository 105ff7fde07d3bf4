// Layout of one FlameData view (or of the part of it the host has sent: `limit` says which
// nodes have children left out), in typed arrays so that 100k+ nodes stay interactive.
// x0/x1 are fractions [0,1] of the focused subtree's width; ancestors of the focus span the
// full width; nodes outside the focused subtree are not visible. Row = absolute depth
// (root at row 0, icicle style). A viewport [v0, v1] of that width is what the screen shows
// (wheel zoom and drag pan inside the focused subtree; 0..1 = all of it). Also: hit testing
// and search.
import { FrameFlag } from '../protocol';
import type { FlameData } from '../protocol';
import { displayName } from './frameNames';
import { hostId, indexOfHostId } from './viewParts';

/** One frame of a saved path (JSON: the webview state). */
export interface PathStep { name: string; file: string; line: number }

export interface SearchResult {
  query: string;
  /** 1 for nodes whose name or file contains the query (case-insensitive). */
  matches: Uint8Array;
  count: number;
  /** Inclusive value of matched nodes, without double counting nested matches. */
  value: number;
  /** value / total */
  share: number;
}

export class FlameModel {
  data: FlameData;
  n = 0;
  readonly total: number;
  /** Per-node layout columns (their first `n` entries count; they grow with the data). */
  depth: Int32Array;
  firstChild: Int32Array;
  nextSibling: Int32Array;
  private lastChild: Int32Array;
  private prevSibling: Int32Array;
  /** 1: in the focused subtree. */
  private inFocus: Uint8Array;
  maxDepth = 0;
  x0: Float64Array;
  x1: Float64Array;
  /** Per node: every child the host left out is under this value (0: none left out). */
  limit: Float64Array;
  private _focus = 0;
  /** The visible part of the focused subtree's width (fractions; v0 < v1). */
  v0 = 0;
  v1 = 1;
  private _ancestors: number[] = [0];
  private lowerStrings: string[] | null = null;
  private labels: (string | undefined)[] | null = null;
  /** host id → index where the data's ids do not ascend (a view that took parts in). */
  private ids: ((id: number) => number) | null = null;
  /** A stack for walks over the tree (kept: no allocation per frame drawn). */
  private stack = new Int32Array(64);

  /** Nodes need only come parents first (a view's preorder, or a view in parts as parts came
   *  in). `prev`: the model of the same view before; what depends only on the frame table
   *  (lower-case strings, labels) is taken over from it. */
  constructor(data: FlameData, limit?: Float64Array, prev?: FlameModel) {
    this.data = data;
    if (prev && prev.data.strings === data.strings && prev.data.frames === data.frames) {
      this.lowerStrings = prev.lowerStrings;
      this.labels = prev.labels;
    }
    const n = data.parent.length;
    this.limit = limit && limit.length === n ? limit : new Float64Array(n);
    this.total = data.total > 0 ? data.total : data.inclusive[0];
    this.depth = new Int32Array(n);
    this.firstChild = new Int32Array(n).fill(-1);
    this.nextSibling = new Int32Array(n).fill(-1);
    this.lastChild = new Int32Array(n).fill(-1);
    this.prevSibling = new Int32Array(n).fill(-1);
    this.inFocus = new Uint8Array(n);
    this.x0 = new Float64Array(n);
    this.x1 = new Float64Array(n);
    this.link(0, n);
    this.layout(0);
  }

  /** Takes nodes [from, data's length) in (a part came in; `data` and `limit` are the grown
   *  view's), nodes before `from` unchanged but for their limits: links, depth and, in the
   *  focused subtree, the layout of the new nodes only (they go after their siblings: nothing
   *  drawn moves). `indexOf`: host id → index for the grown data. */
  grow(data: FlameData, limit: Float64Array, from: number, indexOf: (id: number) => number): void {
    const n = data.parent.length;
    this.data = data;
    this.limit = limit;
    this.ids = indexOf;
    if (n > this.depth.length) {
      const cap = Math.max(n, Math.ceil(this.depth.length * 1.5));
      const g = <T extends Int32Array | Float64Array | Uint8Array>(a: T, fill = 0): T => {
        const out = new (a.constructor as { new (k: number): T })(cap);
        if (fill) out.fill(fill as never);
        out.set(a.subarray(0, this.n) as never);
        return out;
      };
      this.depth = g(this.depth);
      this.firstChild = g(this.firstChild, -1);
      this.nextSibling = g(this.nextSibling, -1);
      this.lastChild = g(this.lastChild, -1);
      this.prevSibling = g(this.prevSibling, -1);
      this.inFocus = g(this.inFocus);
      this.x0 = g(this.x0);
      this.x1 = g(this.x1);
    }
    const moved = this.link(from, n);
    if (moved >= 0) { this.relayout(moved); return; }
    // New nodes in the focused subtree: placed after their parent's earlier children.
    const { parent, inclusive } = data;
    const fi = inclusive[this._focus];
    const scale = fi > 0 ? 1 / fi : 0;
    const x0 = this.x0, x1 = this.x1;
    for (let i = from; i < n; i++) {
      const p = parent[i];
      if (!this.inFocus[p]) continue;
      this.inFocus[i] = 1;
      const ps = this.prevSibling[i];
      const start = ps >= 0 ? x1[ps] : x0[p];
      const stop = Math.min(start + Math.max(0, inclusive[i]) * scale, x1[p]);
      x0[i] = start;
      x1[i] = stop > start ? stop : start;
    }
  }

  /** Links nodes [from, to) under their parents, in the host's order of siblings (ids ascend);
   *  returns a parent whose earlier children moved (a child went before them), else -1. */
  private link(from: number, to: number): number {
    const { parent } = this.data;
    const node = this.data.node;
    const depth = this.depth, first = this.firstChild, next = this.nextSibling, last = this.lastChild, prev = this.prevSibling;
    let moved = -1;
    for (let i = Math.max(from, 1); i < to; i++) {
      const p = parent[i];
      const d = (depth[i] = depth[p] + 1);
      if (d > this.maxDepth) this.maxDepth = d;
      const l = last[p];
      if (l < 0) { first[p] = last[p] = i; continue; }
      if (!node || node[l] < node[i]) { next[l] = i; prev[i] = l; last[p] = i; continue; }
      // Before a sibling held already (the host's order says so): walk to its place.
      let after = prev[l];
      let before = l;
      while (after >= 0 && node[after] > node[i]) { before = after; after = prev[after]; }
      prev[i] = after; next[i] = before; prev[before] = i;
      if (after >= 0) next[after] = i; else first[p] = i;
      if (moved < 0 || depth[p] < depth[moved]) moved = p;
    }
    if (from === 0 && to > 0) { depth[0] = 0; }
    this.n = to;
    return moved;
  }

  /** Lays out the focus again when node `p`'s children moved inside it. */
  private relayout(p: number): void {
    if (this.inFocus[p] || this._ancestors.includes(p)) {
      const { v0, v1 } = this;
      this.layout(this._focus);
      this.setViewport(v0, v1);
    }
  }

  get focus(): number { return this._focus; }

  /** The host's id of node i (what messages to the host name it by). */
  hostId(i: number): number { return hostId(this.data, i); }
  /** The node with the host's id `id`, or -1 when this data does not have it. */
  indexOf(id: number): number { return this.ids ? this.ids(id) : indexOfHostId(this.data, id); }
  /** Root-to-focus path (inclusive). */
  get ancestors(): readonly number[] { return this._ancestors; }

  /** Visible = in the focused subtree, or an ancestor of the focus. */
  isVisible(i: number): boolean {
    if (i >= 0 && i < this.n && this.inFocus[i]) return true;
    return this.depth[i] < this._ancestors.length && this._ancestors[this.depth[i]] === i;
  }

  isInFocusSubtree(i: number): boolean { return i >= 0 && i < this.n && this.inFocus[i] === 1; }

  /** The nodes of i's subtree held here. */
  subtreeSize(i: number): number {
    let count = 0;
    this.walk(i, () => { count++; return true; });
    return count;
  }

  /** Visits i's subtree parents first, children in order; `visit` returning false skips the
   *  node's children. */
  walk(i: number, visit: (node: number) => boolean): void {
    let stack = this.stack;
    let top = 0;
    stack[top++] = i;
    const last = this.lastChild, prev = this.prevSibling;
    while (top > 0) {
      const v = stack[--top];
      if (!visit(v)) continue;
      for (let c = last[v]; c >= 0; c = prev[c]) {
        if (top === stack.length) { const s = new Int32Array(stack.length * 2); s.set(stack); this.stack = stack = s; }
        stack[top++] = c;
      }
    }
  }

  /** Zoom: lay out the subtree of `f` across the full width. */
  layout(f: number): void {
    if (!(f >= 0 && f < this.n)) f = 0;
    // The old focus's subtree leaves the focus.
    const inFocus = this.inFocus;
    this.walk(this._focus < this.n ? this._focus : 0, (i) => { inFocus[i] = 0; return true; });
    this._focus = f;
    this.v0 = 0;
    this.v1 = 1;
    const { parent, inclusive } = this.data;
    const path: number[] = [];
    for (let a = f; a >= 0; a = parent[a]) path.push(a);
    path.reverse();
    this._ancestors = path;
    const x0 = this.x0, x1 = this.x1;
    for (const a of path) { x0[a] = 0; x1[a] = 1; }
    const fi = inclusive[f];
    const scale = fi > 0 ? 1 / fi : 0;
    const first = this.firstChild, next = this.nextSibling;
    // Children start at the parent's left edge, one after the other.
    this.walk(f, (i) => {
      inFocus[i] = 1;
      let cur = x0[i];
      const end = x1[i];
      for (let c = first[i]; c >= 0; c = next[c]) {
        const stop = Math.min(cur + Math.max(0, inclusive[c]) * scale, end);
        x0[c] = cur;
        x1[c] = stop > cur ? stop : cur;
        cur = x1[c];
      }
      return true;
    });
  }

  /** Smallest viewport: a millionth of the focused width (deeper zoom is a click away). */
  static readonly MIN_SPAN = 1e-6;

  get span(): number { return this.v1 - this.v0; }

  /** Screen fraction (0..1 of the width) → fraction of the focused subtree's width. */
  toModel(xs: number): number { return this.v0 + xs * (this.v1 - this.v0); }

  /** Sets the viewport, clamped inside 0..1 with at least MIN_SPAN. */
  setViewport(v0: number, v1: number): void {
    let span = Math.min(1, Math.max(FlameModel.MIN_SPAN, v1 - v0));
    if (!Number.isFinite(span)) span = 1;
    let a = Number.isFinite(v0) ? v0 : 0;
    a = Math.min(Math.max(0, a), 1 - span);
    this.v0 = a;
    this.v1 = a + span;
  }

  /** Zooms by `factor` (< 1: in) keeping the point at screen fraction `xs` in place. */
  zoomAt(xs: number, factor: number): void {
    const x = this.toModel(xs);
    const span = Math.min(1, Math.max(FlameModel.MIN_SPAN, this.span * factor));
    this.setViewport(x - xs * span, x - xs * span + span);
  }

  /** Moves the viewport by `d` (fraction of the focused width). */
  pan(d: number): void { this.setViewport(this.v0 + d, this.v1 + d); }

  get zoomedIn(): boolean { return this.v0 > 0 || this.v1 < 1; }

  /** Node i's frame as a path step: what identifies it among its siblings in another view of
   *  the same profile (name, file and line; siblings can share a name, one per line). */
  step(i: number): PathStep {
    const { frames, frame, strings } = this.data;
    const f = frame[i];
    return { name: this.fullName(i), file: strings[frames.file[f]] ?? '', line: frames.line[f] };
  }

  /** The root-to-i path as steps (what the state keeps of the focused frame). */
  stepsTo(i: number): PathStep[] { return this.pathTo(i).map((a) => this.step(a)); }

  /** The node at the end of `steps` (from the root): each step matched by name, file and line,
   *  else by name alone; the deepest node found when a step is missing. */
  findSteps(steps: readonly PathStep[]): number {
    let cur = 0;
    for (let d = 1; d < steps.length; d++) {
      const want = steps[d];
      if (!want || typeof want.name !== 'string') break;
      let byName = -1, exact = -1;
      for (let c = this.firstChild[cur]; c >= 0; c = this.nextSibling[c]) {
        const st = this.step(c);
        if (st.name !== want.name) continue;
        if (byName < 0) byName = c;
        if (st.file === want.file && st.line === want.line) { exact = c; break; }
      }
      const next = exact >= 0 ? exact : byName;
      if (next < 0) break;
      cur = next;
    }
    return cur;
  }

  /** Path of node i from the root (inclusive). */
  pathTo(i: number): number[] {
    const out: number[] = [];
    for (let a = i; a >= 0; a = this.data.parent[a]) out.push(a);
    return out.reverse();
  }

  /**
   * Node at horizontal screen fraction xs (through the viewport) on row `row`, or -1.
   * Nodes narrower than minWidth (fraction of the screen) are treated as absent (not drawn).
   */
  hitTest(xs: number, row: number, minWidth = 0): number {
    if (row < 0 || row > this.maxDepth || xs < 0 || xs >= 1) return -1;
    const x = this.toModel(xs);
    minWidth *= this.span;
    const anc = this._ancestors;
    if (row < anc.length) return anc[row];
    let cur = this._focus;
    for (let d = anc.length; d <= row; d++) {
      let c = this.firstChild[cur];
      let found = -1;
      for (; c >= 0; c = this.nextSibling[c]) {
        if (this.x0[c] <= x && x < this.x1[c]) {
          if (this.x1[c] - this.x0[c] >= minWidth) found = c;
          break;
        }
      }
      if (found < 0) return -1;
      cur = found;
    }
    return cur;
  }

  /** Case-insensitive substring search over frame names and file paths. Empty query → null. */
  search(query: string): SearchResult | null {
    const q = query.trim().toLowerCase();
    if (!q) return null;
    const { strings, frames, frame, inclusive } = this.data;
    if (!this.lowerStrings) this.lowerStrings = strings.map((s) => s.toLowerCase());
    const hit = new Uint8Array(strings.length);
    for (let s = 1; s < strings.length; s++) if (this.lowerStrings[s].includes(q)) hit[s] = 1;
    // Matched once per frame of the table, then per node through its frame.
    const frameHit = new Uint8Array(frames.name.length);
    for (let f = 0; f < frameHit.length; f++) frameHit[f] = hit[frames.name[f]] | hit[frames.file[f]];
    const n = this.n;
    const matches = new Uint8Array(n);
    let count = 0, value = 0;
    for (let i = 0; i < n; i++) if (frameHit[frame[i]]) { matches[i] = 1; count++; }
    // The share: each match's value once, not again for matches under it.
    if (count) this.walk(0, (i) => { if (!matches[i]) return true; value += Math.max(0, inclusive[i]); return false; });
    return { query, matches, count, value, share: this.total > 0 ? value / this.total : 0 };
  }

  /** The frame kind of node i (FrameKind). */
  kind(i: number): number { return this.data.frames.kind[this.data.frame[i]]; }

  /** The frame's full name. */
  fullName(i: number): string {
    const s = this.data.strings[this.data.frames.name[this.data.frame[i]]];
    return s || (i === 0 ? 'all' : `<unknown ${i}>`);
  }

  /** The frame's display name (C++ and kernel names folded, capped: frameNames.ts). */
  label(i: number): string {
    if (i === 0) return this.fullName(0);
    const f = this.data.frame[i];
    if (!this.labels) this.labels = new Array<string | undefined>(this.data.frames.kind.length);
    let s = this.labels[f];
    if (s === undefined) s = this.labels[f] = displayName(this.fullName(i), this.data.frames.kind[f]);
    return s;
  }

  /** Whether node i is a truncated stack's marker (its callers are unknown). */
  truncated(i: number): boolean {
    const fl = this.data.frames.flags;
    return !!fl && (fl[this.data.frame[i]] & FrameFlag.Truncated) !== 0;
  }
}
