// Strata VS Code extension: commands, the profile viewer (webview), jump to source.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { AddonMissingError, loadAddon, type StrataAddon } from './addon';
import { ProfileViewer, type ViewerState } from './panel';
import { runAndProfile, stopAllRuns } from './run';
import { disposeHighlight } from './source';

/** Returned from activate() for tests and other extensions. */
export interface StrataApi {
  openProfile(file: string): Promise<void>;
  viewers(): ViewerState[];
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

  const makeViewer = (panel: vscode.WebviewPanel, file: string, a: StrataAddon): ProfileViewer => {
    const v = new ProfileViewer(panel, file, a, context.extensionUri, log, (x) => viewers.delete(x));
    viewers.add(v);
    return v;
  };

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

  context.subscriptions.push(vscode.commands.registerCommand('strata.runAndProfile', async (arg?: unknown) => {
    let result;
    try {
      result = await runAndProfile({ extensionDir, log }, arg instanceof vscode.Uri ? arg : undefined, lastFile);
    } catch (e) {
      void vscode.window.showErrorMessage(`Strata: ${(e as Error).message}`);
      return;
    }
    if (!result) return;
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
    }
  }));

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
  };
}

export function deactivate(): void {
  // Profiled programs run in their own process groups: do not leave them behind.
  stopAllRuns();
}
