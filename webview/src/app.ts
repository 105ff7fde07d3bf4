// Wires the parts together: host messages in, toolbar, legend, flame view (or the sandwich of
// one function), details pane, progress, messages out; keeps what the user set (view, metric,
// Python view, by function, my code, zoom, search) in the webview state so that a hidden or
// reopened tab comes back as it was. A large view arrives in part: the parts zooming needs are
// asked for and put in place. Messages to the host name nodes by the host's ids.
import { FrameKind, FrameOrigin, HostMessage, MetricDescriptor, NodeLine, NodeMetricValues, PROTOCOL_VERSION, ViewName } from './protocol';
import type { FlameData, FrameFilterName, RankSpreadData, SandwichData } from './protocol';
import type { HostApi } from './host';
import { normalizeFlameData } from './model/normalize';
import type { PathStep } from './model/flameModel';
import { formatPercent, formatValue, kindName } from './model/format';
import { displayName } from './model/frameNames';
import { LoadedView } from './model/viewParts';
import { FlameView } from './view/flameView';
import { PartRequests } from './partRequests';
import { ModeName, Toolbar } from './ui/toolbar';
import { Tooltip } from './ui/tooltip';
import { MessageBar } from './ui/message';
import { ProgressLine } from './ui/progressLine';
import { DetailsPane } from './ui/detailsPane';
import { RanksPanel } from './ui/ranksPanel';
import { spreadRows } from './model/rankSpread';
import { fusedLinesOf } from './model/fusedLines';
import { Legend } from './ui/legend';
import { readTheme, watchTheme } from './ui/theme';
import { el } from './ui/dom';
import { COLOR_CLASS_NAMES, colorClassOf } from './render/colors';
import { TimelineApp } from './timelineApp';
import { RankTimelineApp } from './rankTimelineApp';
import { DiffApp } from './diffApp';

/** What the webview keeps across reloads (vscode.getState / setState). */
export interface SavedState {
  query?: string;
  view?: ViewName;
  mode?: ModeName;
  metric?: string;
  frames?: FrameFilterName;
  byFunction?: boolean;
  myCode?: boolean;
  details?: boolean;
  /** The focused frame as its path of labels from the root, and the visible part. */
  focusPath?: PathStep[];
  v0?: number;
  v1?: number;
  /** The sandwich's function: one of its frames (name and file; the line is not needed). */
  sandwichFrame?: PathStep;
}

/** Hover details are fetched after the pointer rests this long (ms). */
const HOVER_DETAILS_MS = 120;
/** Node details kept per view (a cache for tooltips). */
const DETAILS_CACHE = 512;

export class App {
  readonly toolbar: Toolbar;
  readonly view: FlameView;
  readonly message: MessageBar;
  readonly details: DetailsPane;
  readonly legend: Legend;
  readonly progress = new ProgressLine();
  /** A distributed job's ranks (protocol v10 'ranks'); hidden for any other profile. */
  readonly ranks: RanksPanel;
  /** The sandwich: callers above, callees below (made on first use). */
  sandwich: { root: HTMLElement; title: HTMLElement; callers: FlameView; callees: FlameView } | null = null;
  private metric = '';
  private metricInfo: MetricDescriptor[] = [];
  /** The editor line whose frames are outlined ('highlightSource'); re-applied to every view. */
  private sourceLine: { file: string; line: number } | null = null;
  private currentView: ViewName = 'top-down';
  private mode: ModeName = 'top-down';
  private frames: FrameFilterName = 'all';
  private byFunction = false;
  private myCode = false;
  private hasPython = false;
  /** The parts of the view on screen: asked for, and put in place as they come. */
  private parts: PartRequests;
  /** The sandwich's function: the frame it was asked for (kept in the state). */
  private sandwichStep: PathStep | null = null;
  private saved: SavedState;
  /** Restore the saved zoom once, on the first profile that matches the saved view. */
  private restorePending = true;
  /** Node details by the host's node id. */
  private nodeDetails = new Map<number, { metrics: NodeMetricValues[]; lines: NodeLine[]; spread?: RankSpreadData }>();
  private hoverTimer = 0;
  private hoverNode = -1;
  /** The user closed the details pane: zooming does not open it again (i does). */
  private detailsClosed = false;
  /** Timeline mode (protocol v3 'timeline'), made on the first trace; the flame parts hide. */
  timeline: TimelineApp | null = null;
  /** Rank timeline mode (protocol v11 'rankTimeline'), made on the first one; the flame parts hide. */
  rankTimeline: RankTimelineApp | null = null;
  /** Diff mode (protocol v8 'diff'), made on the first diff; the profile's parts hide. */
  diff: DiffApp | null = null;
  private appRoot: HTMLElement;
  private main: HTMLElement;
  private tooltip: Tooltip;

