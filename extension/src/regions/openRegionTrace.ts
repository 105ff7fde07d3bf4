// "Strata: Open Region Trace" (strata.openRegionTrace) and "Strata: Export Region Trace as
// Chrome Trace" (strata.exportRegionChromeTrace): pick a region buffer (.bin) or a decoded trace
// (.json), decode the buffer with `strata regions --format json`, show it as a timeline; write
// `strata regions --format chrome -o FILE`. A profile recorded with `strata record --regions`
// carries its captured launches' buffers: "Strata: Show Region Timeline" (strata.showRegionTimeline,
// also the flame graph's "Region timeline" on a kernel with regions) lists them with
// `strata regions PROFILE --list`, picks one and decodes it with `--launch N`. Every failure is one
// notification; nothing waits without a time limit.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RegionTraceData } from '../../../webview/src/protocol';
import { resolveCliPath } from '../paths';
import { cliNames, parseNamesFile, splitLocation, type RegionName } from './names';
import { launchesOf, launchItem, listArgs, parseLaunches, regionsArgs, runRegions, type DecodeRequest } from './regionsCli';
import { LoadedTrace, RegionTracePanel } from './regionTracePanel';
import { classifyJson, stemOf, traceFilesFor } from './traceInput';
import { scanWorkspaceMarkers } from './workspaceMarkers';

export interface RegionTraceContext {
  extensionDir: string;
  extensionUri: vscode.Uri;
  log: vscode.OutputChannel;
  /** The profile of the viewer focused last ("Show Region Timeline" without arguments). */
  currentProfile?: () => string | undefined;
}

/** Which captured launch of a profile to show: `launch` (an index), else those of `kernel`
 *  (a quick pick when several). */
export interface LaunchChoice { launch?: number; kernel?: string }

export interface RegionTraceApi {
  open(file: string, choice?: LaunchChoice): Promise<void>;
  /** Open panels (tests): file (and the profile's launch), whether the webview asked for its
   *  data, last source opened. */
  panels(): { file: string; launch?: number; ready: boolean; lastSource: { file: string; line: number } | null }[];
}

function cliPath(ctx: RegionTraceContext): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  const cli = resolveCliPath(vscode.workspace.getConfiguration('strata').get<string>('cliPath'), ctx.extensionDir, {
    exists: (p) => fs.existsSync(p), home: os.homedir(), workspaceFolder: folder?.uri.fsPath, env: process.env,
  });
  if (path.isAbsolute(cli) && !fs.existsSync(cli)) {
    throw new Error(`the Strata CLI was not found at ${cli}. Set "strata.cliPath" or build Strata (scripts/build.sh).`);
  }
  return cli;
}

function readJson(p: string): unknown {
  try { return JSON.parse(fs.readFileSync(p, 'utf8')); } catch { return undefined; }
}

/** Marker locations that came with the decoded names (names embedded in a module, or a
 *  profile's region frames): the CLI gives them as `location` ("file:line"), older CLIs left
 *  `@file:line` in the name. They go to the names table; the name is shown without them. */
function takeEmbeddedLocations(data: RegionTraceData, names: Map<number, RegionName>): void {
  for (const iv of data.intervals) {
    if (typeof iv.name !== 'string') continue;
    const n = typeof iv.location === 'string' ? splitLocation(`${iv.name}@${iv.location}`)
      : iv.name.includes('@') ? splitLocation(iv.name) : undefined;
    if (!n?.file) continue;
    iv.name = n.name;
    if (!names.get(iv.region)?.file) names.set(iv.region, n);
  }
}

