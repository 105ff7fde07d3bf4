// "Strata: Compare with…" (strata.compareWith): two runs of one program compared, in a webview
// panel in diff mode (protocol v8 'diff'): B's flame graph coloured by the change against A per
// frame, the largest gains and losses, kernels that appeared or vanished. The core matches and
// ranks (strata/core/profile_diff.h, fuzzy matching included) through the addon
// (Profile.diffAgainst); this file only picks the two files, posts the answer and opens sources.
// B is the profile in the viewer focused last (or one picked), A the one compared with (before).
// A large diff goes to the webview as a view does: its part wider than half a pixel first, a
// node's part when the webview asks ('requestNodes'), the nodes on the way to a row's frame
// ('requestPath'); the comparison stays with the panel (the answer's part / path / frameOf).
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DiffColumns, DiffPart } from '../../native/addon/index';
import type { DiffData, DiffFrame, HostMessage, WebviewMessage } from '../../webview/src/protocol';
import { PROTOCOL_VERSION } from '../../webview/src/protocol';
import type { StrataAddon } from './addon';
import { webviewHtml, webviewOptions } from './profileViewer';
import { revealSource } from './revealSource';
import { DEFAULT_WIDTH, PART_DEPTH, PART_NODES, firstPart } from './viewParts';

export interface DiffContext {
  extensionUri: vscode.Uri;
  addon: () => StrataAddon;
  log: vscode.OutputChannel;
  /** The profile of the viewer focused last: B when the command gets no file. */
  currentProfile: () => string | undefined;
}

export interface DiffPanelState {
  a: string;
  b: string;
  ready: boolean;
  /** What the core answered (tests): the first rows' frames and changes, the kernels. */
  rows: { name: string; file: string; line: number; userLine: number; a: number; b: number; match: string }[];
  appeared: string[];
  vanished: string[];
  lastSource: { file: string; line: number } | null;
  /** B's view's nodes, the nodes sent first, and the parts and paths sent since. */
  nodes: number;
  sentFirst: number;
  partsSent: number;
  pathsSent: number;
}

export interface DiffApi {
  /** Compares `b` (after) with `a` (before) on `metric` in a new panel (no metric: the user's
   *  pick among the additive metrics both have, when there are several); rejects with the core's
   *  one line. */
  compare(a: string, b: string, metric?: string): Promise<void>;
  panels(): DiffPanelState[];
}

function fileArg(x: unknown): string | undefined {
  if (x instanceof vscode.Uri) return x.fsPath;
  if (typeof x === 'string' && x) return x;
  return undefined;
}

async function pickProfile(title: string): Promise<string | undefined> {
  const picked = await vscode.window.showOpenDialog({
    title, canSelectMany: false, openLabel: 'Compare', filters: { 'Strata profiles': ['strata'] },
  });
  return picked?.[0]?.fsPath;
}

/** Which diff a webview's part requests are of (one per panel). */
let nextViewId = 1;

class DiffPanel {
  ready = false;
  lastSource: { file: string; line: number } | null = null;
  readonly viewId = nextViewId++;
  partsSent = 0;
  pathsSent = 0;

