// "Strata: Open Region Trace" (strata.openRegionTrace) and "Strata: Export Region Trace as
// Chrome Trace" (strata.exportRegionChromeTrace): pick a region buffer (.bin) or a decoded trace
// (.json), decode the buffer through the addon (decodeRegions: columns from the core), show it as
// a timeline; write the Chrome trace (writeRegionChromeTrace). A profile recorded with
// `strata record --regions` carries its captured launches' buffers: "Strata: Show Region
// Timeline" (strata.showRegionTimeline, also the flame graph's "Region timeline" on a kernel with
// regions, which passes the launches the core found for that kernel) picks one by index and
// decodes it. Every failure is one notification.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RegionName, RegionTraceData } from '../../../webview/src/protocol';
import { loadAddon, type StrataAddon } from '../addon';
import { addonRequest, launchItem, launchList, nameRecords, traceData, type DecodeRequest } from './regionRequests';
import { LoadedTrace, RegionTracePanel, regionSource } from './regionTracePanel';
import { stemOf, traceFilesFor } from './traceFiles';
import { scanWorkspaceMarkers } from './workspaceMarkers';

export interface RegionTraceContext {
  extensionDir: string;
  extensionUri: vscode.Uri;
  log: vscode.OutputChannel;
  /** The profile of the viewer focused last ("Show Region Timeline" without arguments). */
  currentProfile?: () => string | undefined;
}

/** Which captured launch of a profile to show: `launch` (an index), else one of `launches`
 *  (the indexes the core found for the flame graph's kernel `kernel`; a quick pick when
 *  several), else any (a quick pick). */
export interface LaunchChoice { launch?: number; launches?: number[]; kernel?: string }

export interface RegionTraceApi {
  open(file: string, choice?: LaunchChoice): Promise<void>;
  /** Open panels (tests): file (and the profile's launch), whether the webview asked for its
   *  data, last source opened. */
  panels(): { file: string; launch?: number; ready: boolean; lastSource: { file: string; line: number } | null }[];
}

function readJson(p: string): unknown {
  try { return JSON.parse(fs.readFileSync(p, 'utf8')); } catch { return undefined; }
}

/** Region id → its typed name record, for opening markers: `first` (a decoded trace's names
 *  file), then the trace's names table (the names file's, then the profile's or the module's). */
function namesOf(data: RegionTraceData, first: RegionName[] = []): Map<number, RegionName> {
  const out = new Map(first.map((r) => [r.id, r]));
  for (const r of Array.isArray(data.regions) ? data.regions : []) {
    if (!out.get(r.id)?.file) out.set(r.id, r);
  }
  return out;
}

