// Timeline mode of the webview (protocol v3 'timeline'): a decoded in-kernel region trace shown
// with the generic timeline view; the region-specific parts live here: what the tooltip says
// (region, replayed and raw duration, iteration, async wait, lane), a click asking the host to
// open the marker's source line, the decoder's issues as a banner, and the Chrome export.
import type { HostMessage, RegionGroupShare, RegionInterval, RegionTraceData } from './protocol';
import type { HostApi } from './host';
import { formatValue } from './model/format';
import { groupHeadline, groupShares } from './model/groupShares';
import { RegionTimeline, groupingPrefix, intervalName, laneLabel, regionTimeline } from './model/regionTimeline';
import { TimelineModel } from './model/timelineModel';
import { TimelineView } from './view/timelineView';
import { TimelineToolbar } from './ui/timelineToolbar';
import type { Theme } from './ui/theme';
import type { Tooltip, TooltipContent } from './ui/tooltip';
import type { MessageBar } from './ui/message';

type TimelineMessage = Extract<HostMessage, { type: 'timeline' }>;

export class TimelineApp {
  readonly toolbar: TimelineToolbar;
  readonly view: TimelineView;
  private trace: RegionTimeline | null = null;
  private shares = new Map<number, RegionGroupShare>();
  private sources: Record<string, string> = {};

  constructor(theme: Theme, tooltip: Tooltip, private host: HostApi, private message: MessageBar) {
    this.toolbar = new TimelineToolbar({
      onReset: () => this.view.resetZoom(),
      onExport: () => this.host.postMessage({ type: 'exportChromeTrace' }),
      onPath: (shown) => { this.view.showPath = shown; this.view.showBubbles = shown; this.view.schedule(); },
    });
    this.view = new TimelineView(theme, tooltip, {
      describe: (i) => this.describe(i),
      open: (i) => {
        const iv = this.trace?.intervals[i];
        if (iv) this.host.postMessage({ type: 'openRegionSource', region: iv.region, lane: iv.lane });
      },
      windowChanged: () => this.updateWindow(),
    });
  }

  /** Shows a trace; throws (with a message for the banner) when the data is not a trace. */
  show(m: TimelineMessage): void {
    const trace = regionTimeline(m.data);
    this.trace = trace;
    this.sources = m.sources && typeof m.sources === 'object' ? m.sources : {};
    this.toolbar.setTitle(typeof m.title === 'string' ? m.title : '');
    this.toolbar.setExport(m.canExport === true);
    const model = new TimelineModel(trace.input);
    this.view.setModel(model, 'ns');
    const issues = Array.isArray(m.data.issues) ? m.data.issues : [];
    // What each lane group (e.g. a warp-specialized kernel's producer and consumer) spends its time on.
    const shares = groupShares(m.data.groups);
    this.shares = new Map(shares.map((g) => [g.group, g]));
    const headline = groupHeadline(shares, groupingPrefix(trace.lanes[0]?.grouping));
    this.toolbar.setSummary(`${trace.lanes.length} lane${trace.lanes.length === 1 ? '' : 's'} · ${trace.intervals.length} intervals` +
      (issues.length ? ` · ${issues.length} issue${issues.length === 1 ? '' : 's'}` : '') + (headline ? ` · ${headline}` : ''));
    this.toolbar.setOverlap(overlapHeadline(m.data));
    if (issues.length) {
      const shown = issues.slice(0, 4).map((x) => `${x.kind}: ${x.message}`);
      if (issues.length > 4) shown.push(`… and ${issues.length - 4} more`);
      this.message.show(`The decoder reported:\n${shown.join('\n')}`, 'info');
    } else {
      this.message.clear();
    }
  }

  private describe(i: number): TooltipContent {
    const t = this.trace!;
    const iv: RegionInterval = t.intervals[i];
    const lane = t.lanes[iv.lane];
    const rows: [string, string][] = [['Duration', `${formatValue(iv.end_ns - iv.start_ns, 'ns')} (replayed)`]];
    if (typeof iv.raw_start_ns === 'number' && typeof iv.raw_end_ns === 'number') {
      rows.push(['Raw', formatValue(iv.raw_end_ns - iv.raw_start_ns, 'ns')]);
    }
    if (typeof iv.iteration === 'number' && iv.iteration >= 0) rows.push(['Iteration', String(iv.iteration)]);
    if (typeof iv.wait_ns === 'number' && iv.wait_ns >= 0) rows.push(['Async wait', formatValue(iv.wait_ns, 'ns')]);
    rows.push(['Start', formatValue(iv.start_ns, 'ns')]);
    rows.push(['Region', `${iv.region}, depth ${iv.depth}`]);
    const share = lane ? this.shares.get(lane.group)?.regions.find((r) => r.region === iv.region) : undefined;
    if (lane && share) rows.push([`In ${groupingPrefix(lane.grouping)} ${lane.group}`, `${(share.share * 100).toFixed(1)}% of its lanes' time`]);
    const source = this.sources[String(iv.region)] ?? '';
    return {
      name: intervalName(iv),
      location: source,
      module: lane ? laneLabel(lane) : '',
      kind: iv.unmatched ? 'region without its end (closed at the lane end)'
        : typeof iv.iteration === 'number' && iv.iteration >= 0 ? 'loop iteration'
          : typeof iv.wait_ns === 'number' && iv.wait_ns >= 0 ? 'async region' : 'region',
      rows,
      hint: source ? 'Click: open the marker' : 'Click: find the marker in the workspace',
    };
  }

  private updateWindow(): void {
    const m = this.view.model;
    if (!m) return;
    this.toolbar.setWindow(m.zoomed, m.zoomed
      ? `${formatValue(m.v0 - m.t0, 'ns')} – ${formatValue(m.v1 - m.t0, 'ns')} of ${formatValue(m.t1 - m.t0, 'ns')}`
      : `${formatValue(m.t1 - m.t0, 'ns')}`);
  }

  /** Tests: where the first interval named `name` (as labelled) is drawn, after scrolling to it. */
  locate(name: string): { index: number; x: number; y: number } | null {
    const m = this.view.model;
    if (!m) return null;
    for (let i = 0; i < m.n; i++) {
      if (m.labelOf(i) !== name) continue;
      this.view.scrollToInterval(i);
      const p = this.view.positionOf(i);
      if (p) return { index: i, ...p };
    }
    return null;
  }
}

/** The overlap analysis in one line: the critical path's largest regions and the model's
 *  verdict ("critical path: mma 89%, wait full 4% · warp-specialization, 2 stages: consumer-bound"). */
export function overlapHeadline(d: RegionTraceData): string {
  const o = d.overlap;
  if (!o || typeof o !== 'object' || !Array.isArray(o.path) || !o.path.length) return '';
  const top = (Array.isArray(o.path_regions) ? o.path_regions : []).filter((r) => r.region >= 0).slice(0, 2)
    .map((r) => `${r.name} ${(100 * r.share).toFixed(0)}%`);
  let text = `critical path: ${top.join(', ') || 'no region'}`;
  const m = o.model;
  if (m && m.kind && m.kind !== 'none') text += ` · ${m.kind}, ${m.stages} stage${m.stages === 1 ? '' : 's'}: ${m.bottleneck}-bound`;
  return text;
}