  constructor(container: HTMLElement, private host: HostApi) {
    const tooltip = new Tooltip();
    this.tooltip = tooltip;
    this.message = new MessageBar();
    this.toolbar = new Toolbar({
      onView: (mode) => this.setModeRequest(mode),
      onMetric: (metric) => this.requestView(this.currentView, metric),
      onSearch: (q) => this.search(q),
      onReset: () => this.view.resetZoom(),
      onRegionTimeline: () => this.showRegionTimeline(),
      onPythonView: (on) => this.requestView(this.currentView, this.metric, { frames: on ? 'python' : 'all' }),
      onByFunction: (on) => this.requestView(this.currentView, this.metric, { byFunction: on }),
      onMyCode: (on) => this.setMyCode(on),
      onBack: () => this.view.back(),
      onForward: () => this.view.forward(),
      onCrumb: (node) => this.view.zoom(node),
    });
    this.view = new FlameView(readTheme(), tooltip, {
      openSource: (node) => this.openSource(node),
      focusChanged: () => this.updateZoomState(),
      viewportChanged: () => this.onViewport(),
      hovered: (node) => this.onHover(node),
      tooltipRows: (node) => this.tooltipRows(node),
      needNodes: (needs) => this.parts.need(needs),
      fillNodes: (needs) => this.parts.fill(needs),
    });
    this.parts = new PartRequests(this.view, (m) => host.postMessage(m), {
      placed: () => { if (this.toolbar.search.value) this.search(this.toolbar.search.value); },
    });
    this.details = new DetailsPane({
      zoomTo: (node) => this.view.zoom(node),
      openSource: (node) => { if (this.view.hasSource(node)) this.openSource(node); },
      openFusedLine: (node, index) => this.openSource(node, index),
      sandwich: (node) => this.openSandwich(node),
      close: () => { this.details.hide(); this.detailsClosed = true; this.saveState(); },
    });
    this.legend = new Legend();
    this.ranks = new RanksPanel((rank) => host.postMessage({ type: 'selectRank', rank }),
      () => host.postMessage({ type: 'showRankTimeline' }));
    this.toolbar.setView(this.currentView);
    this.toolbar.setMetrics([], '');
    this.toolbar.setZoomed(false, []);
    this.toolbar.setToggles(null, false, false);
    this.toolbar.setHistory(false, false);
    this.main = el('div', { className: 'strata-main' }, this.view.root);
    this.appRoot = el('div', { className: 'strata-app' }, this.toolbar.root, this.legend.root, this.message.root, this.progress.root, this.ranks.root, this.main, this.details.root);
    container.append(this.appRoot, tooltip.root);
    if (this.view.webglError) this.message.show(`${this.view.webglError} The flame graph cannot be drawn here.`);
    watchTheme((t) => {
      this.view.setTheme(t);
      this.sandwich?.callers.setTheme(t);
      this.sandwich?.callees.setTheme(t);
      this.timeline?.view.setTheme(t);
      this.rankTimeline?.view.setTheme(t);
      this.diff?.view.setTheme(t);
      this.updateLegend();
    });
    document.addEventListener('keydown', (e) => this.onKey(e));
    this.saved = (host.getState() ?? {}) as SavedState;
    if (this.saved.query) this.toolbar.search.value = this.saved.query;
    this.myCode = !!this.saved.myCode;
  }

