// One region trace in a webview panel, shown by the webview app in timeline mode (protocol v3
// 'timeline'). Answers 'ready' with the trace, 'openRegionSource' with the marker's line in an
// editor, 'exportChromeTrace' through the export callback.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HostMessage, RegionName, RegionTraceData, WebviewMessage } from '../../../webview/src/protocol';
import { PROTOCOL_VERSION } from '../../../webview/src/protocol';
import { revealSource } from '../revealSource';
import { TimelinePanel } from '../timelinePanel';
import { findMarker, type FileScan } from './markers';
import type { DecodeRequest } from './regionRequests';

export interface LoadedTrace {
  /** The file the user opened. */
  file: string;
  /** A profile's captured launch (its index). */
  launch?: number;
  /** Panel and timeline title (default: the file's name). */
  title?: string;
  data: RegionTraceData;
  /** Region id → its name and its marker's file and line where the names gave them. */
  names: Map<number, RegionName>;
  /** Folder that relative `@file` paths are relative to (the names file's). */
  namesDir: string;
  /** How to decode the buffer again (Chrome export); absent without a buffer. */
  request?: DecodeRequest;
  /** A Proton trace: its regions are Triton's scopes, found by name (`enter_scope`). */
  proton: boolean;
  scans: FileScan[];
}

export interface RegionSource { file: string; line: number; how: 'names' | 'marker' }

/** Where region `id`'s marker is: the names table's file and line, else a marker found in the
 *  workspace's sources. Relative paths resolve against the names file's folder, then the
 *  workspace folders; otherwise the path is returned as written (revealSource searches the
 *  workspace by name). */
export function regionSource(t: LoadedTrace, id: number): RegionSource | undefined {
  const n = t.names.get(id);
  if (n?.file && n.line) {
    let file = n.file;
    if (!path.isAbsolute(file)) {
      const candidates = [path.join(t.namesDir, file), ...(vscode.workspace.workspaceFolders ?? []).map((f) => path.join(f.uri.fsPath, file))];
      file = candidates.find((c) => fs.existsSync(c)) ?? file;
    }
    return { file, line: n.line, how: 'names' };
  }
  const name = n?.name ?? t.data.intervals.find((iv) => iv.region === id)?.name;
  const site = findMarker(id, name, t.scans, t.proton);
  return site ? { file: site.file, line: site.line, how: 'marker' } : undefined;
}

/** "file:line" per region id, for the tooltip (paths relative to the workspace). */
export function sourceLabels(t: LoadedTrace): Record<string, string> {
  const out: Record<string, string> = {};
  const ids = new Set(t.data.intervals.map((iv) => iv.region));
  for (const id of ids) {
    const s = regionSource(t, id);
    if (s) out[String(id)] = `${vscode.workspace.asRelativePath(s.file, false)}:${s.line}`;
  }
  return out;
}

export class RegionTracePanel extends TimelinePanel {
  /** Last source opened (tests, logs). */
  lastSource: RegionSource | null = null;

  constructor(
    panel: vscode.WebviewPanel,
    readonly trace: LoadedTrace,
    extensionUri: vscode.Uri,
    private readonly log: vscode.OutputChannel,
    private readonly exportTrace: (p: RegionTracePanel) => Promise<void>,
    onDispose: (p: RegionTracePanel) => void,
  ) {
    super(panel, extensionUri, trace.title ?? path.basename(trace.file), () => onDispose(this));
  }

  protected message(): HostMessage {
    const t = this.trace;
    return {
      type: 'timeline', version: PROTOCOL_VERSION, title: t.title ?? path.basename(t.file), data: t.data,
      sources: sourceLabels(t), canExport: !!t.request,
    };
  }

  protected onOtherMessage(m: WebviewMessage): void {
    if (m.type === 'openRegionSource') void this.openSource(Number(m.region));
    else if (m.type === 'exportChromeTrace') void this.exportTrace(this);
  }

  async openSource(region: number): Promise<void> {
    if (!Number.isInteger(region) || region < 0) return;
    const src = regionSource(this.trace, region);
    const name = this.trace.names.get(region)?.name ?? this.trace.data.intervals.find((iv) => iv.region === region)?.name ?? `region ${region}`;
    this.log.appendLine(`[regions] open the marker of region ${region} (${name}): ${src ? `${src.file}:${src.line} (${src.how})` : 'not found'}`);
    if (!src) {
      void vscode.window.showInformationMessage(`Strata: no marker of region ${region} ("${name}") was found in the workspace. ` +
        `Open the folder with the kernel's sources, or give its line in the names: "${region}=${name}@file.cu:LINE" (docs/regions.md).`);
      return;
    }
    this.lastSource = src;
    await revealSource({ file: src.file, line: src.line, name, kind: 'region', module: '' }, name);
  }

}
