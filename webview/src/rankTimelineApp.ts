// Rank timeline mode of the webview (protocol v11 'rankTimeline'): a distributed job's ranks on
// one clock, shown with the generic timeline view; the rank-specific parts live here: what the
// tooltip says (rank, lane, name, duration, start, bytes, the issuing line), a click asking the
// host to open a slice's source line, why the timeline is incomplete as a banner.
import { RankSliceKind, type HostMessage } from './protocol';
import type { HostApi } from './host';
import { formatValue } from './model/format';
import { RankTimelineModel, rankGroupLabel, rankLaneLabel, rankSliceKindName, rankTimeline, rankTimelineBanner } from './model/rankTimeline';
import { TimelineModel } from './model/timelineModel';
import { preciseTime, tickLabels } from './render/timelineLabels';
import { TimelineView } from './view/timelineView';
import { TimelineToolbar } from './ui/timelineToolbar';
import type { Theme } from './ui/theme';
import type { Tooltip, TooltipContent } from './ui/tooltip';
import type { MessageBar } from './ui/message';

type RankTimelineMessage = Extract<HostMessage, { type: 'rankTimeline' }>;

/** Bytes as the tooltip shows them (1024-based: buffer sizes). */
function formatBytes(b: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = b, u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
  return `${u ? v.toFixed(v < 10 ? 2 : 1) : v} ${units[u]}`;
}

export class RankTimelineApp {
  readonly toolbar: TimelineToolbar;
  readonly view: TimelineView;
  private tl: RankTimelineModel | null = null;

  constructor(theme: Theme, tooltip: Tooltip, private host: HostApi, private message: MessageBar) {
    this.toolbar = new TimelineToolbar({ onReset: () => this.view.resetZoom(), onExport: () => undefined });
    this.toolbar.setExport(false);
    this.toolbar.setHint('Wheel: zoom · drag: pan · wheel on lanes / Shift+wheel: scroll · click: the slice\'s source line');
    this.toolbar.root.classList.add('strata-rank-timeline-toolbar');
    this.view = new TimelineView(theme, tooltip, {
      describe: (i) => this.describe(i),
      open: (i) => { if (this.tl && this.sourceOf(i)) this.host.postMessage({ type: 'openRankSlice', slice: i }); },
      windowChanged: () => this.updateWindow(),
    });
    this.view.root.classList.add('strata-rank-timeline');
  }

  /** Shows the ranks' timeline; throws (with a message for the banner) when the data is not one. */
  show(m: RankTimelineMessage): void {
    const tl = rankTimeline(m.data);
    this.tl = tl;
    this.toolbar.setTitle(typeof m.title === 'string' ? m.title : '');
    this.view.setModel(new TimelineModel(tl.input), 'ns');
    const ranks = new Set(tl.data.lanes.map((l) => l.rank)).size;
    const n = tl.data.lane.length;
    this.toolbar.setSummary(`${ranks} rank${ranks === 1 ? '' : 's'} · ${tl.data.lanes.length} lane${tl.data.lanes.length === 1 ? '' : 's'} · ${n} slice${n === 1 ? '' : 's'}`);
    this.toolbar.setOverlap('');
    const banner = rankTimelineBanner(tl.data);
    if (banner) this.message.show(banner, 'info');
    else this.message.clear();
  }

  private sourceOf(i: number): { file: string; line: number } | undefined {
    const d = this.tl!.data;
    const s = d.sources[d.source[i]];
    return s && typeof s.file === 'string' && s.file ? s : undefined;
  }

  private describe(i: number): TooltipContent {
    const t = this.tl!, d = t.data;
    const lane = d.lanes[d.lane[i]];
    const kind = d.kind[i];
    const rows: [string, string][] = [
      ['Rank', rankGroupLabel(lane.rank, t.hostOf.get(lane.rank) ?? '')],
      ['Lane', rankLaneLabel(lane)],
      ['Duration', formatValue(d.end[i] - d.start[i], 'ns')],
      // To a tenth of the slice's duration: a 1 µs kernel 12 s in does not start at "12 s".
      ['Start', preciseTime(d.start[i], Math.max(1, (d.end[i] - d.start[i]) / 10), 'ns', formatValue)],
    ];
    if (d.bytes[i] > 0) rows.push(['Bytes', formatBytes(d.bytes[i])]);
    const src = this.sourceOf(i);
    return {
      name: d.names[d.name[i]] ?? '',
      location: src ? (src.line ? `${src.file}:${src.line}` : src.file) : '',
      module: `${rankGroupLabel(lane.rank, t.hostOf.get(lane.rank) ?? '')} · ${rankLaneLabel(lane)}`,
      kind: rankSliceKindName(kind),
      rows,
      hint: src ? (kind === RankSliceKind.Collective ? 'Click: open the line that issued it' : 'Click: open its source line') : '',
    };
  }

  private updateWindow(): void {
    const m = this.view.model;
    if (!m) return;
    // Times count from the earliest rank's start (the axis's 0), as the tooltips' starts do; a
    // narrow window far from 0 gets the decimals that tell its ends apart ("12 s – 12 s" else).
    const [a, b] = m.zoomed ? [m.v0, m.v1] : [m.t0, m.t1];
    const [from, to] = tickLabels([a, b], (b - a) / 10, 'ns', formatValue);
    this.toolbar.setWindow(m.zoomed, m.zoomed ? `${from} – ${to} (${formatValue(b - a, 'ns')})` : `${from} – ${to}`);
  }

  /** Tests: what is shown (rank groups, rows, slices) and the view's stats. */
  state(): { groups: string[]; rows: string[]; slices: number; collectives: number; stats: TimelineView['stats'] } | null {
    const t = this.tl;
    if (!t) return null;
    const groups = [...new Set(t.input.rows.map((r) => r.group))];
    return {
      groups, rows: t.input.rows.map((r) => `${r.group} / ${r.label}`), slices: t.data.lane.length,
      collectives: t.data.kind.filter((k) => k === RankSliceKind.Collective).length, stats: { ...this.view.stats },
    };
  }

  /** Tests: where the first slice named `name` (of kind `kind`, when given) is drawn, after
   *  scrolling to it. */
  locate(name: string, kind?: number): { index: number; x: number; y: number } | null {
    const m = this.view.model, t = this.tl;
    if (!m || !t) return null;
    for (let i = 0; i < m.n; i++) {
      if (m.labelOf(i) !== name || (kind !== undefined && t.data.kind[i] !== kind)) continue;
      // A call of a few ms in a run of seconds is under a pixel: zoomed to a few times its width.
      const w = Math.max(m.end[i] - m.start[i], m.minSpan);
      this.view.showWindow(m.start[i] - 2 * w, m.end[i] + 2 * w);
      this.view.scrollToInterval(i);
      const p = this.view.positionOf(i);
      if (p) return { index: i, ...p };
    }
    return null;
  }
}