export function registerRegionTrace(context: vscode.ExtensionContext, ctx: RegionTraceContext): RegionTraceApi {
  const addon = (): StrataAddon => loadAddon(ctx.extensionDir);
  const panels = new Set<RegionTracePanel>();
  let lastActive: RegionTracePanel | undefined;

  /** The launch of a profile to decode: `choice.launch`, the only one (of `choice.kernel`), or
   *  the user's pick; undefined when the pick is cancelled. */
  const chooseLaunch = async (file: string, choice: LaunchChoice): Promise<number | undefined> => {
    if (choice.launch !== undefined) return choice.launch;
    ctx.log.appendLine(`[regions] the captured launches of ${file}`);
    const all = launchList(await addon().regionLaunches(file));
    const wanted = choice.launches && new Set(choice.launches);
    const launches = wanted ? all.filter((l) => wanted.has(l.index)) : all;
    if (!launches.length) throw new Error(`no captured launch of ${choice.kernel ?? 'this kernel'} (${all.length} of other kernels).`);
    if (launches.length === 1) return launches[0].index;
    const picked = await vscode.window.showQuickPick(launches.map((l) => ({ ...launchItem(l), index: l.index })), {
      title: `Strata: ${launches.length} captured launches in ${path.basename(file)}`, placeHolder: 'The launch to show as a timeline',
      matchOnDescription: true, matchOnDetail: true,
    });
    return picked?.index;
  };

  const load = async (file: string, choice: LaunchChoice = {}): Promise<LoadedTrace | undefined> => {
    const files = traceFilesFor(file, { exists: (p) => fs.existsSync(p), json: readJson });
    let launch: number | undefined;
    if (files.profile) {
      launch = await chooseLaunch(file, choice);
      if (launch === undefined) return undefined;
    }
    const request: DecodeRequest | undefined = files.buffer
      ? { buffer: files.buffer, namesFile: files.namesFile, calibration: files.calibration, proton: files.proton, launch } : undefined;
    const scanning = scanWorkspaceMarkers((l) => ctx.log.appendLine(l));
    let data: RegionTraceData;
    let fileNames: RegionName[] = [];
    if (files.decoded) {
      data = readJson(files.decoded) as RegionTraceData;
      // Already decoded: its names file still places the markers.
      if (files.namesFile) {
        try {
          fileNames = nameRecords(await addon().readRegionNames(files.namesFile));
        } catch (e) {
          void vscode.window.showWarningMessage(`Strata: ${(e as Error).message}; regions are shown by id.`);
        }
      }
    } else {
      const a = addon();
      const req = addonRequest(request!);
      ctx.log.appendLine(`[regions] decode ${JSON.stringify(req)}`);
      const columns = await vscode.window.withProgress({
        location: vscode.ProgressLocation.Notification, title: `Strata: decoding ${path.basename(file)}`,
      }, () => a.decodeRegions(req));
      if (files.namesFile && columns.namesFileError) {
        void vscode.window.showWarningMessage(`Strata: ${path.basename(files.namesFile)}: ${columns.namesFileError}; regions are shown by id.`);
      }
      data = traceData(columns);
    }
    const names = namesOf(data, fileNames);
    if (files.namesFile) ctx.log.appendLine(`[regions] names with ${path.basename(files.namesFile)}: ${names.size} regions, ${data.cycles_per_ns ?? '?'} cycles/ns`);
    const title = launch === undefined ? undefined : `${path.basename(file)} · launch ${launch}`;
    // A decoded JSON says where it came from (`strata regions --format json`: "source").
    const proton = !!files.proton || (data as { source?: unknown }).source === 'proton';
    return { file, launch, title, data, names, namesDir: path.dirname(files.namesFile ?? file), request, proton, scans: await scanning };
  };

  const open = async (file: string, choice: LaunchChoice = {}): Promise<void> => {
    let trace: LoadedTrace | undefined;
    try {
      trace = await load(file, choice);
      if (!trace) return;   // no launch picked
    } catch (e) {
      const msg = (e as Error).message ?? String(e);
      ctx.log.appendLine(`[regions] ${file}: ${msg}`);
      void vscode.window.showErrorMessage(`Strata: ${path.basename(file)}: ${msg.replace(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\s*`), '')}`);
      return;
    }
    for (const p of panels) if (p.trace.file === file && p.trace.launch === trace.launch) p.panel.dispose();   // replace an older view
    const panel = vscode.window.createWebviewPanel('strata.regionTrace', `Strata: ${trace.title ?? path.basename(file)}`,
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: false }, { enableScripts: true, retainContextWhenHidden: false });
    const p = new RegionTracePanel(panel, trace, ctx.extensionUri, ctx.log, (x) => exportChrome(x.trace), (x) => {
      panels.delete(x);
      if (lastActive === x) lastActive = undefined;
    });
    panels.add(p);
    lastActive = p;
    showOverlapFindings(trace);
    panel.onDidChangeViewState((e) => { if (e.webviewPanel.active) lastActive = p; });
    ctx.log.appendLine(`[regions] ${trace.title ?? path.basename(file)}: ${trace.data.lanes.length} lanes, ${trace.data.intervals.length} intervals`);
  };

  /** The overlap analysis's findings (the region whose shortening shortens the kernel, a late
   *  release, another stage) on their regions' marker lines, as the analyzers' findings are. */
  const overlapDiagnostics = vscode.languages.createDiagnosticCollection('strata-regions');
  context.subscriptions.push(overlapDiagnostics);
  const showOverlapFindings = (trace: LoadedTrace): void => {
    overlapDiagnostics.clear();
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const f of trace.data.overlap?.findings ?? []) {
      const src = regionSource(trace, f.region);
      if (!src) { ctx.log.appendLine(`[regions] finding on ${f.name}: no marker found (${f.message})`); continue; }
      const line = Math.max(0, src.line - 1);
      const d = new vscode.Diagnostic(new vscode.Range(line, 0, line, 1000), f.message,
        f.gain_share >= 0.1 ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Information);
      d.source = 'strata';
      d.code = 'critical-path';
      const list = byFile.get(src.file) ?? [];
      list.push(d);
      byFile.set(src.file, list);
    }
    for (const [file, list] of byFile) overlapDiagnostics.set(vscode.Uri.file(file), list);
  };

  /** Writes `<stem>.chrome.json` next to the buffer (a save dialog when that folder is not
   *  writable) and says where. */
  const exportChrome = async (trace: Pick<LoadedTrace, 'file' | 'request'>): Promise<void> => {
    if (!trace.request) {
      void vscode.window.showErrorMessage(`Strata: ${path.basename(trace.file)} was opened without its region buffer (.bin next to it), ` +
        'which the Chrome export decodes: open the buffer instead.');
      return;
    }
    let a: StrataAddon;
    try { a = addon(); } catch (e) { void vscode.window.showErrorMessage(`Strata: ${(e as Error).message}`); return; }
    const launch = trace.request.launch;
    let out = `${stemOf(trace.request.buffer)}${launch === undefined ? '' : `.launch${launch}`}.chrome.json`;
    try { fs.accessSync(path.dirname(out), fs.constants.W_OK); } catch {
      const picked = await vscode.window.showSaveDialog({
        title: 'Strata: Export Chrome Trace', defaultUri: vscode.Uri.file(path.join(os.homedir(), path.basename(out))),
        filters: { 'Chrome / Perfetto trace': ['json'] },
      });
      if (!picked) return;
      out = picked.fsPath;
    }
    const req = addonRequest(trace.request);
    ctx.log.appendLine(`[regions] Chrome trace of ${JSON.stringify(req)} to ${out}`);
    try {
      await a.writeRegionChromeTrace(req, out);
    } catch (e) {
      void vscode.window.showErrorMessage(`Strata: the Chrome trace was not written: ${(e as Error).message}`);
      return;
    }
    void vscode.window.showInformationMessage(`Strata: wrote the Chrome trace to ${out} (open it in ui.perfetto.dev or chrome://tracing).`);
  };

  const pick = async (title: string, label: string, profilesOnly = false): Promise<string | undefined> => {
    const picked = await vscode.window.showOpenDialog({
      canSelectMany: false, openLabel: label, title,
      filters: profilesOnly ? { 'Strata profiles': ['strata'] } : { 'Region traces': ['bin', 'json', 'chrome_trace', 'strata'], 'All files': ['*'] },
      defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
    });
    return picked?.[0]?.fsPath;
  };

  const argPath = (arg: unknown): string | undefined =>
    arg instanceof vscode.Uri ? arg.fsPath : typeof arg === 'string' && arg ? arg : undefined;

  context.subscriptions.push(
    vscode.commands.registerCommand('strata.openRegionTrace', async (arg?: unknown) => {
      const file = argPath(arg) ?? await pick('Strata: Open Region Trace', 'Open Region Trace');
      if (file) await open(file);
    }),
    // The flame graph's "Region timeline" passes { profile, launches, kernel }; from the
    // palette: the profile of the viewer focused last, else a file dialog.
    vscode.commands.registerCommand('strata.showRegionTimeline', async (arg?: unknown) => {
      const o = arg && typeof arg === 'object' && !(arg instanceof vscode.Uri)
        ? arg as { profile?: unknown; kernel?: unknown; launch?: unknown; launches?: unknown } : {};
      const profile = (typeof o.profile === 'string' && o.profile) || argPath(arg) || ctx.currentProfile?.() ||
        await pick('Strata: Show Region Timeline of a profile recorded with --regions', 'Show Region Timeline', true);
      if (!profile) return;
      await open(profile, {
        kernel: typeof o.kernel === 'string' && o.kernel ? o.kernel : undefined,
        launch: Number.isInteger(o.launch) ? o.launch as number : undefined,
        launches: Array.isArray(o.launches) ? o.launches.filter((x): x is number => Number.isInteger(x)) : undefined,
      });
    }),
    vscode.commands.registerCommand('strata.exportRegionChromeTrace', async (arg?: unknown) => {
      const given = argPath(arg);
      const active = [...panels].find((p) => p.panel.active) ?? lastActive;
      if (!given && active) return exportChrome(active.trace);
      const file = given ?? await pick('Strata: Export Chrome Trace of a region buffer', 'Export');
      if (!file) return;
      try {
        const files = traceFilesFor(file, { exists: (p) => fs.existsSync(p), json: readJson });
        await exportChrome({ file, request: files.buffer ? { buffer: files.buffer, namesFile: files.namesFile, calibration: files.calibration, proton: files.proton } : undefined });
      } catch (e) {
        void vscode.window.showErrorMessage(`Strata: ${path.basename(file)}: ${(e as Error).message}`);
      }
    }),
    { dispose: () => { for (const p of panels) p.dispose(); } },
  );

  return {
    open,
    panels: () => [...panels].map((p) => ({ file: p.trace.file, launch: p.trace.launch, ready: p.isReady, lastSource: p.lastSource && { file: p.lastSource.file, line: p.lastSource.line } })),
  };
}
