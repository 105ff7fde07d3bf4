// A generic timeline: rows × intervals on one time axis, nested intervals stacked by depth inside
// their row. It knows nothing about what the intervals are (in-kernel regions today, GPU streams
// later): the caller converts its data into rows and interval columns. Holds the row layout
// (vertical, in CSS px), the visible time window (pan / zoom) and the hit test.

export interface TimelineRow {
  label: string;
  /** Rows of one group are drawn together; a wider gap separates groups (e.g. one SM). */
  group: string;
}

/** Interval columns (all of length n). Times in any unit (the caller formats them). */
export interface TimelineInput {
  rows: TimelineRow[];
  labels: string[];
  row: ArrayLike<number>;
  start: ArrayLike<number>;
  end: ArrayLike<number>;
  depth: ArrayLike<number>;
  label: ArrayLike<number>;      // index into labels
  colorKey: ArrayLike<number>;   // same key, same colour
  shade?: ArrayLike<number>;     // 0/1: alternate shade of the key's colour (e.g. iteration parity)
  /** Marks over the rows (e.g. a critical path, idle bubbles): thin bars drawn on top. */
  marks?: TimelineMarks;
  /** Name each group in the gutter, at its first row (its rows' labels then right-aligned):
   *  for groups whose rows do not say which group they are of (a rank's "steps"). */
  groupLabels?: boolean;
  /** The time the axis calls 0 (default: the earliest interval's start), e.g. when the rows'
   *  own clock starts before their first interval and the tooltips count from there. */
  origin?: number;
}

/** Mark kinds: a bar at the row's top (a path), thinner for a hop; a bar at its bottom (a gap). */
export const MarkKind = { Path: 0, PathHop: 1, Wait: 2, Idle: 3 } as const;
export type MarkKind = (typeof MarkKind)[keyof typeof MarkKind];

export interface TimelineMarks {
  row: ArrayLike<number>;
  start: ArrayLike<number>;
  end: ArrayLike<number>;
  kind: ArrayLike<number>;       // MarkKind
}

export interface RowLayout {
  levelHeight: number;  // CSS px per depth level
  rowGap: number;       // between rows of one group
  groupGap: number;     // between groups
}

export class TimelineModel {
  readonly n: number;
  readonly rowCount: number;
  readonly start: Float64Array;
  readonly end: Float64Array;
  readonly depth: Uint16Array;
  readonly row: Int32Array;
  readonly label: Uint32Array;
  readonly colorKey: Int32Array;
  readonly shade: Uint8Array;
  /** Interval indexes sorted by (row, start); row r owns order[rowStart[r] .. rowStart[r+1]). */
  readonly order: Int32Array;
  readonly rowStart: Int32Array;
  /** Depth levels per row (max depth + 1, at least 1). */
  readonly levels: Int32Array;
  /** Row positions from the last layout(): top and height in CSS px, and the total height. */
  rowY: Float64Array;
  rowH: Float64Array;
  contentHeight = 0;
  /** The whole trace and the visible window [v0, v1]. */
  readonly t0: number;
  readonly t1: number;
  v0: number;
  v1: number;

  constructor(readonly input: TimelineInput) {
    const n = input.row.length;
    for (const [name, col] of [['start', input.start], ['end', input.end], ['depth', input.depth], ['label', input.label], ['colorKey', input.colorKey]] as const) {
      if (col.length !== n) throw new Error(`timeline: column ${name} has ${col.length} entries, expected ${n}`);
    }
    this.n = n;
    this.rowCount = input.rows.length;
    this.start = Float64Array.from(input.start);
    this.end = new Float64Array(n);
    this.depth = new Uint16Array(n);
    this.row = Int32Array.from(input.row);
    this.label = Uint32Array.from(input.label);
    this.colorKey = Int32Array.from(input.colorKey);
    this.shade = input.shade ? Uint8Array.from(input.shade) : new Uint8Array(n);
    this.levels = new Int32Array(this.rowCount).fill(1);
    let t0 = Infinity, t1 = -Infinity;
    const counts = new Int32Array(this.rowCount + 1);
    for (let i = 0; i < n; i++) {
      const r = this.row[i];
      if (!(r >= 0 && r < this.rowCount)) throw new Error(`timeline: interval ${i} is in row ${r}, but there are ${this.rowCount} rows`);
      const s = this.start[i];
      // An end before the start (clock trouble upstream) still shows, as a zero-length interval.
      const e = Math.max(s, Number(input.end[i]));
      if (!Number.isFinite(s) || !Number.isFinite(e)) throw new Error(`timeline: interval ${i} has no finite start/end`);
      this.end[i] = e;
      const d = Math.max(0, Math.min(0xffff, Math.floor(Number(input.depth[i]) || 0)));
      this.depth[i] = d;
      if (d + 1 > this.levels[r]) this.levels[r] = d + 1;
      if (s < t0) t0 = s;
      if (e > t1) t1 = e;
      counts[r + 1]++;
    }
    if (n === 0) { t0 = 0; t1 = 1; }
    if (t1 <= t0) t1 = t0 + 1;
    this.t0 = t0; this.t1 = t1;
    this.v0 = t0; this.v1 = t1;
    this.rowStart = new Int32Array(this.rowCount + 1);
    for (let r = 0; r < this.rowCount; r++) this.rowStart[r + 1] = this.rowStart[r] + counts[r + 1];
    const fill = this.rowStart.slice(0, this.rowCount);
    const order = new Int32Array(n);
    for (let i = 0; i < n; i++) order[fill[this.row[i]]++] = i;
    for (let r = 0; r < this.rowCount; r++) {
      const part = order.subarray(this.rowStart[r], this.rowStart[r + 1]);
      part.sort((a, b) => this.start[a] - this.start[b] || this.depth[a] - this.depth[b]);
    }
    this.order = order;
    this.rowY = new Float64Array(this.rowCount);
    this.rowH = new Float64Array(this.rowCount);
  }

