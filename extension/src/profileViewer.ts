// The profile viewer: one webview (a panel of ours, or a custom editor for *.strata) showing one
// profile through the webview app (webview/dist/webview.js). Owns the message exchange:
// 'ready' → the current 'profile'; 'requestView' → a new view from the addon (a large one as the
// part wider than half a pixel, 'requestNodes' → a node's part when the user zooms into it);
// 'requestSandwich' → the core's sandwich; 'openSource' → the addon's source location → an editor
// at that line; 'showRegionTimeline' → strata.showRegionTimeline. Long calls report progress.
// A distributed job's run (the addon's openRankRun) adds 'ranks' (the ranks panel), each node's
// spread over the ranks in 'details', and 'selectRank' → one rank's own profiles alone;
// 'showRankTimeline' (the ranks panel's Timeline button) → strata.showRankTimeline.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Profile, RankRunInfo, ViewOptions } from '../../native/addon/index';
import type { HostMessage, ViewName, WebviewMessage } from '../../webview/src/protocol';
import { isViewName, metricIndex, profileTitle, toNodePart, toProfileMessage, toSandwichData, viewOptions } from './profileMessage';
import { matchProfileFile } from './lineHeatModel';
import { gpuSamplingNote } from './profileDescription';
import { revealSource } from './revealSource';
import type { StrataAddon } from './addon';
import { ViewerProgress } from './viewerProgress';
import { rankProfiles, toRanksData, toSpreadData } from './rankRun';
import { DEFAULT_WIDTH, PART_DEPTH, PART_NODES, firstPart } from './viewParts';

export interface ViewerState {
  path: string;
  ready: boolean;
  view: ViewName;
  metric: string;
  nodes: number;
  lastMessage?: string;
  lastError?: string;
  lastSource?: { file: string; line: number } | null;
  /** Why the view shown is partial (too large for memory); absent when complete. */
  partial?: string;
  /** What sampled GPU tracing means for the numbers shown ('' when every launch was traced). */
  gpuSampling: string;
  /** Every process of the run at `path`, one process frame each (the addon's openRun). */
  together: boolean;
  /** A distributed job's run: how many ranks, the one shown alone (null: all merged), the
   *  stragglers marked, and the last node spread sent (tests). */
  ranks?: { count: number; selected: number | null; stragglers: number[]; lastSpread?: { node: number; maxRank: number; max: number; median: number } };
}

/** Files the webview loads, inside the extension: copied to dist/ by build.mjs. */
export function webviewRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'dist', 'media')];
}

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: webviewRoots(extensionUri) };
}

/** Text as HTML (element content and quoted attribute values). */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]!));
}

export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, title: string): string {
  const js = vscode.Uri.joinPath(extensionUri, 'dist', 'webview', 'webview.js');
  const css = vscode.Uri.joinPath(extensionUri, 'dist', 'media', 'strata.css');
  const nonce = crypto.randomBytes(16).toString('base64');
  // regl compiles its draw commands with Function(): 'unsafe-eval' is required.
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}' 'unsafe-eval'`,
  ].join('; ');
  const missing = fs.existsSync(js.fsPath) ? '' :
    `<p class="strata-message" role="alert">The webview bundle is missing (${escapeHtml(js.fsPath)}). Build it: npm run build -w webview &amp;&amp; npm run build -w extension.</p>`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${webview.asWebviewUri(css)}">