export function registerRegionTrace(context: vscode.ExtensionContext, ctx: RegionTraceContext): RegionTraceApi {
  const panels = new Set<RegionTracePanel>();
  let lastActive: RegionTracePanel | undefined;

  /** The launch of a profile to decode: `choice.launch`, the only one (of `choice.kernel`), or
   *  the user's pick; undefined when the pick is cancelled. */
  const chooseLaunch = async (file: string, choice: LaunchChoice): Promise<number | undefined> => {
    if (choice.launch !== undefined) return choice.launch;
    const cli = cliPath(ctx);
    ctx.log.appendLine(`[regions] ${cli} ${listArgs(file).join(' ')}`);
    const all = parseLaunches(await runRegions(cli, listArgs(file)));
    const launches = launchesOf(all, choice.kernel);
    if (!launches.length) throw new Error(`no captured launch of ${choice.kernel} (${all.length} of other kernels).`);
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
    let names = new Map<number, RegionName>();
    let cyclesPerNs: number | undefined;
    if (files.namesFile) {
      try {
        const src = parseNamesFile(fs.readFileSync(files.namesFile, 'utf8'));
        names = src.names;
        cyclesPerNs = src.cyclesPerNs;
        ctx.log.appendLine(`[regions] names from ${files.namesFile}: ${names.size} regions${cyclesPerNs ? `, ${cyclesPerNs} cycles/ns` : ''}`);
      } catch (e) {
        void vscode.window.showWarningMessage(`Strata: ${path.basename(files.namesFile)}: ${(e as Error).message}; regions are shown by id.`);
      }
    }
    const request: DecodeRequest | undefined = files.buffer
      ? { buffer: files.buffer, names: cliNames(names) || undefined, cyclesPerNs, calibration: files.calibration, proton: files.proton, launch } : undefined;
    const scanning = scanWorkspaceMarkers((l) => ctx.log.appendLine(l));
    let data: RegionTraceData;
    if (files.decoded) {
      data = readJson(files.decoded) as RegionTraceData;
    } else {
      const cli = cliPath(ctx);
      const args = regionsArgs(request!, 'json');
      ctx.log.appendLine(`[regions] ${cli} ${args.join(' ')}`);
      const out = await vscode.window.withProgress({
        location: vscode.ProgressLocation.Notification, title: `Strata: decoding ${path.basename(file)}`,
      }, () => runRegions(cli, args));
      let parsed: unknown;
      try { parsed = JSON.parse(out); } catch { throw new Error('strata regions did not print JSON (is the CLI older than the extension?)'); }
      if (classifyJson(parsed) !== 'trace') throw new Error('strata regions printed no lanes and intervals.');
      data = parsed as RegionTraceData;
    }
    takeEmbeddedLocations(data, names);
    const title = launch === undefined ? undefined : `${path.basename(file)} · launch ${launch}`;
    return { file, launch, title, data, names, namesDir: path.dirname(files.namesFile ?? file), request, scans: await scanning };
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
    panel.onDidChangeViewState((e) => { if (e.webviewPanel.active) lastActive = p; });
    ctx.log.appendLine(`[regions] ${trace.title ?? path.basename(file)}: ${trace.data.lanes.length} lanes, ${trace.data.intervals.length} intervals`);
  };

  /** Writes `<stem>.chrome.json` next to the buffer (a save dialog when that folder is not
   *  writable) and says where. */
  const exportChrome = async (trace: Pick<LoadedTrace, 'file' | 'request'>): Promise<void> => {
    if (!trace.request) {
      void vscode.window.showErrorMessage(`Strata: ${path.basename(trace.file)} was opened without its region buffer (.bin next to it), ` +
        'which the Chrome export decodes: open the buffer instead.');
      return;
    }
    let cli: string;
    try { cli = cliPath(ctx); } catch (e) { void vscode.window.showErrorMessage(`Strata: ${(e as Error).message}`); return; }
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
    const args = regionsArgs(trace.request, 'chrome', out);
    ctx.log.appendLine(`[regions] ${cli} ${args.join(' ')}`);
    try {
      await runRegions(cli, args);
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
    // The flame graph's "Region timeline" passes { profile, kernel }; from the palette: the
    // profile of the viewer focused last, else a file dialog.
    vscode.commands.registerCommand('strata.showRegionTimeline', async (arg?: unknown) => {
      const o = arg && typeof arg === 'object' && !(arg instanceof vscode.Uri) ? arg as { profile?: unknown; kernel?: unknown; launch?: unknown } : {};
      const profile = (typeof o.profile === 'string' && o.profile) || argPath(arg) || ctx.currentProfile?.() ||
        await pick('Strata: Show Region Timeline of a profile recorded with --regions', 'Show Region Timeline', true);
      if (!profile) return;
      await open(profile, {
        kernel: typeof o.kernel === 'string' && o.kernel ? o.kernel : undefined,
        launch: Number.isInteger(o.launch) ? o.launch as number : undefined,
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
        const names = files.namesFile ? parseNamesFile(fs.readFileSync(files.namesFile, 'utf8')) : undefined;
        await exportChrome({ file, request: files.buffer ? { buffer: files.buffer, names: names ? cliNames(names.names) || undefined : undefined, cyclesPerNs: names?.cyclesPerNs, calibration: files.calibration, proton: files.proton } : undefined });
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
