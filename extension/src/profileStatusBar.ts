// The status bar item of the open profile: "Strata: <profile> <duration>"; a click brings its
// viewer to the front (strata.showViewer).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { formatDuration } from '../../webview/src/model/format';
import { metaDuration } from './profileDescription';

export class ProfileStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor() {
    this.item = vscode.window.createStatusBarItem('strata.profile', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'Strata Profile';
    this.item.command = 'strata.showViewer';
  }

  /** Shows `profilePath` (its meta gives the duration and the command; `gpuSampling`: what sampled
   *  GPU tracing means for its numbers); undefined hides it. */
  show(profilePath: string | undefined, meta?: Readonly<Record<string, string>>, lineHeat?: boolean, gpuSampling?: string): void {
    if (!profilePath) { this.item.hide(); return; }
    const d = meta ? metaDuration(meta) : undefined;
    this.item.text = `$(flame) Strata: ${path.basename(profilePath)}${d !== undefined ? ` ${formatDuration(d)}` : ''}`;
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**Strata profile** \`${profilePath}\`\n\n`);
    if (meta?.command) md.appendMarkdown(`Command: \`${meta.command.replace(/`/g, "'")}\`\n\n`);
    if (meta?.ended || meta?.exit) md.appendMarkdown(`Ended: ${meta.exit ?? meta.ended}\n\n`);
    if (gpuSampling) md.appendText(`${gpuSampling}\n\n`);
    md.appendMarkdown(`Line heat: ${lineHeat ? 'on' : 'off'} (Strata: Toggle Line Heat). Click to show the viewer.`);
    this.item.tooltip = md;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
