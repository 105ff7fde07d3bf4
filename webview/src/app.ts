// Wires the parts together: host messages in, toolbar and flame view, messages out.
import { FrameKind, HostMessage, PROTOCOL_VERSION, ViewName } from './protocol';
import type { HostApi } from './host';
import { normalizeFlameData } from './model/normalize';
import { formatPercent, formatValue } from './model/format';
import { FlameView } from './view/flameView';
import { Toolbar } from './ui/toolbar';
import { Tooltip } from './ui/tooltip';
import { MessageBar } from './ui/message';
import { readTheme, watchTheme } from './ui/theme';
import { el } from './ui/dom';
import { TimelineApp } from './timelineApp';

interface SavedState { query?: string }

export class App {
  readonly toolbar: Toolbar;
  readonly view: FlameView;
  readonly message: MessageBar;
  private metric = '';
  /** The editor line whose frames are outlined ('highlightSource'); re-applied to every view. */
  private sourceLine: { file: string; line: number } | null = null;
  private currentView: ViewName = 'top-down';
  /** Timeline mode (protocol v3 'timeline'), made on the first trace; the flame parts hide. */
  timeline: TimelineApp | null = null;
  private appRoot: HTMLElement;
  private tooltip: Tooltip;

  constructor(container: HTMLElement, private host: HostApi) {
    const tooltip = new Tooltip();
    this.tooltip = tooltip;
    this.message = new MessageBar();
    this.toolbar = new Toolbar({
      onView: (view) => this.requestView(view, this.metric),
      onMetric: (metric) => this.requestView(this.currentView, metric),
      onSearch: (q) => this.search(q),
      onReset: () => this.view.resetZoom(),
      onRegionTimeline: () => this.showRegionTimeline(),
    });
    this.view = new FlameView(readTheme(), tooltip, {
      openSource: (node) => this.host.postMessage({ type: 'openSource', node, view: this.currentView }),
      focusChanged: () => this.updateZoomState(),
    });
    this.toolbar.setView(this.currentView);
    this.toolbar.setMetrics([], '');
    this.toolbar.setZoomed(false, '');
    this.appRoot = el('div', { className: 'strata-app' }, this.toolbar.root, this.message.root, this.view.root);
    container.append(this.appRoot, tooltip.root);
    if (this.view.webglError) this.message.show(`${this.view.webglError} The flame graph cannot be drawn here.`);
    watchTheme((t) => { this.view.setTheme(t); this.timeline?.view.setTheme(t); });
    document.addEventListener('keydown', (e) => this.onKey(e));
    const saved = (host.getState() ?? {}) as SavedState;
    if (saved.query) this.toolbar.search.value = saved.query;
  }

  handle(msg: unknown): void {
    if (!msg || typeof msg !== 'object') return;
    const m = msg as HostMessage;
    try {
      switch (m.type) {
        case 'profile': this.setMode('flame'); return this.onProfile(m);
        case 'timeline': return this.onTimeline(m);
        case 'error': return this.message.show(String(m.message ?? 'Unknown error'));
        case 'status': return m.message ? this.message.show(String(m.message), 'info') : this.message.clear();
        case 'highlight': return this.view.setHighlight(Array.from((m.nodes ?? []) as ArrayLike<number>));
        case 'highlightSource':
          this.sourceLine = typeof m.file === 'string' && m.file ? { file: m.file, line: Number(m.line) || 0 } : null;
          return this.applySourceLine();
      }
    } catch (e) {
      this.message.show(`Could not show the profile: ${(e as Error)?.message ?? String(e)}`);
    }
  }

  private onTimeline(m: Extract<HostMessage, { type: 'timeline' }>): void {
    if (!this.timeline) {
      this.timeline = new TimelineApp(readTheme(), this.tooltip, this.host, this.message);
      this.appRoot.append(this.timeline.toolbar.root, this.timeline.view.root);
      if (this.timeline.view.webglError) this.message.show(`${this.timeline.view.webglError} The timeline cannot be drawn here.`);
    }
    this.setMode('timeline');
    if (typeof m.version === 'number' && m.version > PROTOCOL_VERSION) {
      this.message.show(`This trace uses message protocol v${m.version}; this webview understands v${PROTOCOL_VERSION}. Some data may be missing.`, 'info');
    }
    this.timeline.show(m);
  }

  /** One panel shows either a profile (flame graph) or a region trace (timeline). */
  private setMode(mode: 'flame' | 'timeline'): void {
    const tl = mode === 'timeline';
    this.toolbar.root.hidden = tl;
    this.view.root.hidden = tl;
    if (this.timeline) { this.timeline.toolbar.root.hidden = !tl; this.timeline.view.root.hidden = !tl; }
  }