<title>${escapeHtml(title)}</title>
</head>
<body>
${missing}<div id="strata-root"></div>
<script nonce="${nonce}" src="${webview.asWebviewUri(js)}"></script>
</body>
</html>`;
}

/** The tab's title: the profile's file name, or the run's with how many processes it shows. */
export function viewerTitle(profilePath: string, together: boolean, meta: Readonly<Record<string, string>>): string {
  const name = path.basename(profilePath);
  if (together && meta.ranks) return `Strata: ${name} (${meta.ranks} ranks)`;
  return together ? `Strata: ${name} (${meta.processes ?? '?'} processes)` : `Strata: ${name}`;
}

export class ProfileViewer implements vscode.Disposable {
  private profile: Profile | undefined;
  /** A distributed job's merged run (owned; `profile` is it, or one rank's own profile). */
  private rankRun: Profile | undefined;
  private rankInfo: RankRunInfo | undefined;
  private selectedRank: number | null = null;
  /** The latest rank selection (an older one still opening is dropped when it arrives). */
  private rankSeq = 0;
  private stragglers: number[] = [];
  private lastSpread: { node: number; maxRank: number; max: number; median: number } | undefined;
  /** The ranks panel's last message (re-sent to a reloaded webview). */
  private ranksMessage: HostMessage | undefined;
  private current: HostMessage | undefined;
  /** A status line that goes with `current` (why the view is partial, sampled GPU tracing). */
  private extra: HostMessage | undefined;
  private partial: string | undefined;
  private samplingNote = '';
  /** What sampled GPU tracing means for the open profile's numbers ('' when every launch was traced). */
  get gpuSampling(): string { return this.samplingNote; }
  private statusShown = false;
  private ready = false;
  private disposed = false;
  private view: ViewName = 'top-down';
  private metric = 0;
  /** Frames shown and grouping of the view on screen (the webview's toggles). */
  private options: ViewOptions = {};
  /** Nodes of the whole view shown (the webview may hold a part of them). */
  private nodes = 0;
  /** Which view the webview shows (its parts name it); the graph's width it last reported. */
  private viewId = 0;
  private width = DEFAULT_WIDTH;
  private readonly progress = new ViewerProgress((p) => {
    if (this.ready && !this.disposed) void this.panel.webview.postMessage({ type: 'progress', progress: p } satisfies HostMessage);
  });
  private lastError: string | undefined;
  private lastSource: { file: string; line: number } | null | undefined;
  private readonly subs: vscode.Disposable[] = [];
  private title = '';
  private requestSeq = 0;
  /** Source files (as recorded) of the view shown, for matching editor files to frames. */
  private files: string[] = [];
  /** The editor line whose frames are outlined ('highlightSource'), re-sent after a reload. */
  private sourceLine: { file: string; line: number } = { file: '', line: 0 };
  private loadedEmitter = new vscode.EventEmitter<ProfileViewer>();
  /** Fires when a profile was loaded into this viewer (after its first view is posted). */
  readonly onDidLoad = this.loadedEmitter.event;
  private viewEmitter = new vscode.EventEmitter<ProfileViewer>();
  /** Fires when the view or metric shown changed (line heat follows the metric). */
  readonly onDidChangeView = this.viewEmitter.event;

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly profilePath: string,
    private readonly addon: StrataAddon,
    extensionUri: vscode.Uri,
    private readonly log: vscode.OutputChannel,
    onDispose: (v: ProfileViewer) => void,
    /** The run at profilePath, every process together (not one profile). */
    readonly together = false,
  ) {
    panel.webview.options = webviewOptions(extensionUri);
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'dist', 'media', 'strata-icon.svg');
    this.subs.push(panel.webview.onDidReceiveMessage((m) => this.onMessage(m as WebviewMessage)));
    this.subs.push(panel.onDidDispose(() => { this.dispose(); onDispose(this); }));
    panel.webview.html = webviewHtml(panel.webview, extensionUri, path.basename(profilePath));
  }

  state(): ViewerState {
    return {
      path: this.profilePath, ready: this.ready, view: this.view,
      metric: this.profile?.metrics()[this.metric]?.name ?? '', nodes: this.nodes,
      lastMessage: this.current?.type, lastError: this.lastError, lastSource: this.lastSource, partial: this.partial,
      gpuSampling: this.samplingNote, together: this.together,
      ranks: this.rankInfo ? { count: this.rankInfo.ranks.length, selected: this.selectedRank, stragglers: [...this.stragglers],
        lastSpread: this.lastSpread } : undefined,
    };
  }

  /** A distributed job's run (every rank merged), as opposed to a single profile or a run's processes. */
  get ranked(): boolean { return !!this.rankInfo; }

  /** A distributed job's merged run and its ranks (owned by this viewer: do not close it). */
  get rankRunShown(): { profile: Profile; info: RankRunInfo } | undefined {
    return this.rankRun && this.rankInfo ? { profile: this.rankRun, info: this.rankInfo } : undefined;
  }

  /** The name of the metric shown ("" before the first view). */
  get metricName(): string { return this.profile?.metrics()[this.metric]?.name ?? ''; }

  /** The open profile (owned by this viewer: do not close it); a distributed job's merged run
   *  even while one rank is shown alone (line heat and findings are the run's). */
  get openProfile(): Profile | undefined { return this.rankRun ?? this.profile; }

  /** The ranks the analyzers call stragglers: marked in the ranks panel. */
  setStragglers(ranks: number[]): void {
    if (!this.rankInfo || JSON.stringify(ranks) === JSON.stringify(this.stragglers)) return;
    this.stragglers = ranks;
    void this.postRanks();
  }

  /** Outlines, in the graph, the frames at `docPath`:`line` (1-based; an editor's file, matched
   *  to the recorded paths, moved checkouts included). An unknown file clears the outline. */
  highlightSource(docPath: string | undefined, line: number): void {
    const file = docPath ? matchProfileFile(docPath, this.files) ?? '' : '';
    const next = { file, line: file ? line : 0 };
    if (next.file === this.sourceLine.file && next.line === this.sourceLine.line) return;
    this.sourceLine = next;
    if (this.ready) void this.panel.webview.postMessage({ type: 'highlightSource', ...next } satisfies HostMessage);
  }

  /** The outlined source line, as last sent (for tests). */
  get highlightedSource(): { file: string; line: number } { return { ...this.sourceLine }; }

  /** Shows an already opened profile (takes ownership) or opens `profilePath`. Rejects with
   *  the core's message when the file is not a valid profile. */
  async load(opened?: Profile): Promise<void> {
    const profile = opened ?? await this.progress.track(`Opening ${path.basename(this.profilePath)}`, this.addon.open(this.profilePath));
    if (this.disposed) { profile.close(); return; }
    if (this.profile !== this.rankRun) this.profile?.close();
    this.rankRun?.close();
    this.profile = profile;
    this.rankInfo = profile.ranks() ?? undefined;
    this.rankRun = this.rankInfo ? profile : undefined;
    this.selectedRank = null;
    const meta = profile.meta();
    this.samplingNote = gpuSamplingNote(profile.gpuSampling());
    this.title = profileTitle(this.profilePath, meta);
    this.panel.title = viewerTitle(this.profilePath, this.together, meta);
    this.metric = 0;
    await this.showView(this.view, this.metric);
    if (this.rankInfo) await this.postRanks();
    this.loadedEmitter.fire(this);
  }

  /** The ranks panel: each rank's phases (the core's), how it ended, the stragglers. */
  private async postRanks(): Promise<void> {
    const run = this.rankRun, info = this.rankInfo;
    if (!run || !info) return;
    try {
      const [phases, steps] = await Promise.all([run.rankPhases(), run.rankSteps().catch(() => undefined)]);
      if (this.disposed || run !== this.rankRun) return;
      this.ranksMessage = { type: 'ranks', data: toRanksData(info, phases, this.stragglers, this.selectedRank, steps) };
      if (this.ready) void this.panel.webview.postMessage(this.ranksMessage);
    } catch (e) {
      this.log.appendLine(`[viewer] ranks of ${path.basename(this.profilePath)} failed: ${(e as Error).message}`);
    }
  }

  /** Shows one rank alone (its own profile, with its workers' when it has any) or, null, every
   *  rank merged again. */
  private async selectRank(rank: number | null): Promise<void> {
    const run = this.rankRun, info = this.rankInfo;
    if (!run || !info || rank === this.selectedRank) return;
    const seq = ++this.rankSeq;
    let next: Profile = run;
    if (rank !== null) {
      const which = rankProfiles(info, rank);
      if (!which) return;
      try {
        next = await this.progress.track(`Opening rank ${rank}`,
          which.withWorkers ? this.addon.openRun(which.path) : this.addon.open(which.path));
      } catch (e) {
        void vscode.window.showErrorMessage(`Strata: rank ${rank}: ${(e as Error).message}`);
        return;
      }
      if (this.disposed || run !== this.rankRun || seq !== this.rankSeq) { next.close(); return; }
    }
    const shown = this.profile?.metrics()[this.metric]?.name ?? '';
    if (this.profile !== run) this.profile?.close();
    this.profile = next;
    this.selectedRank = rank;
    this.log.appendLine(`[viewer] ${path.basename(this.profilePath)}: ${rank === null ? 'every rank merged' : `rank ${rank} alone`}`);
    const names = next.metrics().map((m) => m.name);
    const keep = names.indexOf(shown);
    await this.showView(this.view, keep >= 0 ? keep : 0).catch(() => undefined);
    await this.postRanks();
  }

  private async showView(view: ViewName, metric: number, options: ViewOptions = this.options): Promise<void> {
    const profile = this.profile;
    if (!profile) return;
    const seq = ++this.requestSeq;
    const started = Date.now();
    // Built on the addon's worker thread; the webview and the status bar show progress meanwhile.
    const what = `${view} view${metric > 0 ? ` by ${profile.metrics()[metric]?.name ?? ''}` : ''}`;
    const building = this.progress.track(`Building the ${what}`, profile.view(view, metric, options, firstPart(this.width)));
    try {
      const cols = await building;
      if (this.disposed || seq !== this.requestSeq) return;
      this.options = options;
      const msg = toProfileMessage(cols, profile.metrics(), this.title, ++this.viewId);
      const changed = this.view !== view || this.metric !== metric;
      this.view = view;
      this.metric = metric;
      this.nodes = cols.nodes ?? cols.parent.length;
      const files = new Set<string>();
      for (const file of cols.frames.file) if (file) files.add(cols.strings[file]);
      for (const file of cols.frames.fusedFile ?? []) if (file) files.add(cols.strings[file]);   // a fused kernel's lines
      this.files = [...files];
      this.lastError = undefined;
      this.log.appendLine(`[viewer] ${path.basename(this.profilePath)}: ${view} view, ${this.nodes} nodes` +
        `${cols.node ? ` (${cols.parent.length} sent first)` : ''}, metric ${msg.data.metric || '(none)'}, built in ${Date.now() - started} ms`);
      this.post(msg);
      // A view too large for memory comes back partial: the webview and a notification say so.
      // Sampled GPU tracing: the webview's status line says the GPU numbers are estimates.
      this.partial = cols.partial;
      const status = [cols.partial, this.samplingNote].filter(Boolean).join(' ');
      // An empty status clears the line an earlier view left (a partial one).
      if (status || this.statusShown) this.post({ type: 'status', message: status }, true);
      this.statusShown = !!status;
      if (cols.partial) {
        this.log.appendLine(`[viewer] ${path.basename(this.profilePath)}: ${cols.partial}`);
        void vscode.window.showWarningMessage(`Strata: ${path.basename(this.profilePath)}: ${cols.partial}`);
      }
      if (changed) this.viewEmitter.fire(this);
    } catch (e) {
      if (this.disposed) return;
      const message = (e as Error).message ?? String(e);
      this.lastError = message;
      this.log.appendLine(`[viewer] ${view} view failed: ${message}`);
      this.post({ type: 'error', message });
      throw e;
    }
  }

  /** Sends `msg` (kept to be re-sent to a reloaded webview; `extra`: after the current one). */
  private post(msg: HostMessage, extra = false): void {
    if (extra) this.extra = msg;
    else { this.current = msg; this.extra = undefined; }
    if (this.ready) void this.panel.webview.postMessage(msg);
  }

  private onMessage(m: WebviewMessage): void {
    if (!m || typeof m !== 'object') return;
    switch (m.type) {
      case 'ready':
        // (Re)loaded webview: send what it should show.
        this.ready = true;
        this.setWidth(m.width);
        if (this.progress.current) void this.panel.webview.postMessage({ type: 'progress', progress: this.progress.current } satisfies HostMessage);
        if (this.current) void this.panel.webview.postMessage(this.current);
        if (this.current && this.extra) void this.panel.webview.postMessage(this.extra);
        if (this.current && this.ranksMessage) void this.panel.webview.postMessage(this.ranksMessage);
        if (this.current && this.sourceLine.file) void this.panel.webview.postMessage({ type: 'highlightSource', ...this.sourceLine } satisfies HostMessage);
        return;
      case 'requestView': {
        this.setWidth(m.width);
        const view = isViewName(m.view) ? m.view : this.view;
        const metric = this.profile ? metricIndex(this.profile.metrics(), m.metric, this.metric) : 0;
        this.showView(view, metric, viewOptions(m, this.options)).catch((e) =>
          void vscode.window.showErrorMessage(`Strata: ${(e as Error).message}`));
        return;
      }
      case 'requestNodes':     // v7: the part under a node the user zoomed into
        void this.postNodes(m);
        return;
      case 'requestSandwich':  // v7: the sandwich of a frame's function
        void this.postSandwich(Number(m.node), isViewName(m.view) ? m.view : this.view);
        return;
      case 'requestDetails':   // v6: every metric of one node, for the details pane
        void this.postDetails(Number(m.node), isViewName(m.view) ? m.view : this.view);
        return;
      case 'openSource':
        void this.openSource(Number(m.node), isViewName(m.view) ? m.view : this.view,
          Number.isInteger(m.fusedLine) && Number(m.fusedLine) >= 0 ? Number(m.fusedLine) : undefined);
        return;
      case 'selectRank':   // v10: one rank of a distributed job alone, or null: all of them
        void this.selectRank(m.rank === null ? null : Number.isInteger(m.rank) ? Number(m.rank) : this.selectedRank);
        return;
      case 'showRankTimeline':   // v11: this run's ranks on one timeline
        if (this.rankRun) void vscode.commands.executeCommand('strata.showRankTimeline', this.profilePath);
        return;
      case 'showRegionTimeline':   // v4: a kernel node with region frames under it
        void this.showRegionTimeline(Number(m.node), isViewName(m.view) ? m.view : this.view, typeof m.kernel === 'string' ? m.kernel : '');
        return;
    }
  }

  private setWidth(width: unknown): void {
    if (typeof width === 'number' && Number.isFinite(width) && width > 0) this.width = width;
  }

  /** A node's part of the view on screen (a request for an older view is dropped: the webview
   *  has moved on). */
  private async postNodes(m: Extract<WebviewMessage, { type: 'requestNodes' }>): Promise<void> {
    const profile = this.profile;
    const node = Number(m.node), minValue = Number(m.minValue);
    if (!profile || m.viewId !== this.viewId || m.view !== this.view || !Number.isInteger(node) || node < 0 ||
        !(minValue >= 0) || !Number.isFinite(minValue)) return;
    try {
      const part = await profile.viewPart(this.view, node, { minValue, maxNodes: PART_NODES, maxDepth: PART_DEPTH });
      if (!part || this.disposed || m.viewId !== this.viewId || !this.ready) return;
      void this.panel.webview.postMessage({ type: 'nodes', viewId: m.viewId, root: node, part: toNodePart(part) } satisfies HostMessage);
    } catch (e) {
      this.log.appendLine(`[viewer] part of node ${node} failed: ${(e as Error).message}`);
    }
  }

  /** The sandwich of the function of `node` (the core builds it, bounded). */
  private async postSandwich(node: number, view: ViewName): Promise<void> {
    const profile = this.profile;
    if (!profile || !Number.isInteger(node) || node <= 0) return;
    try {
      const sw = await this.progress.track('Building the sandwich', profile.sandwich(view, node));
      if (this.disposed || !this.ready) return;
      if (sw?.partial) this.log.appendLine(`[viewer] ${path.basename(this.profilePath)}: ${sw.partial}`);
      void this.panel.webview.postMessage({ type: 'sandwich', view, node, data: sw ? toSandwichData(sw) : null } satisfies HostMessage);
    } catch (e) {
      const message = (e as Error).message ?? String(e);
      this.log.appendLine(`[viewer] sandwich of node ${node} failed: ${message}`);
      if (this.ready && !this.disposed) void this.panel.webview.postMessage({ type: 'error', message: `The sandwich could not be built: ${message}` } satisfies HostMessage);
    }
  }

  /** The captured launches of the kernel at `node` (the core picks them) → the timeline. */
  private async showRegionTimeline(node: number, view: ViewName, kernel: string): Promise<void> {
    const profile = this.profile;
    if (!profile || !Number.isInteger(node) || node < 0) return;
    if (view === this.view && node >= this.nodes) {
      void vscode.window.showInformationMessage('Strata: that frame is no longer in the view (it was rebuilt); pick it again.');
      return;
    }
    this.log.appendLine(`[viewer] region timeline of node ${node} (${kernel})`);
    let launches: number[];
    try {
      launches = [...(await profile.regionLaunchesOf(view, node, view === this.view ? this.metric : undefined)).index];
    } catch (e) {
      void vscode.window.showErrorMessage(`Strata: ${path.basename(this.profilePath)}: ${(e as Error).message}`);
      return;
    }
    await vscode.commands.executeCommand('strata.showRegionTimeline', { profile: this.profilePath, launches, kernel });
  }

  private async postDetails(node: number, view: ViewName): Promise<void> {
    const profile = this.profile;
    if (!profile || !Number.isInteger(node) || node < 0) return;
    try {
      const d = await profile.nodeMetrics(view, node);
      // Every rank merged: the node's value on each rank (of the view on screen, its metric).
      const spread = this.rankRun && profile === this.rankRun && view === this.view
        ? await profile.rankSpread(view, node).catch(() => null) : null;
      if (spread) this.lastSpread = { node, maxRank: spread.maxRank, max: spread.max, median: spread.median };
      if (this.ready && !this.disposed) void this.panel.webview.postMessage({ type: 'details', node, view, metrics: d?.metrics ?? [], lines: d?.lines,
        spread: spread ? toSpreadData(spread) : undefined } satisfies HostMessage);
    } catch (e) {
      this.log.appendLine(`[viewer] details of node ${node} failed: ${(e as Error).message}`);
    }
  }

  /** Opens the node's source, or (`fusedLine`) one of the lines its fused kernel computes. */
  private async openSource(node: number, view: ViewName, fusedLine?: number): Promise<void> {
    const profile = this.profile;
    if (!profile || !Number.isInteger(node) || node < 0) return;
    if (view === this.view && node >= this.nodes) {
      // A request from a webview that still showed an older view: say so, open nothing.
      this.lastSource = null;
      void vscode.window.showInformationMessage('Strata: that frame is no longer in the view (it was rebuilt); pick it again.');
      return;
    }
    try {
      const loc = await profile.sourceLocation(view, node, view === this.view ? this.metric : undefined, fusedLine);
      this.lastSource = loc ? { file: loc.file, line: loc.line } : null;
      this.log.appendLine(`[viewer] open source of node ${node} (${view})${fusedLine !== undefined ? ` fused line ${fusedLine}` : ''}: ` +
        `${loc ? `${loc.file}:${loc.line}` : 'none'}`);
      await revealSource(loc);
    } catch (e) {
      void vscode.window.showErrorMessage(`Strata: cannot open the source: ${(e as Error).message}`);
    }
  }

  reveal(): void {
    this.panel.reveal();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const s of this.subs) s.dispose();
    this.loadedEmitter.dispose();
    this.viewEmitter.dispose();
    if (this.profile !== this.rankRun) this.profile?.close();
    this.rankRun?.close();
    this.profile = undefined;
    this.rankRun = undefined;
    // The last view's columns (tens of MB for a large profile) go with the panel.
    this.current = undefined;
    this.extra = undefined;
    this.ranksMessage = undefined;
    this.files = [];
  }
}
