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
  readonly data: FlameData;
  readonly n: number;
  readonly total: number;
  readonly depth: Int32Array;
  /** End (exclusive) of each node's subtree in preorder: the subtree of i is [i, end[i]). */
  readonly end: Int32Array;
  readonly firstChild: Int32Array;
  readonly nextSibling: Int32Array;
  readonly maxDepth: number;
  readonly x0: Float64Array;
  readonly x1: Float64Array;
  /** Per node: every child the host left out is under this value (0: none left out). */
  readonly limit: Float64Array;
  private _focus = 0;
  /** The visible part of the focused subtree's width (fractions; v0 < v1). */
  v0 = 0;
  v1 = 1;
  private _ancestors: number[] = [0];
  private lowerStrings: string[] | null = null;
  private labels: (string | undefined)[] | null = null;

  constructor(data: FlameData, limit?: Float64Array) {
    this.data = data;
    const n = (this.n = data.parent.length);
    this.limit = limit && limit.length === n ? limit : new Float64Array(n);
    const parent = data.parent;
    this.total = data.total > 0 ? data.total : data.inclusive[0];
    const depth = (this.depth = new Int32Array(n));
    const end = (this.end = new Int32Array(n));
    const firstChild = (this.firstChild = new Int32Array(n).fill(-1));
    const nextSibling = (this.nextSibling = new Int32Array(n).fill(-1));
    const lastChild = new Int32Array(n).fill(-1);
    let maxDepth = 0;
    for (let i = 1; i < n; i++) {
      const p = parent[i];
      const d = (depth[i] = depth[p] + 1);
      if (d > maxDepth) maxDepth = d;
      if (lastChild[p] < 0) firstChild[p] = i; else nextSibling[lastChild[p]] = i;
      lastChild[p] = i;
    }
    this.maxDepth = maxDepth;
    // Subtree ends: in preorder, end[i] = max over descendants + 1; walk backwards.
    for (let i = n - 1; i >= 0; i--) {
      if (end[i] === 0) end[i] = i + 1;
      const p = parent[i];
      if (p >= 0 && end[i] > end[p]) end[p] = end[i];
    }
    this.x0 = new Float64Array(n);
    this.x1 = new Float64Array(n);
    this.layout(0);
  }

  get focus(): number { return this._focus; }

  /** The host's id of node i (what messages to the host name it by). */
  hostId(i: number): number { return hostId(this.data, i); }
  /** The node with the host's id `id`, or -1 when this data does not have it. */
  indexOf(id: number): number { return indexOfHostId(this.data, id); }
  /** Root-to-focus path (inclusive). */
  get ancestors(): readonly number[] { return this._ancestors; }

  /** Visible = in the focused subtree, or an ancestor of the focus. */
  isVisible(i: number): boolean {
    if (i >= this._focus && i < this.end[this._focus]) return true;
    return this.depth[i] < this._ancestors.length && this._ancestors[this.depth[i]] === i;
  }

  isInFocusSubtree(i: number): boolean { return i >= this._focus && i < this.end[this._focus]; }

  /** Zoom: lay out the subtree of `f` across the full width. */
  layout(f: number): void {
    if (!(f >= 0 && f < this.n)) f = 0;
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
    // cur: next free x inside each parent (children start at the parent's left edge).
    const cur = new Float64Array(this.end[f] - f);
    cur[0] = 0;
    const e = this.end[f];
    for (let i = f + 1; i < e; i++) {
      const p = parent[i];
      const start = cur[p - f];
      const w = Math.max(0, inclusive[i]) * scale;
      const stop = Math.min(start + w, x1[p]);
      x0[i] = start;
      x1[i] = stop > start ? stop : start;
      cur[p - f] = x1[i];
      cur[i - f] = start;
    }
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
    let count = 0, value = 0, coveredUntil = 0;
    for (let i = 0; i < n; i++) {
      if (frameHit[frame[i]]) {
        matches[i] = 1;
        count++;
        if (i >= coveredUntil) { value += Math.max(0, inclusive[i]); coveredUntil = this.end[i]; }
      }
    }
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
