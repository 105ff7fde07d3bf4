// A distributed job's ranks on one timeline (pure: no vscode): the addon's RankTimeline as the
// webview's 'rankTimeline' data (protocol v11: plain arrays, typed arrays do not survive the
// webview's message; each rank's host from the run's ranks), and which source line a slice was
// asked for at (the webview names slices by index).
import type { RankRunInfo, RankTimeline } from '../../native/addon/index';
import type { RankTimelineData } from '../../webview/src/protocol';

/** Slices asked of the addon for one panel: every slice is a few numbers in a message and a
 *  rectangle in the webview; more than this and the core keeps each lane's earliest ones. */
export const RANK_TIMELINE_MAX_SLICES = 500_000;

/** The timeline as the webview's data; `info` (the run's ranks) gives each rank's host. */
export function toRankTimelineData(t: RankTimeline, info: RankRunInfo | null | undefined): RankTimelineData {
  const hosts = (info?.ranks ?? []).map((r) => ({ rank: r.rank, host: r.host }));
  return {
    originUnixNs: t.originUnixNs, spanNs: t.spanNs, hosts,
    lanes: t.lanes.map((l) => ({ rank: l.rank, kind: l.kind, device: l.device, stream: l.stream })),
    names: [...t.names],
    sources: t.sources.map((s) => ({ file: s.file, line: s.line })),
    lane: Array.from(t.lane), start: Array.from(t.start), end: Array.from(t.end), kind: Array.from(t.kind),
    name: Array.from(t.name), source: Array.from(t.source), bytes: Array.from(t.bytes),
    truncated: t.truncated, gpuDropped: t.gpuDropped, ranksWithoutClock: [...t.ranksWithoutClock],
  };
}

export interface RankSliceSource { file: string; line: number; name: string; rank: number }

/** Where slice `slice` was asked for (its file and line, its name and rank); undefined for an
 *  index out of range or a slice without a source. */
export function rankSliceSource(d: RankTimelineData, slice: number): RankSliceSource | undefined {
  if (!Number.isInteger(slice) || slice < 0 || slice >= d.lane.length) return undefined;
  const s = d.sources[d.source[slice]];
  if (!s || !s.file) return undefined;
  return { file: s.file, line: s.line, name: d.names[d.name[slice]] ?? '', rank: d.lanes[d.lane[slice]]?.rank ?? -1 };
}
