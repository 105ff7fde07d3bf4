// What a timeline shown in a webview panel of its own needs whatever it shows (a region trace,
// a distributed job's ranks): the webview set up with the extension's files, 'ready' answered
// with the panel's one message, the panel's life. Subclasses say what the message is and answer
// the webview's other messages.
import * as vscode from 'vscode';
import type { HostMessage, WebviewMessage } from '../../webview/src/protocol';
import { webviewHtml, webviewOptions } from './profileViewer';

export abstract class TimelinePanel implements vscode.Disposable {
  private ready = false;
  protected disposed = false;
  private readonly subs: vscode.Disposable[] = [];

  protected constructor(readonly panel: vscode.WebviewPanel, extensionUri: vscode.Uri, title: string, onDispose: () => void) {
    panel.webview.options = webviewOptions(extensionUri);
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'dist', 'media', 'strata-icon.svg');
    this.subs.push(panel.webview.onDidReceiveMessage((m) => this.onMessage(m as WebviewMessage)));
    this.subs.push(panel.onDidDispose(() => { this.dispose(); onDispose(); }));
    panel.webview.html = webviewHtml(panel.webview, extensionUri, title);
  }

  /** What the webview shows, sent when it says it is ready. */
  protected abstract message(): HostMessage;
  /** The webview's messages other than 'ready'. */
  protected abstract onOtherMessage(m: WebviewMessage): void;

  private onMessage(m: WebviewMessage): void {
    if (!m || typeof m !== 'object' || this.disposed) return;
    if (m.type === 'ready') {
      this.ready = true;
      void this.panel.webview.postMessage(this.message());
      return;
    }
    this.onOtherMessage(m);
  }

  get isReady(): boolean { return this.ready; }

  reveal(): void { this.panel.reveal(); }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const s of this.subs) s.dispose();
  }
}