  /** Positions the rows top to bottom (each as tall as its depth levels). */
  layout(p: RowLayout): void {
    let y = 0;
    const rows = this.input.rows;
    for (let r = 0; r < this.rowCount; r++) {
      if (r > 0) y += rows[r].group !== rows[r - 1].group ? p.groupGap : p.rowGap;
      this.rowY[r] = y;
      this.rowH[r] = this.levels[r] * p.levelHeight;
      y += this.rowH[r];
    }
    this.contentHeight = y;
  }

  /** The row at content y (CSS px), or -1 in a gap. */
  rowAt(y: number): number {
    let lo = 0, hi = this.rowCount - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (y < this.rowY[mid]) hi = mid - 1;
      else if (y >= this.rowY[mid] + this.rowH[mid]) lo = mid + 1;
      else return mid;
    }
    return -1;
  }

  /** First row whose bottom is below content y (for culling). */
  firstRowBelow(y: number): number {
    let lo = 0, hi = this.rowCount;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.rowY[mid] + this.rowH[mid] <= y) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  get span(): number { return this.v1 - this.v0; }

  /** Time at x of a plot `width` px wide, and back. */
  timeAt(x: number, width: number): number { return this.v0 + (x / Math.max(1, width)) * this.span; }
  xAt(t: number, width: number): number { return ((t - this.v0) / this.span) * width; }

  /** Smallest window: a millionth of the trace (enough to see single records of a long lane). */
  get minSpan(): number { return (this.t1 - this.t0) * 1e-6; }

  /** Zooms by `factor` (< 1: in) keeping time `anchor` where it is on screen. */
  zoomAt(anchor: number, factor: number): void {
    const full = this.t1 - this.t0;
    const span = Math.min(full, Math.max(this.minSpan, this.span * factor));
    const frac = this.span > 0 ? (anchor - this.v0) / this.span : 0.5;
    this.setWindow(anchor - frac * span, span);
  }

  /** Moves the window by `dt` (positive: later), staying inside the trace. */
  pan(dt: number): void { this.setWindow(this.v0 + dt, this.span); }

  /** Shows [a, b] (clamped to the trace and the minimum span). */
  show(a: number, b: number): void {
    const span = Math.min(this.t1 - this.t0, Math.max(this.minSpan, b - a));
    this.setWindow((a + b) / 2 - span / 2, span);
  }

  reset(): void { this.v0 = this.t0; this.v1 = this.t1; }

  get zoomed(): boolean { return this.v0 > this.t0 || this.v1 < this.t1; }

  private setWindow(v0: number, span: number): void {
    const a = Math.min(Math.max(v0, this.t0), this.t1 - span);
    this.v0 = a;
    this.v1 = a + span;
  }

  /** The interval at time t in `row` at depth `level`; `tol` (time units) lets a pointer catch an
   *  interval narrower than a pixel. Prefers an interval that contains t, else the nearest. */
  hitTest(row: number, level: number, t: number, tol = 0): number {
    if (row < 0 || row >= this.rowCount) return -1;
    const o = this.order;
    let best = -1, bestDist = Infinity;
    for (let k = this.rowStart[row], e = this.rowStart[row + 1]; k < e; k++) {
      const i = o[k];
      if (this.start[i] > t + tol) break;   // sorted by start: nothing later can contain t
      if (this.depth[i] !== level) continue;
      const dist = t < this.start[i] ? this.start[i] - t : t > this.end[i] ? t - this.end[i] : 0;
      if (dist <= tol && dist <= bestDist) { best = i; bestDist = dist; }
    }
    return best;
  }

  labelOf(i: number): string { return this.input.labels[this.label[i]] ?? ''; }
}
