// A decoded region trace (`strata regions --format json`, docs/regions.md) as timeline rows and
// intervals: one row per lane, rows ordered by SM, then block, then lane in the block (rows of one
// SM form a group); nested regions stacked by depth, async regions on levels of their own below;
// colour by region id, loop iterations alternating in shade so that their boundaries show.
import type { RegionInterval, RegionLane, RegionTraceData } from '../protocol';
import { MarkKind, TimelineInput, TimelineMarks } from './timelineModel';

export interface RegionTimeline {
  input: TimelineInput;
  lanes: RegionLane[];
  intervals: RegionInterval[];
  /** Row of each lane (lanes are re-ordered for display). */
  rowOfLane: Int32Array;
  /** Lane shown in each row. */
  laneOfRow: Int32Array;
}

const num = (v: unknown, fallback = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

/** Short name of a lane grouping: warp group, warp, custom group. */
export function groupingPrefix(g: string | undefined): string {
  return g === 'warp' ? 'warp' : g === 'custom' ? 'group' : 'wg';
}

export function laneLabel(l: RegionLane): string {
  const xyz = Array.isArray(l.block_xyz) && l.block_xyz.length === 3 && (l.block_xyz[1] || l.block_xyz[2])
    ? ` (${l.block_xyz.join(',')})` : '';
  return `SM ${l.smid} · block ${l.block}${xyz} · ${groupingPrefix(l.grouping)} ${l.group}`;
}

export function intervalName(iv: RegionInterval): string {
  const base = typeof iv.name === 'string' && iv.name ? iv.name : `region ${iv.region}`;
  return typeof iv.iteration === 'number' && iv.iteration >= 0 ? `${base} #${iv.iteration}` : base;
}

const isAsync = (iv: RegionInterval): boolean => typeof iv.wait_ns === 'number' && iv.wait_ns >= 0;

/** The level each interval is drawn at. An async region (two starts, one end) is not nested
 *  like the others (a load issued in one iteration is waited for in the next), so drawn at its
 *  depth it would overlap the iterations: async regions get their own levels below the lane's
 *  deepest synchronous one, packed first-fit so that overlapping ones never share a level. */
function asyncTracks(intervals: RegionInterval[], laneCount: number): Int32Array {
  const out = new Int32Array(intervals.length);
  const deepest = new Int32Array(laneCount).fill(-1);
  const byLane: number[][] = Array.from({ length: laneCount }, () => []);
  intervals.forEach((iv, i) => {
    if (isAsync(iv)) byLane[iv.lane].push(i);
    else { out[i] = Math.max(0, Math.floor(iv.depth)); deepest[iv.lane] = Math.max(deepest[iv.lane], out[i]); }
  });
  byLane.forEach((list, lane) => {
    list.sort((a, b) => intervals[a].start_ns - intervals[b].start_ns);
    const slotEnd: number[] = [];
    for (const i of list) {
      let s = slotEnd.findIndex((e) => e <= intervals[i].start_ns);
      if (s < 0) { s = slotEnd.length; slotEnd.push(0); }
      slotEnd[s] = intervals[i].end_ns;
      out[i] = deepest[lane] + 1 + s;
    }
  });
  return out;
}

/** Validates the trace (throws an Error saying what is wrong) and builds the timeline input. */
export function regionTimeline(raw: unknown): RegionTimeline {
  if (!raw || typeof raw !== 'object') throw new Error('the region trace is not an object');
  const d = raw as Partial<RegionTraceData>;
  if (!Array.isArray(d.lanes) || !Array.isArray(d.intervals)) {
    throw new Error('this is not a decoded region trace: "lanes" and "intervals" arrays are missing');
  }
  const lanes: RegionLane[] = d.lanes.map((l, i) => {
    if (!l || typeof l !== 'object') throw new Error(`lane ${i} is not an object`);
    return { ...l, block: num(l.block), group: num(l.group), smid: num(l.smid), start_ns: num(l.start_ns), end_ns: num(l.end_ns) };
  });
  const laneOfRow = Int32Array.from(lanes.keys());
  laneOfRow.sort((a, b) => lanes[a].smid - lanes[b].smid || lanes[a].block - lanes[b].block || lanes[a].group - lanes[b].group || a - b);
  const rowOfLane = new Int32Array(lanes.length);
  laneOfRow.forEach((lane, row) => { rowOfLane[lane] = row; });

  const intervals: RegionInterval[] = [];
  for (const [i, iv] of d.intervals.entries()) {
    if (!iv || typeof iv !== 'object') throw new Error(`interval ${i} is not an object`);
    const lane = num(iv.lane, -1);
    if (!Number.isInteger(lane) || lane < 0 || lane >= lanes.length) throw new Error(`interval ${i} names lane ${String(iv.lane)}, but there are ${lanes.length} lanes`);
    const start = num(iv.start_ns, NaN), end = num(iv.end_ns, NaN);
    if (!Number.isFinite(start) || !Number.isFinite(end)) throw new Error(`interval ${i} has no start_ns/end_ns`);
    intervals.push({ ...iv, lane, region: num(iv.region), depth: num(iv.depth), start_ns: start, end_ns: end });
  }

  const n = intervals.length;
  const shownDepth = asyncTracks(intervals, lanes.length);
  const labels: string[] = [];
  const labelIds = new Map<string, number>();
  const row = new Int32Array(n), start = new Float64Array(n), end = new Float64Array(n);
  const depth = new Int32Array(n), label = new Uint32Array(n), colorKey = new Int32Array(n), shade = new Uint8Array(n);
  intervals.forEach((iv, i) => {
    row[i] = rowOfLane[iv.lane];
    start[i] = iv.start_ns;
    end[i] = iv.end_ns;
    depth[i] = shownDepth[i];
    const name = intervalName(iv);
    let id = labelIds.get(name);
    if (id === undefined) { id = labels.length; labels.push(name); labelIds.set(name, id); }
    label[i] = id;
    colorKey[i] = iv.region;
    shade[i] = typeof iv.iteration === 'number' && iv.iteration >= 0 ? iv.iteration & 1 : 0;
  });
  const rows = Array.from(laneOfRow, (lane) => ({ label: laneLabel(lanes[lane]), group: `SM ${lanes[lane].smid}` }));
  const marks = overlapMarks(d.overlap, rowOfLane);
  return { input: { rows, labels, row, start, end, depth, label, colorKey, shade, marks }, lanes, intervals, rowOfLane, laneOfRow };
}

/** The overlap analysis's critical path and bubbles as timeline marks; pieces naming a lane
 *  the trace lacks, or without a finite span, are left out. */
function overlapMarks(o: RegionTraceData['overlap'], rowOfLane: Int32Array): TimelineMarks | undefined {
  if (!o || typeof o !== 'object') return undefined;
  const row: number[] = [], start: number[] = [], end: number[] = [], kind: number[] = [];
  const add = (lane: unknown, s: unknown, e: unknown, k: number) => {
    const l = num(lane, -1), a = num(s, NaN), b = num(e, NaN);
    if (!Number.isInteger(l) || l < 0 || l >= rowOfLane.length || !(b >= a)) return;
    row.push(rowOfLane[l]); start.push(a); end.push(b); kind.push(k);
  };
  for (const p of Array.isArray(o.path) ? o.path : []) add(p?.lane, p?.start_ns, p?.end_ns, p?.sync ? MarkKind.PathHop : MarkKind.Path);
  for (const b of Array.isArray(o.bubbles) ? o.bubbles : []) add(b?.lane, b?.start_ns, b?.end_ns, b?.idle ? MarkKind.Idle : MarkKind.Wait);
  return row.length ? { row, start, end, kind } : undefined;
}
