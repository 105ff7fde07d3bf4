// A distributed job's ranks on one timeline in a webview panel, shown by the webview app in rank
// timeline mode (protocol v11 'rankTimeline'). Answers 'ready' with the timeline and
// 'openRankSlice' with the slice's source line (a collective's issuing line, a GPU activity's
// user frame) in an editor. It holds the converted data only: the run's profile stays its viewer's.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HostMessage, RankTimelineData, WebviewMessage } from '../../webview/src/protocol';
import { PROTOCOL_VERSION } from '../../webview/src/protocol';
import { revealSource } from './revealSource';
import { rankSliceSource, type RankSliceSource } from './rankTimeline';
import { TimelinePanel } from './timelinePanel';

export class RankTimelinePanel extends TimelinePanel {
  /** Last source opened (tests, logs). */
  lastSource: RankSliceSource | null = null;

  constructor(
    panel: vscode.WebviewPanel,
    /** The run's folder (the viewer's profile path). */
    readonly runPath: string,
    readonly data: RankTimelineData,
    extensionUri: vscode.Uri,
    private readonly log: vscode.OutputChannel,
    onDispose: (p: RankTimelinePanel) => void,
  ) {
    super(panel, extensionUri, `${path.basename(runPath)}: ranks timeline`, () => onDispose(this));
  }

  get title(): string { return `${path.basename(this.runPath)}: ranks timeline`; }

  protected message(): HostMessage {
    return { type: 'rankTimeline', version: PROTOCOL_VERSION, title: this.title, data: this.data };
  }

  protected onOtherMessage(m: WebviewMessage): void {
    if (m.type === 'openRankSlice') void this.openSource(Number(m.slice));
  }

  async openSource(slice: number): Promise<void> {
    const src = rankSliceSource(this.data, slice);
    this.log.appendLine(`[rank timeline] open slice ${slice}: ${src ? `${src.name} of rank ${src.rank} at ${src.file}:${src.line}` : 'no source'}`);
    if (!src) return;
    this.lastSource = src;
    await revealSource({ file: src.file, line: src.line, name: src.name, kind: 'python', module: '' }, src.name);
  }
}
