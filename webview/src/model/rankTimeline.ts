// A distributed job's ranks on one timeline (protocol v11 'rankTimeline') as timeline rows and
// interval columns: one row group per rank ("rank 2 · host"), in it a row for its steps, one for
// its collective calls and one per GPU stream ("GPU d0 s7"). Overlapping slices of one lane
// (collectives issued asynchronously) are stacked first-fit on levels of their own. Colour: steps
// one colour in alternating shades (so that their boundaries show), collectives by their op,
// GPU activities by their name: the same name the same colour on every rank.
import { RankSliceKind, type RankLaneData, type RankTimelineData } from '../protocol';
import type { TimelineInput } from './timelineModel';

export interface RankTimelineModel {
  input: TimelineInput;
  data: RankTimelineData;
  /** Row of each lane (lanes are ordered by rank, then steps, collectives, GPU streams). */
  rowOfLane: Int32Array;
  /** Each rank's host, "" when unknown. */
  hostOf: Map<number, string>;
}

const KIND_ORDER: Record<RankLaneData['kind'], number> = { steps: 0, collectives: 1, gpu: 2 };

/** A lane's row label. */
export function rankLaneLabel(l: RankLaneData): string {
  return l.kind === 'gpu' ? `GPU d${l.device} s${l.stream}` : l.kind;
}

/** A rank's group label: "rank 2 · host" (the host left out when unknown). */
export function rankGroupLabel(rank: number, host: string): string {
  return host ? `rank ${rank} · ${host}` : `rank ${rank}`;
}

/** What a slice is, for the tooltip. */
export function rankSliceKindName(kind: number): string {
  switch (kind) {
    case RankSliceKind.Step: return 'step';
    case RankSliceKind.Collective: return 'collective call';
    case RankSliceKind.Kernel: return 'kernel';
    case RankSliceKind.Memcpy: return 'memory copy';
    case RankSliceKind.Memset: return 'memory set';
    default: return 'slice';
  }
}