  handle(msg: unknown): void {
    if (!msg || typeof msg !== 'object') return;
    const m = msg as HostMessage;
    try {
      switch (m.type) {
        case 'profile': this.setMode('flame'); return this.onProfile(m);
        case 'timeline': return this.onTimeline(m);
        case 'rankTimeline': return this.onRankTimeline(m);
        case 'diff': return this.onDiff(m);
        case 'details': return this.onDetails(m);
        case 'ranks': return m.data && Array.isArray(m.data.ranks) ? this.ranks.show(m.data) : this.ranks.hide();
        case 'nodes': return this.diff && !this.diff.root.hidden ? this.diff.onNodes(m) : this.parts.arrive(m);
        case 'sandwich': return this.onSandwich(m);
        case 'progress': return this.progress.update(m.progress);
        case 'error': return this.message.show(String(m.message ?? 'Unknown error'));
        case 'status': return m.message ? this.message.show(String(m.message), 'info') : this.message.clear();
        case 'highlight': {
          const model = this.view.model;
          const ids = Array.from((m.nodes ?? []) as ArrayLike<number>);
          return this.view.setHighlight(model ? ids.map((id) => model.indexOf(Number(id))).filter((i) => i >= 0) : []);
        }
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

  private onRankTimeline(m: Extract<HostMessage, { type: 'rankTimeline' }>): void {
    if (!this.rankTimeline) {
      this.rankTimeline = new RankTimelineApp(readTheme(), this.tooltip, this.host, this.message);
      this.appRoot.append(this.rankTimeline.toolbar.root, this.rankTimeline.view.root);
      if (this.rankTimeline.view.webglError) this.message.show(`${this.rankTimeline.view.webglError} The timeline cannot be drawn here.`);
    }
    this.setMode('rankTimeline');
    if (typeof m.version === 'number' && m.version > PROTOCOL_VERSION) {
      this.message.show(`This timeline uses message protocol v${m.version}; this webview understands v${PROTOCOL_VERSION}. Some data may be missing.`, 'info');
    }
    this.rankTimeline.show(m);
  }

  private onDiff(m: Extract<HostMessage, { type: 'diff' }>): void {
    if (!this.diff) {
      this.diff = new DiffApp(readTheme(), this.tooltip, this.host);
      this.appRoot.append(this.diff.root);
      if (this.diff.view.webglError) this.message.show(`${this.diff.view.webglError} The flame graph cannot be drawn here.`);
    }
    this.setMode('diff');
    if (typeof m.version === 'number' && m.version > PROTOCOL_VERSION) {
      this.message.show(`This diff uses message protocol v${m.version}; this webview understands v${PROTOCOL_VERSION}. Some data may be missing.`, 'info');
    }
    this.diff.show(m);
  }

  /** One panel shows a profile (flame graph), a region trace (timeline), two runs compared (diff)
   *  or a distributed job's ranks on one timeline (rankTimeline). */
  private setMode(mode: 'flame' | 'timeline' | 'diff' | 'rankTimeline'): void {
    const flame = mode === 'flame', tl = mode === 'timeline', rtl = mode === 'rankTimeline';
    this.toolbar.root.hidden = !flame;
    this.legend.root.hidden = !flame;
    this.main.hidden = !flame;
    if (!flame) this.details.root.hidden = true;
    if (!flame) this.ranks.hide();
    if (this.timeline) { this.timeline.toolbar.root.hidden = !tl; this.timeline.view.root.hidden = !tl; }
    if (this.diff) this.diff.root.hidden = mode !== 'diff';
    if (this.rankTimeline) { this.rankTimeline.toolbar.root.hidden = !rtl; this.rankTimeline.view.root.hidden = !rtl; }
  }

  private onProfile(m: Extract<HostMessage, { type: 'profile' }>): void {
    const data = normalizeFlameData(m.data);
    const loaded = new LoadedView(data);
    this.parts.reset(loaded);
    if (!this.view.webglError) this.message.clear();
    if (typeof m.version === 'number' && m.version > PROTOCOL_VERSION) {
      this.message.show(`This profile uses message protocol v${m.version}; this webview understands v${PROTOCOL_VERSION}. Some data may be missing.`, 'info');
    }
    this.currentView = data.view;
    this.metric = data.metric;
    this.frames = data.frameFilter ?? 'all';
    this.byFunction = !!data.byFunction;
    this.metricInfo = Array.isArray(m.metricInfo) ? m.metricInfo.filter((x) => x && typeof x.name === 'string') : [];
    this.nodeDetails.clear();
    this.hasPython = this.frames === 'python' || Array.prototype.some.call(data.frames.kind, (k: number) => k === FrameKind.Python);
    this.toolbar.setMetrics(Array.isArray(m.metrics) ? m.metrics.map(String) : [], data.metric);
    this.toolbar.setTitle(typeof m.title === 'string' ? m.title : '');
    this.view.setData(data, loaded.limit);
    this.updateMyCode();
    this.updateLegend();
    this.search(this.toolbar.search.value);
    this.applySourceLine();
    if (this.restorePending) this.restore(data);
    // In the sandwich: the sandwich again, of this view (once the view restore() asked for is in).
    if (this.mode === 'sandwich') { if (!this.restorePending) this.openSandwichAt(this.sandwichStep ?? this.saved.sandwichFrame ?? null); }
    else this.showMode(data.view);
    this.refreshDetails();
    this.saveState();
  }

  /** The first profile after a (re)load: asks for the saved view if the host shows another, else
   *  goes back to the saved zoom. */
  private restore(data: FlameData): void {
    const s = this.saved;
    const wantView = s.view ?? data.view;
    const wantMetric = s.metric && (this.metricInfo.length === 0 || this.metricInfo.some((x) => x.name === s.metric)) ? s.metric : data.metric;
    const wantFrames = s.frames ?? data.frameFilter ?? 'all';
    const wantByFunction = s.byFunction ?? !!data.byFunction;
    if (wantView !== data.view || wantMetric !== data.metric || wantFrames !== (data.frameFilter ?? 'all') || wantByFunction !== !!data.byFunction) {
      this.restorePending = true;  // once more, when that view arrives
      if (s.mode === 'sandwich') this.mode = 'sandwich';
      this.requestView(wantView, wantMetric, { frames: wantFrames, byFunction: wantByFunction }, true);
      return;
    }
    this.restorePending = false;
    if (s.mode === 'sandwich') this.mode = 'sandwich';
    const m = this.view.model;
    if (m && s.focusPath && s.focusPath.length > 1) {
      const node = m.findSteps(s.focusPath);
      this.view.goTo({ focus: node, v0: s.v0 ?? 0, v1: s.v1 ?? 1 });
      this.view.history.push(this.view.place);
    } else if (m && (s.v0 !== undefined || s.v1 !== undefined)) {
      this.view.goTo({ focus: 0, v0: s.v0 ?? 0, v1: s.v1 ?? 1 });
      this.view.history.push(this.view.place);
    }
    if (s.details && m) this.showDetails(m.focus);
  }

  private saveState(): void {
    const m = this.view.model;
    const st: SavedState = {
      query: this.toolbar.search.value,
      view: this.currentView,
      mode: this.mode,
      metric: this.metric,
      frames: this.frames,
      byFunction: this.byFunction,
      myCode: this.myCode,
      details: !this.details.root.hidden,
      focusPath: m && m.focus > 0 ? m.stepsTo(m.focus) : undefined,
      v0: m ? m.v0 : 0,
      v1: m ? m.v1 : 1,
      sandwichFrame: this.sandwichFrame(),
    };
    if (this.restorePending) {
      // A requested view is on its way: keep the saved zoom for it.
      st.focusPath = this.saved.focusPath; st.v0 = this.saved.v0; st.v1 = this.saved.v1;
      st.view = this.saved.view ?? st.view; st.metric = this.saved.metric ?? st.metric;
      st.frames = this.saved.frames ?? st.frames; st.byFunction = this.saved.byFunction ?? st.byFunction;
    }
    this.saved = st;
    this.host.setState(st);
  }

  private sandwichFrame(): PathStep | undefined {
    return this.mode === 'sandwich' && this.sandwichStep ? this.sandwichStep : undefined;
  }

  /** Parts of the view on screen asked for and put in place (tests, bench). */
  get partStats(): PartRequests['stats'] { return this.parts.stats; }

  /** Opens the node's source, or line `fusedLine` of a fused kernel's lines. */
  private openSource(node: number, fusedLine?: number): void {
    const m = this.view.model;
    if (!m || node < 0 || node >= m.n) return;
    this.host.postMessage(fusedLine === undefined
      ? { type: 'openSource', node: m.hostId(node), view: this.currentView }
      : { type: 'openSource', node: m.hostId(node), view: this.currentView, fusedLine });
  }

  /** Outlines the frames at the editor's line (by the file string as recorded and the line; a
   *  fused kernel's frame at each line it fuses), without zooming: the graph must not move while the user types. */
  private applySourceLine(): void {
    const d = this.view.model?.data;
    if (!d) return;
    const sl = this.sourceLine;
    let atLine: Uint8Array | null = null;
    if (sl && sl.line > 0) {
      const fileIdx = d.strings.indexOf(sl.file);
      if (fileIdx > 0) {
        const { frames } = d;
        atLine = new Uint8Array(frames.file.length);
        let any = false;
        for (let f = 0; f < atLine.length; f++) if (frames.file[f] === fileIdx && frames.line[f] === sl.line) atLine[f] = 1, any = true;
        // A fused kernel's frame is at every line it fuses.
        const off = frames.fusedOffset;
        if (off && frames.fusedFile && frames.fusedLine) {
          for (let f = 0; f < atLine.length; f++) {
            for (let k = off[f]; k < off[f + 1] && !atLine[f]; k++) {
              if (frames.fusedFile[k] === fileIdx && frames.fusedLine[k] === sl.line) atLine[f] = 1, any = true;
            }
          }
        }
        // The root is never at a line.
        if (atLine.length) atLine[d.frame[0]] = 0;
        if (!any) atLine = null;
      }
    }
    this.view.setHighlightFrames(atLine);
  }

  private requestView(view: ViewName, metric: string, opts: { frames?: FrameFilterName; byFunction?: boolean } = {}, restoring = false): void {
    if (!restoring) this.restorePending = false;
    this.host.postMessage({
      type: 'requestView', view, metric,
      frames: opts.frames ?? this.frames,
      byFunction: opts.byFunction ?? this.byFunction,
      width: Math.round(this.view.width),
    });
  }

  /** The graph's width (CSS px), what the host sends a view's first part for. */
  get graphWidth(): number { return Math.round(this.view.width); }

  private setModeRequest(mode: ModeName): void {
    if (mode === 'sandwich') { this.openSandwich(this.view.model ? this.view.model.focus : 0); return; }
    this.mode = mode;
    if (mode !== this.currentView) this.requestView(mode, this.metric);
    else this.showMode(mode);
    this.saveState();
  }

  private search(q: string): void {
    const r = this.view.search(q);
    const d = this.view.model?.data;
    if (!r || !d) this.toolbar.setMatch('');
    else if (r.count === 0) this.toolbar.setMatch('no matches');
    else this.toolbar.setMatch(`${r.count} match${r.count === 1 ? '' : 'es'} · ${formatPercent(r.value, this.view.model!.total)} (${formatValue(r.value, d.unit)})`);
    this.saveState();
  }

  // ---- my code, legend -------------------------------------------------------------------

  private setMyCode(on: boolean): void {
    this.myCode = on;
    this.updateMyCode();
    this.saveState();
  }

  private updateMyCode(): void {
    const m = this.view.model;
    let keep: Uint8Array | null = null;
    if (m && this.myCode) {
      // Per frame of the table: nodes parts add later are dimmed alike.
      const origin = m.data.frames.origin;
      keep = new Uint8Array(m.data.frames.kind.length);
      for (let f = 0; f < keep.length; f++) keep[f] = origin && origin[f] === FrameOrigin.User ? 1 : 0;
    }
    this.view.setDimmed(keep);
    this.toolbar.setToggles(this.hasPython ? this.frames === 'python' : null,
      this.currentView === 'top-down' && this.mode !== 'sandwich' ? this.byFunction : null, this.myCode);
  }

  private updateLegend(): void {
    const d = this.view.model?.data;
    const present = new Array<boolean>(COLOR_CLASS_NAMES.length).fill(false);
    // Without origins (a host before protocol v6) frames are coloured by kind: no legend.
    if (d && d.frames.origin) for (let f = 0; f < d.frames.kind.length; f++) present[colorClassOf(d.frames, f)] = true;
    this.legend.set(present, readTheme());
  }

  // ---- zoom, history, details ------------------------------------------------------------

  private onViewport(): void {
    this.toolbar.setHistory(this.view.history.canBack, this.view.history.canForward);
    this.saveState();
  }

  private updateZoomState(): void {
    const m = this.view.model;
    if (!m) return;
    const path = m.ancestors.slice(1).map((i) => ({ node: i, label: m.label(i) }));
    this.toolbar.setZoomed(m.focus > 0 || m.zoomedIn, path);
    this.toolbar.setRegionTimeline(this.regionKernel(m.focus));
    this.toolbar.setHistory(this.view.history.canBack, this.view.history.canForward);
    if (m.focus > 0 && !this.detailsClosed) this.showDetails(m.focus);
    else if (!this.details.root.hidden) this.showDetails(m.focus > 0 ? m.focus : Math.max(0, this.details.node));
    this.saveState();
  }

  /** Shows the details of `node` (its metrics come from the host). */
  showDetails(node: number): void {
    const m = this.view.model;
    if (!m || node < 0 || node >= m.n) return;
    const d = m.data;
    const f = d.frame[node];
    const file = d.strings[d.frames.file[f]] ?? '';
    const line = d.frames.line[f];
    const cls = colorClassOf(d.frames, f);
    this.details.show({
      node,
      name: m.fullName(node),
      kind: kindName(d.frames.kind[f]),
      origin: COLOR_CLASS_NAMES[cls],
      location: file ? (line ? `${file}:${line}${this.byFunction && d.view === 'top-down' ? ' (heaviest line; lines merged)' : ''}` : file) : '',
      module: d.strings[d.frames.module[f]] ?? '',
      truncated: m.truncated(node),
      path: m.pathTo(node).slice(1).map((i) => ({ node: i, label: m.label(i) })),
      metric: {
        name: d.metric, unit: d.unit,
        total: formatValue(d.inclusive[node], d.unit), self: formatValue(d.exclusive[node], d.unit), value: d.inclusive[node],
      },
      canOpen: node > 0 && this.view.hasSource(node),
      canSandwich: node > 0,
      fused: fusedLinesOf(d.frames, d.strings, f),
    }, this.nodeDetails.get(m.hostId(node))?.metrics ?? null, this.nodeDetails.get(m.hostId(node))?.lines ?? [],
    this.nodeDetails.get(m.hostId(node))?.spread);
    if (!this.nodeDetails.has(m.hostId(node))) this.host.postMessage({ type: 'requestDetails', node: m.hostId(node), view: this.currentView });
    this.saveState();
  }

  private refreshDetails(): void {
    const m = this.view.model;
    if (!this.details.root.hidden && m) this.showDetails(m.focus);
  }

  private toggleDetails(): void {
    if (this.details.root.hidden) { this.detailsClosed = false; this.showDetails(this.view.current >= 0 ? this.view.current : 0); }
    else { this.details.hide(); this.detailsClosed = true; this.saveState(); }
  }

  private onDetails(m: Extract<HostMessage, { type: 'details' }>): void {
    const model = this.view.model;
    if (m.view !== this.currentView || !Array.isArray(m.metrics) || !model) return;
    if (this.nodeDetails.size >= DETAILS_CACHE) this.nodeDetails.clear();
    const id = Number(m.node);
    this.nodeDetails.set(id, { metrics: m.metrics, lines: Array.isArray(m.lines) ? m.lines.slice(0, 50) : [],
      spread: m.spread && Array.isArray(m.spread.values) ? m.spread : undefined });
    const node = model.indexOf(id);
    if (node < 0) return;
    if (this.details.node === node && !this.details.root.hidden) this.showDetails(node);
    if (this.hoverNode === node) this.view.refreshHover();
  }

  private onHover(node: number): void {
    if (node === this.hoverNode) return;
    this.hoverNode = node;
    clearTimeout(this.hoverTimer);
    const m = this.view.model;
    if (node <= 0 || !m || this.nodeDetails.has(m.hostId(node))) return;
    const id = m.hostId(node);
    this.hoverTimer = window.setTimeout(() => {
      if (this.hoverNode === node) this.host.postMessage({ type: 'requestDetails', node: id, view: this.currentView });
    }, HOVER_DETAILS_MS);
  }

  /** Tooltip rows from the node's details: launches and every attribute as mean (min–max). */
  private tooltipRows(node: number): [string, string][] {
    const m = this.view.model;
    const d = m ? this.nodeDetails.get(m.hostId(node)) : undefined;
    const ms = d?.metrics;
    if (!ms) return [];
    // A distributed job: the drawn metric's spread over the ranks first.
    const rows: [string, string][] = spreadRows(d.spread, m!.data.unit);
    const gpu = ms.find((x) => x.name === 'gpu_time');
    if (gpu && gpu.count > 0) rows.push(['Launches', formatValue(gpu.count, 'count')]);
    for (const v of ms) {
      if (v.nature !== 'attribute' || !(v.count > 0)) continue;
      const f = (x: number) => formatValue(x, v.unit);
      rows.push([v.name, v.min === v.max ? f(v.mean) : `${f(v.mean)} (${f(v.min)}–${f(v.max)})`]);
      if (rows.length >= 8) break;  // tooltips stay small; the details pane has everything
    }
    return rows;
  }

  // ---- sandwich ---------------------------------------------------------------------------

  /** Asks the host for the sandwich of the function of `node` (else of the focused frame's
   *  heaviest child); it is shown when it comes. */
  private openSandwich(node: number): void {
    const m = this.view.model;
    if (!m) return;
    const at = node > 0 ? node : m.focus > 0 ? m.focus : this.heaviestChild(m.focus);
    if (at <= 0) return;
    this.mode = 'sandwich';
    this.sandwichStep = m.step(at);
    this.host.postMessage({ type: 'requestSandwich', view: this.currentView, node: m.hostId(at) });
    this.saveState();
  }

  private heaviestChild(i: number): number {
    const m = this.view.model!;
    let best = -1;
    for (let c = m.firstChild[i]; c >= 0; c = m.nextSibling[c]) if (best < 0 || m.data.inclusive[c] > m.data.inclusive[best]) best = c;
    return best;
  }

  /** The sandwich of the function of `frame` (its heaviest node of that name and file in the
   *  view on screen), else of the focused frame. */
  private openSandwichAt(frame: PathStep | null): void {
    const m = this.view.model;
    if (!m) return;
    let node = -1;
    if (frame && typeof frame.name === 'string') {
      for (let i = 1; i < m.n; i++) {
        const st = m.step(i);
        if (st.name === frame.name && st.file === frame.file && (node < 0 || m.data.inclusive[i] > m.data.inclusive[node])) node = i;
      }
    }
    this.openSandwich(node);
  }

  private onSandwich(msg: Extract<HostMessage, { type: 'sandwich' }>): void {
    if (this.mode !== 'sandwich') return;  // the user left it meanwhile
    const sw = msg.data;
    const d = this.view.model?.data;
    if (!sw || !d) {
      this.message.show('That function is not in this view any more (it was rebuilt): pick it again.', 'info');
      this.showMode(this.currentView);
      return;
    }
    this.renderSandwich(sw, d);
  }

  private renderSandwich(sw: SandwichData, d: FlameData): void {
    const callersData = normalizeFlameData(sw.callers), calleesData = normalizeFlameData(sw.callees);
    if (!this.sandwich) {
      const callers = new FlameView(readTheme(), this.tooltip, { openSource: () => undefined, focusChanged: () => undefined });
      const callees = new FlameView(readTheme(), this.tooltip, { openSource: () => undefined, focusChanged: () => undefined });
      callers.root.classList.add('strata-sandwich-callers');
      callees.root.classList.add('strata-sandwich-callees');
      const title = el('div', { className: 'strata-sandwich-title' });
      const root = el('div', { className: 'strata-sandwich' }, title,
        el('div', { className: 'strata-sandwich-label', text: 'Callers (each row one caller further out)' }), callers.root,
        el('div', { className: 'strata-sandwich-label', text: 'Callees' }), callees.root);
      this.main.append(root);
      this.sandwich = { root, title, callers, callees };
    }
    this.sandwich.callers.setData(callersData);
    this.sandwich.callees.setData(calleesData);
    const f = callersData.frame[0];
    const name = displayName(callersData.strings[callersData.frames.name[f]] ?? '', callersData.frames.kind[f]);
    const calls = Number(sw.calls) || 0;
    this.sandwich.title.textContent = `Sandwich of ${name} — ${calls} call site${calls === 1 ? '' : 's'}, ${formatValue(calleesData.inclusive[0], d.unit)} (${formatPercent(calleesData.inclusive[0], d.total)})`;
    if (sw.partial) this.message.show(String(sw.partial), 'info');
    this.showMode('sandwich');
    this.saveState();
  }

  private showMode(mode: ModeName): void {
    this.mode = mode;
    const sandwich = mode === 'sandwich' && !!this.sandwich;
    this.view.root.hidden = sandwich;
    if (this.sandwich) this.sandwich.root.hidden = !sandwich;
    this.toolbar.setView(sandwich ? 'sandwich' : this.currentView);
    this.updateMyCode();
    if (sandwich) { this.sandwich!.callers.schedule(); this.sandwich!.callees.schedule(); } else this.view.schedule();
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
    if (m && kernel) this.host.postMessage({ type: 'showRegionTimeline', node: m.hostId(m.focus), view: this.currentView, kernel });
  }

  private onKey(e: KeyboardEvent): void {
    const t = e.target as HTMLElement | null;
    const typing = !!t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA');
    if (this.timeline && !this.timeline.view.root.hidden) { if (!typing) this.timeline.view.handleKey(e); return; }
    if (this.rankTimeline && !this.rankTimeline.view.root.hidden) { if (!typing) this.rankTimeline.view.handleKey(e); return; }
    if ((e.key === 'f' && (e.ctrlKey || e.metaKey)) || (e.key === '/' && !typing)) {
      e.preventDefault();
      this.toolbar.search.focus();
      this.toolbar.search.select();
      return;
    }
    if (typing) return;
    if (this.mode === 'sandwich' && e.key === 'Escape') { this.setModeRequest(this.currentView); return; }
    const v = this.view;
    const m = v.model;
    if (e.key === 'Escape') {
      if (m && (m.focus > 0 || m.zoomedIn)) v.resetZoom();
      else if (this.toolbar.search.value) { this.toolbar.search.value = ''; this.search(''); }
    } else if ((e.key === 'ArrowLeft' && e.altKey) || e.key === '[') {
      v.back();
    } else if ((e.key === 'ArrowRight' && e.altKey) || e.key === ']') {
      v.forward();
    } else if (e.key === 'Backspace' || e.key === 'u') {
      v.zoomOut();
    } else if (e.key === '+' || e.key === '=') {
      v.zoomViewport(0.5);
    } else if (e.key === '-' || e.key === '_') {
      v.zoomViewport(2);
    } else if (e.key === '0') {
      if (m) v.goTo({ focus: m.focus, v0: 0, v1: 1 });
    } else if (e.key === 'ArrowLeft') {
      v.panViewport(-0.2);
    } else if (e.key === 'ArrowRight') {
      v.panViewport(0.2);
    } else if (e.key === 'i') {
      this.toggleDetails();
    } else if (e.key === 'p' && this.hasPython) {
      this.requestView(this.currentView, this.metric, { frames: this.frames === 'python' ? 'all' : 'python' });
    } else if (e.key === 'f' && this.currentView === 'top-down') {
      this.requestView(this.currentView, this.metric, { byFunction: !this.byFunction });
    } else if (e.key === 'm') {
      this.setMyCode(!this.myCode);
    } else if (e.key === 's') {
      this.openSandwich(v.current);
    } else if (e.key === 'Enter') {
      const n = v.current;
      if (v.hasSource(n)) this.openSource(n);
    } else return;
    e.preventDefault();
  }
}