  private onProfile(m: Extract<HostMessage, { type: 'profile' }>): void {
    const data = normalizeFlameData(m.data);
    if (!this.view.webglError) this.message.clear();
    if (typeof m.version === 'number' && m.version > PROTOCOL_VERSION) {
      this.message.show(`This profile uses message protocol v${m.version}; this webview understands v${PROTOCOL_VERSION}. Some data may be missing.`, 'info');
    }
    this.currentView = data.view;
    this.metric = data.metric;
    this.toolbar.setView(data.view);
    this.toolbar.setMetrics(Array.isArray(m.metrics) ? m.metrics.map(String) : [], data.metric);
    this.toolbar.setTitle(typeof m.title === 'string' ? m.title : '');
    this.view.setData(data);
    this.search(this.toolbar.search.value);
    this.applySourceLine();
  }

  /** Outlines the frames at the editor's line (by the file string as recorded and the line),
   *  without zooming: the graph must not move while the user types. */
  private applySourceLine(): void {
    const d = this.view.model?.data;
    if (!d) return;
    const nodes: number[] = [];
    const sl = this.sourceLine;
    if (sl && sl.line > 0) {
      const fileIdx = d.strings.indexOf(sl.file);
      if (fileIdx > 0) {
        const { frames } = d;
        const atLine = new Uint8Array(frames.file.length);
        for (let f = 0; f < atLine.length; f++) atLine[f] = frames.file[f] === fileIdx && frames.line[f] === sl.line ? 1 : 0;
        for (let i = 1; i < d.parent.length; i++) if (atLine[d.frame[i]]) nodes.push(i);
      }
    }
    this.view.setHighlight(nodes, false);
  }

  private requestView(view: ViewName, metric: string): void {
    this.host.postMessage({ type: 'requestView', view, metric });
  }

  private search(q: string): void {
    const r = this.view.search(q);
    const d = this.view.model?.data;
    if (!r || !d) this.toolbar.setMatch('');
    else if (r.count === 0) this.toolbar.setMatch('no matches');
    else this.toolbar.setMatch(`${r.count} match${r.count === 1 ? '' : 'es'} · ${formatPercent(r.value, this.view.model!.total)} (${formatValue(r.value, d.unit)})`);
    this.host.setState({ query: q } satisfies SavedState);
  }

  private updateZoomState(): void {
    const m = this.view.model;
    if (!m) return;
    const path = m.ancestors.slice(1).map((i) => m.label(i)).join(' › ');
    this.toolbar.setZoomed(m.focus > 0, path);
    this.toolbar.setRegionTimeline(this.regionKernel(m.focus));
  }

  /** The name of kernel node `i` when a region frame is among its children, else "". */
  regionKernel(i: number): string {
    const m = this.view.model;
    if (!m || i <= 0 || i >= m.n || m.kind(i) !== FrameKind.Kernel) return '';
    for (let c = m.firstChild[i]; c >= 0; c = m.nextSibling[c]) if (m.kind(c) === FrameKind.Region) return m.label(i);
    return '';
  }

  private showRegionTimeline(): void {
    const m = this.view.model;
    const kernel = m ? this.regionKernel(m.focus) : '';
    if (m && kernel) this.host.postMessage({ type: 'showRegionTimeline', node: m.focus, view: this.currentView, kernel });
  }

  private onKey(e: KeyboardEvent): void {
    const t = e.target as HTMLElement | null;
    const typing = !!t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA');
    if (this.timeline && !this.timeline.view.root.hidden) { if (!typing) this.timeline.view.handleKey(e); return; }
    if ((e.key === 'f' && (e.ctrlKey || e.metaKey)) || (e.key === '/' && !typing)) {
      e.preventDefault();
      this.toolbar.search.focus();
      this.toolbar.search.select();
      return;
    }
    if (typing) return;
    if (e.key === 'Escape') {
      if (this.view.model && this.view.model.focus > 0) this.view.resetZoom();
      else if (this.toolbar.search.value) { this.toolbar.search.value = ''; this.search(''); }
    } else if (e.key === 'Backspace' || e.key === 'u') {
      this.view.zoomOut();
    } else if (e.key === 'Enter') {
      const n = this.view.current;
      if (this.view.hasSource(n)) this.host.postMessage({ type: 'openSource', node: n, view: this.currentView });
    }
  }
}
