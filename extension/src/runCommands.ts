// Running and profiling: "Strata: Run and Profile" (a file, a launch.json configuration by name,
// or a pick), the `strata` launch type, then the profile opened and how the target ended said.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StrataAddon } from './addon';
import { LAUNCH_TYPE, StrataConfigurationProvider, strataLaunchConfigs } from './launch/provider';
import type { ProfilesTree } from './profilesTree';
import { runRecord, specFromLaunch, specFromSettings, type RecordSpec } from './recordRun';

export function registerRunCommands(context: vscode.ExtensionContext, deps: {
  extensionDir: string; log: vscode.OutputChannel; addon: () => StrataAddon; profilesTree: ProfilesTree;
  openProfile: (file: string) => Promise<void>;
}): void {
  const { extensionDir, log, addon, profilesTree, openProfile } = deps;

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
}
