// Strata VS Code extension: wires the parts together. Commands (run and profile, open, line
// heat, show viewer), the `strata` launch type, the profile viewer (webview), the profiles view,
// line heat, the status bar item, analyzer diagnostics, and cursor ↔ frame navigation.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { AddonMissingError, loadAddon, type StrataAddon } from './addon';
import { StrataDiagnostics } from './diagnostics';
import { SHOW_IN_FLAME_GRAPH, ShowInFlameGraphActions } from './showInFlameGraph';
import { LAUNCH_TYPE, StrataConfigurationProvider, strataLaunchConfigs } from './launch/provider';
import { LineHeatController } from './lineHeat';
import { ProfileViewer, type ViewerState } from './panel';
import { ProfilesTree } from './profilesTree';
import { registerRegionTrace, type RegionTraceApi } from './regions/openRegionTrace';
import { runRecord, specFromLaunch, specFromSettings, stopAllRuns, type RecordSpec } from './run';
import { disposeHighlight } from './source';
import { ProfileStatusBar } from './statusBar';

/** Returned from activate() for tests and other extensions. */
export interface StrataApi {
  openProfile(file: string): Promise<void>;
  viewers(): ViewerState[];
  /** The viewer whose profile drives line heat, the status bar and the diagnostics. */
  currentProfile(): string | undefined;
  lineHeat(): ReturnType<LineHeatController['state']>;
  diagnostics(): ReturnType<StrataDiagnostics['state']>;
  profiles(): string[];
  /** In-kernel region traces (timeline panels). */
  regionTraces: RegionTraceApi;
}

let log: vscode.OutputChannel;