/** Why the timeline is incomplete, for a banner; "" when it is whole. */
export function rankTimelineBanner(d: Pick<RankTimelineData, 'lane' | 'truncated' | 'ranksWithoutClock' | 'gpuDropped'>): string {
  const lines: string[] = [];
  if (d.lane.length === 0) {
    lines.push('The ranks recorded no collective calls and no GPU activity: nothing to place on the timeline (the steps are told by the collective calls).');
  }
  if (d.truncated > 0) {
    lines.push(`${d.truncated.toLocaleString('en-US')} slices are left out (too many to draw): each lane shows its earliest ones.`);
  }
  if (d.ranksWithoutClock.length) {
    const r = d.ranksWithoutClock;
    lines.push(`Rank${r.length === 1 ? '' : 's'} ${r.join(', ')} recorded no start clock: ${r.length === 1 ? 'its' : 'their'} collective calls cannot be placed on the timeline.`);
  }
  if (d.gpuDropped > 0) lines.push(`The ranks' runtimes dropped ${d.gpuDropped.toLocaleString('en-US')} GPU activity records (their buffer limit).`);
  return lines.join('\n');
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Validates the data (throws an Error saying what is wrong) and builds the timeline input. */
export function rankTimeline(raw: unknown): RankTimelineModel {
  if (!raw || typeof raw !== 'object') throw new Error('the rank timeline is not an object');
  const d = raw as Partial<RankTimelineData>;
  if (!Array.isArray(d.lanes) || !Array.isArray(d.names) || !Array.isArray(d.lane)) {
    throw new Error('this is not a rank timeline: "lanes", "names" and "lane" arrays are missing');
  }
  const n = d.lane.length;
  for (const col of ['start', 'end', 'kind', 'name'] as const) {
    const c = d[col];
    if (!Array.isArray(c) || c.length !== n) throw new Error(`rank timeline: column ${col} has ${Array.isArray(c) ? c.length : 'no'} entries, expected ${n}`);
  }
  const lanes: RankLaneData[] = d.lanes.map((l, i) => {
    if (!l || typeof l !== 'object' || !isNum(l.rank) || !(l.kind in KIND_ORDER)) throw new Error(`rank timeline: lane ${i} is not a lane`);
    return { rank: l.rank, kind: l.kind, device: isNum(l.device) ? l.device : 0, stream: isNum(l.stream) ? l.stream : 0 };
  });
  const sources = Array.isArray(d.sources) ? d.sources : [];
  const source = Array.isArray(d.source) && d.source.length === n ? d.source : new Array<number>(n).fill(-1);
  const bytes = Array.isArray(d.bytes) && d.bytes.length === n ? d.bytes : new Array<number>(n).fill(0);
  const data: RankTimelineData = {
    originUnixNs: isNum(d.originUnixNs) ? d.originUnixNs : 0, spanNs: isNum(d.spanNs) ? d.spanNs : 0,
    hosts: Array.isArray(d.hosts) ? d.hosts : [], lanes, names: d.names.map(String), sources,
    lane: d.lane, start: d.start!, end: d.end!, kind: d.kind!, name: d.name!, source, bytes,
    truncated: isNum(d.truncated) ? d.truncated : 0, gpuDropped: isNum(d.gpuDropped) ? d.gpuDropped : 0,
    ranksWithoutClock: Array.isArray(d.ranksWithoutClock) ? d.ranksWithoutClock.filter(isNum) : [],
  };
  const hostOf = new Map<number, string>();
  for (const h of data.hosts) if (h && isNum(h.rank)) hostOf.set(h.rank, typeof h.host === 'string' ? h.host : '');

  // Rows: lanes by rank, then steps, collectives, GPU streams by (device, stream).
  const laneOfRow = Int32Array.from(lanes.keys());
  laneOfRow.sort((a, b) => lanes[a].rank - lanes[b].rank || KIND_ORDER[lanes[a].kind] - KIND_ORDER[lanes[b].kind] ||
    lanes[a].device - lanes[b].device || lanes[a].stream - lanes[b].stream || a - b);
  const rowOfLane = new Int32Array(lanes.length);
  laneOfRow.forEach((lane, row) => { rowOfLane[lane] = row; });
  const rows = Array.from(laneOfRow, (lane) => {
    const l = lanes[lane];
    return { label: rankLaneLabel(l), group: rankGroupLabel(l.rank, hostOf.get(l.rank) ?? '') };
  });

  const row = new Int32Array(n), start = new Float64Array(n), end = new Float64Array(n);
  const depth = new Int32Array(n), label = new Uint32Array(n), colorKey = new Int32Array(n), shade = new Uint8Array(n);
  const byLane: number[][] = Array.from({ length: lanes.length }, () => []);
  // Steps share key 0; every other (kind, name) its own key, in order of first appearance.
  const keys = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const lane = data.lane[i], s = data.start[i], e = data.end[i], nm = data.name[i];
    if (!Number.isInteger(lane) || lane < 0 || lane >= lanes.length) throw new Error(`rank timeline: slice ${i} names lane ${String(lane)}, but there are ${lanes.length} lanes`);
    if (!isNum(s) || !isNum(e)) throw new Error(`rank timeline: slice ${i} has no start/end`);
    if (!Number.isInteger(nm) || nm < 0 || nm >= data.names.length) throw new Error(`rank timeline: slice ${i} names name ${String(nm)}, but there are ${data.names.length} names`);
    row[i] = rowOfLane[lane];
    start[i] = s;
    end[i] = Math.max(s, e);
    label[i] = nm;
    const kind = data.kind[i];
    if (kind === RankSliceKind.Step) {
      colorKey[i] = 0;
    } else {
      // Copies and sets are coloured by kind (their names differ by direction and size only).
      const key = kind === RankSliceKind.Collective || kind === RankSliceKind.Kernel ? `${kind}:${data.names[nm]}` : `${kind}`;
      let k = keys.get(key);
      if (k === undefined) { k = keys.size + 1; keys.set(key, k); }
      colorKey[i] = k;
    }
    byLane[lane].push(i);
  }
  // Per lane in start order: the steps' alternating shade, and first-fit levels for overlaps.
  for (const list of byLane) {
    list.sort((a, b) => start[a] - start[b] || a - b);
    const levelEnd: number[] = [];
    let step = 0;
    for (const i of list) {
      if (data.kind[i] === RankSliceKind.Step) shade[i] = step++ & 1;
      let lv = levelEnd.findIndex((e) => e <= start[i]);
      if (lv < 0) { lv = levelEnd.length; levelEnd.push(0); }
      levelEnd[lv] = end[i];
      depth[i] = lv;
    }
  }
  return { input: { rows, labels: data.names, row, start, end, depth, label, colorKey, shade, groupLabels: true, origin: 0 }, data, rowOfLane, hostOf };
}
