// "Strata: Compare with…" (strata.compareWith): two runs of one program compared, in a webview
// panel in diff mode (protocol v8 'diff'): B's flame graph coloured by the change against A per
// frame, the largest gains and losses, kernels that appeared or vanished. The core matches and
// ranks (strata/core/profile_diff.h, fuzzy matching included) through the addon
// (Profile.diffAgainst); this file only picks the two files, posts the answer and opens sources.
// B is the profile in the viewer focused last (or one picked), A the one compared with (before).
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DiffColumns } from '../../native/addon/index';
import type { DiffFrame, HostMessage, WebviewMessage } from '../../webview/src/protocol';
import { PROTOCOL_VERSION } from '../../webview/src/protocol';
import type { StrataAddon } from './addon';
import { webviewHtml, webviewOptions } from './profileViewer';
import { revealSource } from './revealSource';

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

class DiffPanel {
  ready = false;
  lastSource: { file: string; line: number } | null = null;

  constructor(readonly panel: vscode.WebviewPanel, readonly a: string, readonly b: string, readonly data: DiffColumns,
    extensionUri: vscode.Uri, onDispose: () => void) {
    panel.webview.options = webviewOptions(extensionUri);
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'dist', 'media', 'strata-icon.svg');
    panel.webview.onDidReceiveMessage((m) => this.onMessage(m as WebviewMessage));
    panel.onDidDispose(onDispose);
    panel.webview.html = webviewHtml(panel.webview, extensionUri, panel.title);
  }

  private message(): HostMessage {
    return {
      type: 'diff', version: PROTOCOL_VERSION, title: this.panel.title,
      nameA: path.basename(this.a), nameB: path.basename(this.b), data: this.data,
    };
  }

  private onMessage(m: WebviewMessage): void {
    if (!m || typeof m !== 'object') return;
    if (m.type === 'ready') {
      this.ready = true;
      void this.panel.webview.postMessage(this.message());
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

  /** A node of B's view: its frame's file and line (the table's rows name nodes too). */
  private async openNode(node: number): Promise<void> {
    const d = this.data;
    if (!Number.isInteger(node) || node < 0 || node >= d.frame.length) return;
    const f = d.frame[node];
    const s = (i: number): string => d.strings[i] ?? '';
    const frame: DiffFrame = { kind: String(d.frames.kind[f]), name: s(d.frames.name[f]), file: s(d.frames.file[f]), line: d.frames.line[f] };
    if (frame.file) await this.open(frame);
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
      const data = await pb.diffAgainst(pa, metric);
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