export function activate(context: vscode.ExtensionContext): StrataApi {
  log = vscode.window.createOutputChannel('Strata');
  context.subscriptions.push(log);
  // Resolve symlinks: run from the repository through a link in an extensions folder, the
  // repo build (../build) is found relative to the real folder.
  let extensionDir = context.extensionUri.fsPath;
  try { extensionDir = fs.realpathSync(extensionDir); } catch { /* keep */ }
  const viewers = new Set<ProfileViewer>();

  const addon = (): StrataAddon => loadAddon(extensionDir);
  const regionTraces = registerRegionTrace(context, {
    extensionDir, extensionUri: context.extensionUri, log, currentProfile: () => current?.profilePath,
  });

  const lineHeat = new LineHeatController(log);
  const statusBar = new ProfileStatusBar();
  const diagnostics = new StrataDiagnostics(log);
  const profilesTree = new ProfilesTree(addon, log);
  context.subscriptions.push(lineHeat, statusBar, diagnostics, profilesTree,
    vscode.window.registerTreeDataProvider('strata.profiles', profilesTree));

  // The "current" profile: the viewer focused last. Line heat, the status bar item and the
  // diagnostics follow it; with several viewers open, the one the user looked at last wins.
  let current: ProfileViewer | undefined;
  let analyzed: string | undefined;
  const setCurrent = (v: ProfileViewer | undefined) => {
    current = v;
    const profile = v?.openProfile;
    statusBar.show(profile ? v!.profilePath : undefined, profile?.meta(), lineHeat.isEnabled);
    void lineHeat.setProfile(profile, v?.profilePath);
    if (!profile) {
      analyzed = undefined;
      diagnostics.clear();
    } else if (analyzed !== v!.profilePath) {
      analyzed = v!.profilePath;
      void diagnostics.update(profile, v!.profilePath);
    }
  };

  const makeViewer = (panel: vscode.WebviewPanel, file: string, a: StrataAddon): ProfileViewer => {
    const v = new ProfileViewer(panel, file, a, context.extensionUri, log, (x) => {
      viewers.delete(x);
      if (current === x) setCurrent([...viewers].pop());
    });
    viewers.add(v);
    v.onDidLoad(() => {
      // A reloaded file: its heat and findings are recomputed.
      lineHeat.forget(v.profilePath);
      if (analyzed === v.profilePath) analyzed = undefined;
      if (panel.active || !current || current === v) setCurrent(v);
      syncCursor();
    });
    panel.onDidChangeViewState((e) => { if (e.webviewPanel.active && current !== v) setCurrent(v); });
    return v;
  };

  // Cursor → frames: the line under the cursor of the active editor is outlined in every viewer.
  let cursorTimer: NodeJS.Timeout | undefined;
  const syncCursor = () => {
    if (cursorTimer) clearTimeout(cursorTimer);
    cursorTimer = setTimeout(() => {
      cursorTimer = undefined;
      const e = vscode.window.activeTextEditor;
      if (!e) return;   // a webview has the focus: keep the outline
      const file = e.document.uri.scheme === 'file' ? e.document.uri.fsPath : undefined;
      const line = e.selection.active.line + 1;
      for (const v of viewers) v.highlightSource(file, line);
    }, 120);
  };
  context.subscriptions.push(
    vscode.window.onDidChangeTextEditorSelection((e) => { if (e.textEditor === vscode.window.activeTextEditor) syncCursor(); }),
    vscode.window.onDidChangeActiveTextEditor(() => syncCursor()),
    { dispose: () => { if (cursorTimer) clearTimeout(cursorTimer); } },
  );

  /** Opens `file` in a new viewer panel; the notification carries the core's one-line error. */
  const openProfile = async (file: string): Promise<void> => {
    let a: StrataAddon;
    try {
      a = addon();
    } catch (e) {
      void vscode.window.showErrorMessage(`Strata: ${(e as Error).message}`);
      return;
    }
    let profile;
    try {
      profile = await a.open(file);
    } catch (e) {
      const msg = (e as Error).message ?? String(e);
      log.appendLine(`[open] ${file}: ${msg}`);
      void vscode.window.showErrorMessage(`Strata: ${path.basename(file)}: ${msg}`);
      return;
    }
    for (const v of viewers) {
      if (v.profilePath === file) v.panel.dispose();   // replace an older view of the same file
    }
    const panel = vscode.window.createWebviewPanel('strata.viewer', `Strata: ${path.basename(file)}`,
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
      { enableScripts: true, retainContextWhenHidden: false });
    const viewer = makeViewer(panel, file, a);
    try {
      await viewer.load(profile);
    } catch (e) {
      void vscode.window.showErrorMessage(`Strata: ${(e as Error).message}`);
    }
  };

  context.subscriptions.push(vscode.commands.registerCommand('strata.openProfile', async (arg?: unknown) => {
    let uri: vscode.Uri | undefined;
    if (arg instanceof vscode.Uri) uri = arg;
    else if (typeof arg === 'string' && arg) uri = vscode.Uri.file(arg);
    if (!uri) {
      const picked = await vscode.window.showOpenDialog({
        canSelectMany: false,
        openLabel: 'Open Profile',
        title: 'Strata: Open Profile',
        filters: { 'Strata profiles': ['strata'], 'All files': ['*'] },
        defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
      });
      uri = picked?.[0];
    }
    if (!uri) return;
    await openProfile(uri.fsPath);
  }));

  // The Python file shown last: "Run and Profile" from the viewer (a webview) re-runs it.
  let lastFile: string | undefined;
  const track = (e: vscode.TextEditor | undefined) => {
    if (e && e.document.uri.scheme === 'file' && (e.document.languageId === 'python' || /\.pyw?$/i.test(e.document.uri.fsPath))) {
      lastFile = e.document.uri.fsPath;
    }
  };
  track(vscode.window.activeTextEditor);
  context.subscriptions.push(vscode.window.onDidChangeActiveTextEditor(track));

  /** Runs one recording, then opens its profile and says how the target ended. */
  const runAndOpen = async (spec: RecordSpec): Promise<void> => {
    const result = await runRecord({ extensionDir, log }, spec);
    profilesTree.refreshSoon();
    if (!result.profile) {
      const why = result.lastError ?? `the program ${result.how}`;
      const text = /^no profile was written/.test(why) ? why : `no profile was written: ${why}`;
      const pick = await vscode.window.showErrorMessage(`Strata: ${text}`, 'Show Output');
      if (pick) log.show();
      return;
    }
    await openProfile(result.profile);
    if (result.cancelled) {
      void vscode.window.showInformationMessage(`Strata: profiling was stopped; the profile covers the run until then.`);
    } else if (result.code !== 0) {
      let how = `the program ${result.how}`;
      try {
        const p = await addon().open(result.profile);
        const exit = p.meta().exit;
        p.close();
        if (exit) how = `the program ${exit}`;
      } catch { /* keep the exit code's description */ }
      const pick = await vscode.window.showWarningMessage(`Strata: ${how}. The profile was opened.`, 'Show Output');
      if (pick) log.show();
    } else {
      void vscode.window.setStatusBarMessage(`Strata: the program exited normally (${path.basename(result.profile)})`, 5000);
    }
  };

  // The `strata` launch type: VS Code resolves launch.json and its variables, we run.
  const launchProvider = new StrataConfigurationProvider(async (_config, folder, resolved) => {
    await runAndOpen(specFromLaunch({ extensionDir, log }, folder, resolved));
  }, log);
  context.subscriptions.push(vscode.debug.registerDebugConfigurationProvider(LAUNCH_TYPE, launchProvider));

  /** Starts a launch.json configuration by name through VS Code (variables substituted there). */
  const startConfig = async (folder: vscode.WorkspaceFolder | undefined, name: string): Promise<void> => {
    const ok = await vscode.debug.startDebugging(folder, name);
    if (!ok) log.appendLine(`[launch] "${name}" did not start (see the notification)`);
  };

  const runFromSettings = async (uri?: vscode.Uri): Promise<void> => {
    let spec: RecordSpec;
    try {
      spec = await specFromSettings({ extensionDir, log }, uri, lastFile);
    } catch (e) {
      void vscode.window.showErrorMessage(`Strata: ${(e as Error).message}`);
      return;
    }
    await runAndOpen(spec);
  };

  // "Strata: Run and Profile": a file (explorer / editor title) runs it; a configuration name
  // (string or {config}) runs that launch.json entry; otherwise, with `strata` configurations in
  // launch.json, a picker (current file or one of them); without any, the current file.
  context.subscriptions.push(vscode.commands.registerCommand('strata.runAndProfile', async (arg?: unknown) => {
    if (arg instanceof vscode.Uri) return runFromSettings(arg);
    const configs = strataLaunchConfigs();
    const wanted = typeof arg === 'string' ? arg : (arg && typeof arg === 'object' && typeof (arg as { config?: unknown }).config === 'string')
      ? (arg as { config: string }).config : undefined;
    if (wanted !== undefined) {
      const hit = configs.find((c) => c.config.name === wanted);
      if (!hit) {
        void vscode.window.showErrorMessage(`Strata: there is no "strata" launch configuration named "${wanted}" in launch.json.`);
        return;
      }
      return startConfig(hit.folder, hit.config.name);
    }
    if (configs.length === 0) return runFromSettings();
    type Item = vscode.QuickPickItem & { run: () => Promise<void> };
    const activeName = vscode.window.activeTextEditor?.document.uri.scheme === 'file'
      ? path.basename(vscode.window.activeTextEditor.document.uri.fsPath) : lastFile ? path.basename(lastFile) : undefined;
    const command = vscode.workspace.getConfiguration('strata').get<unknown>('command');
    const hasCommand = (Array.isArray(command) && command.length > 0) || (typeof command === 'string' && command.trim() !== '');
    const items: Item[] = [
      {
        label: hasCommand ? '$(terminal) strata.command' : `$(file) Current file${activeName ? `: ${activeName}` : ''}`,
        description: hasCommand ? 'from the settings' : 'with strata.pythonPath',
        run: () => runFromSettings(),
      },
      ...configs.map((c): Item => ({
        label: `$(debug-alt) ${c.config.name}`,
        description: typeof c.config.program === 'string' ? c.config.program : typeof c.config.module === 'string' ? `-m ${c.config.module}` : '',
        detail: c.folder && (vscode.workspace.workspaceFolders?.length ?? 0) > 1 ? c.folder.name : undefined,
        run: () => startConfig(c.folder, c.config.name),
      })),
    ];
    const pick = await vscode.window.showQuickPick(items, { title: 'Strata: Run and Profile', placeHolder: 'What to profile' });
    if (pick) await pick.run();
  }));

  context.subscriptions.push(
    vscode.commands.registerCommand('strata.toggleLineHeat', () => {
      const on = lineHeat.toggle();
      statusBar.show(current?.openProfile ? current.profilePath : undefined, current?.openProfile?.meta(), on);
      void vscode.window.setStatusBarMessage(`Strata: line heat ${on ? 'on' : 'off'}`, 3000);
    }),
    vscode.commands.registerCommand('strata.showViewer', () => {
      if (current) current.reveal();
      else void vscode.commands.executeCommand('strata.openProfile');
    }),
    vscode.commands.registerCommand('strata.refreshProfiles', () => profilesTree.refresh()),
    // From a diagnostic: the analyzed profile's viewer, with the frames of that line outlined.
    vscode.languages.registerCodeActionsProvider({ scheme: 'file' }, new ShowInFlameGraphActions(),
      { providedCodeActionKinds: ShowInFlameGraphActions.kinds }),
    vscode.commands.registerCommand(SHOW_IN_FLAME_GRAPH, async (file?: unknown, line?: unknown) => {
      const editor = vscode.window.activeTextEditor;
      const f = typeof file === 'string' ? file : editor?.document.uri.fsPath;
      const l = typeof line === 'number' ? line : (editor ? editor.selection.active.line + 1 : 0);
      const target = [...viewers].find((v) => v.profilePath === analyzed) ?? current;
      if (!target) { void vscode.window.showInformationMessage('Strata: no profile is open.'); return; }
      target.reveal();
      target.highlightSource(f, l);
    }),
  );

  // *.strata files open in the viewer (custom read-only editor).
  context.subscriptions.push(vscode.window.registerCustomEditorProvider('strata.profile', {
    openCustomDocument: (uri: vscode.Uri) => ({ uri, dispose: () => undefined }),
    resolveCustomEditor: async (doc: vscode.CustomDocument, panel: vscode.WebviewPanel) => {
      let a: StrataAddon;
      try {
        a = addon();
      } catch (e) {
        panel.webview.html = `<p>${(e as AddonMissingError).message.replace(/</g, '&lt;')}</p>`;
        return;
      }
      const viewer = makeViewer(panel, doc.uri.fsPath, a);
      try {
        await viewer.load();
      } catch (e) {
        void vscode.window.showErrorMessage(`Strata: ${(e as Error).message}`);
      }
    },
  } satisfies vscode.CustomReadonlyEditorProvider, { supportsMultipleEditorsPerDocument: true }));

  context.subscriptions.push({ dispose: () => { for (const v of viewers) v.dispose(); disposeHighlight(); } });

  // The demo (and anyone scripting a session) names a profile to show as soon as VS Code is up.
  const startup = vscode.workspace.getConfiguration('strata').get<string>('openOnStartup', '').trim();
  if (startup) {
    if (fs.existsSync(startup)) void openProfile(startup);
    else log.appendLine(`[startup] strata.openOnStartup: no such file: ${startup}`);
  }

  return {
    openProfile,
    viewers: () => [...viewers].map((v) => v.state()),
    currentProfile: () => current?.profilePath,
    lineHeat: () => lineHeat.state(),
    diagnostics: () => diagnostics.state(),
    profiles: () => profilesTree.listed(),
    regionTraces,
  };
}

export function deactivate(): void {
  // Profiled programs run in their own process groups: do not leave them behind.
  stopAllRuns();
}