  constructor(readonly panel: vscode.WebviewPanel, readonly a: string, readonly b: string, readonly data: DiffColumns,
    extensionUri: vscode.Uri, onDispose: () => void) {
    panel.webview.options = webviewOptions(extensionUri);
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'dist', 'media', 'strata-icon.svg');
    panel.webview.onDidReceiveMessage((m) => this.onMessage(m as WebviewMessage));
    panel.onDidDispose(onDispose);
    panel.webview.html = webviewHtml(panel.webview, extensionUri, panel.title);
  }

  private message(): HostMessage {
    const d = this.data;
    const data: DiffData = {
      metric: d.metric, unit: d.unit, totalA: d.totalA, totalB: d.totalB, commonPaths: d.commonPaths, fuzzyPaths: d.fuzzyPaths,
      frameFilter: d.frameFilter, strings: d.strings, frames: d.frames, parent: d.parent, frame: d.frame,
      inclusive: d.inclusive, exclusive: d.exclusive, count: d.count, baseline: d.baseline, match: d.match,
      rows: d.rows, appeared: d.appeared, vanished: d.vanished, nodes: d.nodes, viewId: this.viewId, largestChange: d.largestChange,
      ...(d.node ? { node: d.node, more: d.more, minValue: d.minValue } : {}),
    };
    return { type: 'diff', version: PROTOCOL_VERSION, title: this.panel.title, nameA: path.basename(this.a), nameB: path.basename(this.b), data };
  }

  /** A part (or a path) of B's view as a 'nodes' message. */
  private postPart(root: number, part: DiffPart): void {
    void this.panel.webview.postMessage({
      type: 'nodes', viewId: this.viewId, root,
      part: { parent: part.parent, frame: part.frame, inclusive: part.inclusive, exclusive: part.exclusive, node: part.node,
        more: part.more, minValue: part.minValue, baseline: part.baseline, match: part.match },
    } satisfies HostMessage);
  }

  private async sendPart(m: Extract<WebviewMessage, { type: 'requestNodes' | 'requestPath' }>): Promise<void> {
    const node = Number(m.node);
    if (m.viewId !== this.viewId || !Number.isInteger(node) || node < 0) return;
    try {
      if (m.type === 'requestPath') {
        const part = await this.data.path(node);
        if (part) { this.pathsSent++; this.postPart(0, part); }
        return;
      }
      const minValue = Number(m.minValue);
      if (!(minValue >= 0)) return;
      const part = await this.data.part(node, { minValue, maxNodes: PART_NODES, maxDepth: PART_DEPTH });
      if (part) { this.partsSent++; this.postPart(node, part); }
    } catch {
      // A part of a node B's view does not have: nothing to draw (the webview asks no more).
    }
  }

  private onMessage(m: WebviewMessage): void {
    if (!m || typeof m !== 'object') return;
    if (m.type === 'ready') {
      this.ready = true;
      void this.panel.webview.postMessage(this.message());
    } else if (m.type === 'requestNodes' || m.type === 'requestPath') {
      void this.sendPart(m);
    } else if (m.type === 'openSource') {
      void this.openNode(Number(m.node));
    } else if (m.type === 'openDiffRow') {
      const r = this.data.rows[Number(m.row)];
      const f = r?.userFrame ?? r?.frame;
      if (f?.file) void this.open(f);
    }
  }

  private async open(frame: DiffFrame): Promise<void> {
    this.lastSource = { file: frame.file, line: frame.line };
    await revealSource({ file: frame.file, line: frame.line, name: frame.name, kind: frame.kind, module: '' }, frame.name);
  }

  /** A node of B's view (the host's id): its frame's file and line (the table's rows name nodes too). */
  private async openNode(node: number): Promise<void> {
    if (!Number.isInteger(node) || node < 0) return;
    const frame = this.data.frameOf(node);
    if (frame?.file) await this.open(frame);
  }

  state(): DiffPanelState {
    const d = this.data;
    return {
      a: this.a, b: this.b, ready: this.ready, lastSource: this.lastSource,
      rows: d.rows.slice(0, 20).map((r) => ({
        name: r.frame?.name ?? '', file: r.userFrame?.file ?? r.frame?.file ?? '', line: r.frame?.line ?? 0,
        userLine: r.userFrame?.line ?? 0, a: r.a, b: r.b, match: r.match,
      })),
      appeared: d.appeared.map((k) => k.name), vanished: d.vanished.map((k) => k.name),
      nodes: d.nodes, sentFirst: d.parent.length, partsSent: this.partsSent, pathsSent: this.pathsSent,
    };
  }
}

export function registerDiff(context: vscode.ExtensionContext, ctx: DiffContext): DiffApi {
  const panels = new Set<DiffPanel>();

  async function compare(a: string, b: string, metric?: string): Promise<void> {
    const addon = ctx.addon();
    const [pa, pb] = await Promise.all([addon.open(a), addon.open(b)]);
    try {
      if (metric === undefined) {
        const inA = new Set(pa.metrics().filter((m) => m.nature === 'additive').map((m) => m.name));
        const both = pb.metrics().filter((m) => m.nature === 'additive' && inA.has(m.name)).map((m) => m.name);
        if (both.length > 1) {
          metric = await vscode.window.showQuickPick(both, { title: 'Strata: compare which metric?' });
          if (metric === undefined) return;
        }
      }
      // B's view in parts as a view is sent (the panel's width is not known before it opens).
      // The comparison of two large runs takes a second or so: the status bar says so meanwhile.
      const comparing = pb.diffAgainst(pa, metric, firstPart(DEFAULT_WIDTH));
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Strata: comparing ${path.basename(b)} with ${path.basename(a)}` },
        () => comparing.catch(() => undefined));
      const data = await comparing;
      const title = `${path.basename(b)} vs ${path.basename(a)}`;
      ctx.log.appendLine(`[diff] ${b} against ${a}: ${data.metric}, ${data.commonPaths} call paths in both (${data.fuzzyPaths} fuzzy), ` +
        `${data.appeared.length} kernels appeared, ${data.vanished.length} vanished`);
      const panel = vscode.window.createWebviewPanel('strata.diff', `Strata: ${title}`, vscode.ViewColumn.Active, { enableScripts: true, retainContextWhenHidden: true });
      const p = new DiffPanel(panel, a, b, data, ctx.extensionUri, () => panels.delete(p));
      panels.add(p);
    } finally {
      pa.close();
      pb.close();
    }
  }

  context.subscriptions.push(vscode.commands.registerCommand('strata.compareWith', async (baseline?: unknown, target?: unknown, metric?: unknown) => {
    try {
      const b = fileArg(target) ?? ctx.currentProfile() ?? await pickProfile('Strata: the profile to look at (B, after)');
      if (!b) return;
      const a = fileArg(baseline) ?? await pickProfile(`Strata: compare ${path.basename(b)} with (A, before)`);
      if (!a) return;
      await compare(a, b, typeof metric === 'string' ? metric : undefined);
    } catch (e) {
      const msg = (e as Error)?.message ?? String(e);
      ctx.log.appendLine(`[diff] ${msg}`);
      void vscode.window.showErrorMessage(`Strata: cannot compare: ${msg}`);
    }
  }));
  return { compare, panels: () => [...panels].map((p) => p.state()) };
}
