// A distributed job's ranks on one timeline in a webview panel, shown by the webview app in rank
// timeline mode (protocol v11 'rankTimeline'). Answers 'ready' with the timeline and
// 'openRankSlice' with the slice's source line (a collective's issuing line, a GPU activity's
// user frame) in an editor. It holds the converted data only: the run's profile stays its viewer's.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HostMessage, RankTimelineData, WebviewMessage } from '../../webview/src/protocol';
import { PROTOCOL_VERSION } from '../../webview/src/protocol';
import { webviewHtml, webviewOptions } from './profileViewer';
import { revealSource } from './revealSource';
import { rankSliceSource, type RankSliceSource } from './rankTimeline';

export class RankTimelinePanel implements vscode.Disposable {
  private ready = false;
  private disposed = false;
  private readonly subs: vscode.Disposable[] = [];
  /** Last source opened (tests, logs). */
  lastSource: RankSliceSource | null = null;

  constructor(
    readonly panel: vscode.WebviewPanel,
    /** The run's folder (the viewer's profile path). */
    readonly runPath: string,
    readonly data: RankTimelineData,
    extensionUri: vscode.Uri,
    private readonly log: vscode.OutputChannel,
    onDispose: (p: RankTimelinePanel) => void,
  ) {
    panel.webview.options = webviewOptions(extensionUri);
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'dist', 'media', 'strata-icon.svg');
    this.subs.push(panel.webview.onDidReceiveMessage((m) => this.onMessage(m as WebviewMessage)));
    this.subs.push(panel.onDidDispose(() => { this.dispose(); onDispose(this); }));
    panel.webview.html = webviewHtml(panel.webview, extensionUri, this.title);
  }

  get title(): string { return `${path.basename(this.runPath)}: ranks timeline`; }

  private message(): HostMessage {
    return { type: 'rankTimeline', version: PROTOCOL_VERSION, title: this.title, data: this.data };
  }

  private onMessage(m: WebviewMessage): void {
    if (!m || typeof m !== 'object' || this.disposed) return;
    switch (m.type) {
      case 'ready':
        this.ready = true;
        void this.panel.webview.postMessage(this.message());
        return;
      case 'openRankSlice':
        void this.openSource(Number(m.slice));
        return;
    }
  }

  async openSource(slice: number): Promise<void> {
    const src = rankSliceSource(this.data, slice);
    this.log.appendLine(`[rank timeline] open slice ${slice}: ${src ? `${src.name} of rank ${src.rank} at ${src.file}:${src.line}` : 'no source'}`);
    if (!src) return;
    this.lastSource = src;
    await revealSource({ file: src.file, line: src.line, name: src.name, kind: 'python', module: '' }, src.name);
  }

  get isReady(): boolean { return this.ready; }

  reveal(): void { this.panel.reveal(); }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const s of this.subs) s.dispose();
  }
}
