// What the timeline asks the addon for (native/addon/index.d.ts: decodeRegions,
// regionLaunches), and its answers turned into what the extension works with: the launches of a
// profile for a quick pick, and the decoded trace as the webview protocol's RegionTraceData (the
// shape `strata regions --format json` prints). No vscode import: unit-tested under node.
import type { RegionLaunches, RegionNamesColumns, RegionRequest, RegionTraceColumns } from '../../../native/addon/index';
import type { RegionInterval, RegionLane, RegionName, RegionOverlap, RegionTraceData } from '../../../webview/src/protocol';

export interface DecodeRequest {
  buffer: string;
  /** A names file (`.names` table or harness sidecar), read by the core: names with their
   *  markers' lines, and the sidecar's clock rate. */
  namesFile?: string;
  cyclesPerNs?: number;
  calibration?: string;
  /** `buffer` is a Proton trace (names come from the trace). */
  proton?: boolean;
  /** `buffer` is a profile (`strata record --regions`): decode its captured launch N (names
   *  from the profile's region frames). */
  launch?: number;
}

/** The addon's request for a decode request. */
export function addonRequest(req: DecodeRequest): RegionRequest {
  if (req.proton) return { source: 'proton', path: req.buffer, namesFile: req.namesFile || undefined, cyclesPerNs: validRate(req.cyclesPerNs) };
  return {
    source: req.launch !== undefined ? 'profile' : 'buffer', path: req.buffer, launch: req.launch,
    namesFile: req.namesFile || undefined, cyclesPerNs: validRate(req.cyclesPerNs), calibration: req.calibration || undefined,
  };
}

function validRate(r: number | undefined): number | undefined {
  return r !== undefined && Number.isFinite(r) && r > 0 ? r : undefined;
}

/** One captured launch of a profile. */
export interface CapturedLaunch {
  index: number;
  /** Demangled, as the flame graph shows the kernel. */
  kernel: string;
  mangled: string;
  correlation_id: number;
  bytes: number;
}

export function launchList(c: RegionLaunches): CapturedLaunch[] {
  return [...c.index].map((index, i) => ({
    index, kernel: c.strings[c.kernel[i]] ?? '', mangled: c.strings[c.mangled[i]] ?? '', correlation_id: c.correlationId[i], bytes: c.bytes[i],
  }));
}

/** Quick pick label and detail of a launch. */
export function launchItem(l: CapturedLaunch): { label: string; description: string; detail: string } {
  const kib = l.bytes >= 1024 ? `${(l.bytes / 1024).toFixed(1)} KiB` : `${l.bytes} bytes`;
  return { label: `Launch ${l.index}`, description: `correlation ${l.correlation_id} · ${kib}`, detail: l.kernel };
}

const GROUPING = ['warp-group', 'warp', 'custom'];

/** A names table's columns as typed records (file and line only where the names gave them). */
export function nameRecords(c: Pick<RegionNamesColumns, 'strings' | 'regions'>): RegionName[] {
  const out: RegionName[] = [];
  for (let i = 0; i < c.regions.id.length; i++) {
    const r: RegionName = { id: c.regions.id[i], name: c.strings[c.regions.name[i]] ?? '' };
    if (c.regions.file[i]) { r.file = c.strings[c.regions.file[i]]; r.line = c.regions.line[i]; }
    out.push(r);
  }
  return out;
}

/** The decoded columns as the webview's RegionTraceData (the shape `strata regions --format
 *  json` prints): the names table as typed records, each interval with its region's name; a
 *  group share's region without a name is "region <id>". */
export function traceData(c: RegionTraceColumns): RegionTraceData {
  const regions = nameRecords(c);
  const names = new Map(regions.map((r) => [r.id, r]));
  const L = c.lanes;
  const lanes: (RegionLane & { kernel?: string })[] = [];
  for (let i = 0; i < L.block.length; i++) {
    const lane: RegionLane & { kernel?: string } = {
      block: L.block[i], block_xyz: [L.blockX[i], L.blockY[i], L.blockZ[i]], group: L.group[i], grouping: GROUPING[L.grouping[i]] ?? 'custom',
      smid: L.smid[i], mode: L.mode[i] === 0 ? 'circular' : 'flush', records: L.records[i], overflow: L.overflow[i],
      start_ns: L.startNs[i], end_ns: L.endNs[i],
    };
    if (L.kernel[i]) lane.kernel = c.strings[L.kernel[i]];
    lanes.push(lane);
  }
  const I = c.intervals;
  const intervals: RegionInterval[] = [];
  for (let i = 0; i < I.lane.length; i++) {
    const iv: RegionInterval = {
      lane: I.lane[i], region: I.region[i], depth: I.depth[i], parent: I.parent[i], start_ns: I.startNs[i], end_ns: I.endNs[i],
      raw_start_ns: I.rawStartNs[i], raw_end_ns: I.rawEndNs[i],
    };
    const n = names.get(iv.region);
    if (n) iv.name = n.name;
    if (I.iteration[i] >= 0) iv.iteration = I.iteration[i];
    if (I.waitNs[i] >= 0) iv.wait_ns = I.waitNs[i];
    if (I.unmatched[i]) iv.unmatched = true;
    intervals.push(iv);
  }
  const data: RegionTraceData = {
    cycles_per_ns: c.cyclesPerNs, record_cost_cycles: c.recordCostCycles, lanes, regions, intervals, issues: c.issues.map((x) => ({ ...x })),
  };
  if (c.overlap) data.overlap = overlapData(c, names);
  if (c.groups.length) {
    data.groups = c.groups.map((g) => ({
      group: g.group, lanes: g.lanes,
      regions: g.regions.map((r) => ({ ...r, name: names.get(r.region)?.name ?? `region ${r.region}` })),
    }));
  }
  return data;
}

/** The core's overlap analysis as the protocol's records (region names resolved here once). */
function overlapData(c: RegionTraceColumns, names: Map<number, RegionName>): RegionOverlap {
  const o = c.overlap;
  const name = (r: number) => r === -1 ? '(no region)' : r === -2 ? '(sync)' : names.get(r)?.name ?? `region ${r}`;
  const path = [...o.path.lane].map((lane, i) => ({ lane, start_ns: o.path.startNs[i], end_ns: o.path.endNs[i], ...(o.path.sync[i] ? { sync: true } : {}) }));
  const bubbles = [...o.bubbles.lane].map((lane, i) => ({ lane, start_ns: o.bubbles.startNs[i], end_ns: o.bubbles.endNs[i], ...(o.bubbles.idle[i] ? { idle: true } : {}) }));
  return {
    path, bubbles,
    model: { kind: o.model.kind, stages: o.model.stages, bottleneck: o.model.bottleneck, measured_ns: o.model.measuredNs, predicted_ns: o.model.predictedNs },
    path_regions: o.pathRegions.map((r) => ({ ...r, name: name(r.region) })),
    findings: o.findings.map((f) => ({ kind: f.kind, region: f.region, name: name(f.region), message: f.message, gain_ns: f.gainNs, gain_share: f.gainShare })),
  };
}
