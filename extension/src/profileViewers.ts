// The open profile viewers: "Strata: Open Profile", `.strata` files in the custom editor,
// "Strata: Show Viewer", "Show in flame graph" from a diagnostic, the cursor's line outlined in
// every viewer; the profile named by strata.openOnStartup.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AddonMissingError, StrataAddon } from './addon';
import { escapeHtml, ProfileViewer, type ViewerState } from './profileViewer';
import type { ProfileFeedback } from './profileFeedback';
import { SHOW_IN_FLAME_GRAPH, ShowInFlameGraphActions } from './showInFlameGraph';
import { disposeHighlight } from './revealSource';
import { stragglerRanks } from './rankRun';
import type { OpenRankRun } from './rankTimelineCommand';

export interface ProfileViewers {
  /** Opens `file` in a new viewer panel; the notification carries the core's one-line error. */
  open(file: string): Promise<void>;
  /** Opens every process of the run at `runPath` (a folder, or a profile and the processes it
   *  started) in one viewer: one process frame each (the core's merged run). A folder whose
   *  profiles carry ranks (a distributed job) opens as one profile with a rank dimension (the
   *  addon's openRankRun): merged by calling context, with the ranks panel and per-rank spread. */
  openRun(runPath: string): Promise<void>;
  states(): ViewerState[];
  /** The viewer whose profile drives line heat, the status bar and the diagnostics. */
  currentProfile(): string | undefined;
  /** The distributed job's run at `runPath` open in a viewer, else (no path) the one the viewer
   *  focused last shows; undefined when there is none. */
  rankRun(runPath?: string): OpenRankRun | undefined;
}

export function registerProfileViewers(context: vscode.ExtensionContext, deps: {
  addon: () => StrataAddon; log: vscode.OutputChannel; feedback: ProfileFeedback;
  /** A single profile was loaded into a viewer (the processes view follows its run). */
  onProfileLoaded?: (profilePath: string) => void;
}): ProfileViewers {
  const { addon, log, feedback } = deps;
  const viewers = new Set<ProfileViewer>();
  let current: ProfileViewer | undefined;
  // Line heat, the status bar and the findings follow single profiles and distributed jobs' runs
  // (one profile with a rank dimension, cached by its folder); not a run's processes side by
  // side, whose merged view has a process frame per process.
  const followed = (v: ProfileViewer) => !v.together || v.ranked;
  const setCurrent = (v: ProfileViewer | undefined) => {
    if (v && !followed(v)) return;
    current = v;
    feedback.follow(v);
    // "Strata: Show Rank Timeline" is offered while the viewer focused last shows a distributed job's run.
    void vscode.commands.executeCommand('setContext', 'strata.rankRunShown', !!v?.ranked);
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

  const makeViewer = (panel: vscode.WebviewPanel, file: string, a: StrataAddon, together = false): ProfileViewer => {
    const v = new ProfileViewer(panel, file, a, context.extensionUri, log, (x) => {
      viewers.delete(x);
      if (current === x) setCurrent([...viewers].filter(followed).pop());
      if (followed(x) && ![...viewers].some((o) => o.profilePath === x.profilePath && followed(o))) feedback.closed(x.profilePath);
    }, together);
    viewers.add(v);
    v.onDidLoad(() => {
      if (!together) deps.onProfileLoaded?.(v.profilePath);
      if (followed(v)) feedback.reloaded(v.profilePath);
      if (panel.active || !current || current === v) setCurrent(v);
      syncCursor();
      // A distributed job's stragglers (the analyzers' findings of its run) marked in its ranks panel.
      if (v.ranked) void feedback.diagnostics.findingsOf(v.profilePath)?.then((doc) => v.setStragglers(stragglerRanks(doc)), () => undefined);
    });
    if (together) {
      const sub = feedback.diagnostics.onDidChangeFindings(({ profile }) => {
        if (v.ranked && profile === v.profilePath) void feedback.diagnostics.findingsOf(profile)?.then((doc) => v.setStragglers(stragglerRanks(doc)), () => undefined);
      });
      panel.onDidDispose(() => sub.dispose());
    }
    v.onDidChangeView(() => { if (current === v) feedback.metricChanged(v); });
    panel.onDidChangeViewState((e) => { if (e.webviewPanel.active && current !== v) setCurrent(v); });
    return v;
  };

  const openIn = async (file: string, together: boolean): Promise<void> => {
    let a: StrataAddon;
    try {
      a = addon();
    } catch (e) {
      void vscode.window.showErrorMessage(`Strata: ${(e as Error).message}`);
      return;
    }
    let profile;
    try {
      profile = await (together ? openTogether(a, file) : a.open(file));
    } catch (e) {
      const msg = (e as Error).message ?? String(e);
      log.appendLine(`[open${together ? ' run' : ''}] ${file}: ${msg}`);
      void vscode.window.showErrorMessage(`Strata: ${path.basename(file)}: ${msg}`);
      return;
    }
    for (const v of viewers) {
      // Replace an older view of the same file (or run).
      if (v.profilePath === file && v.together === together) v.panel.dispose();
    }
    const panel = vscode.window.createWebviewPanel('strata.viewer', `Strata: ${path.basename(file)}`,
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
      { enableScripts: true, retainContextWhenHidden: false });
    const viewer = makeViewer(panel, file, a, together);
    try {
      await viewer.load(profile);
    } catch (e) {
      void vscode.window.showErrorMessage(`Strata: ${(e as Error).message}`);
    }
  };

  // A folder of a distributed job's profiles: one profile with a rank dimension; a folder without
  // rank meta (or a profile and the processes it started): the processes side by side.
  const openTogether = async (a: StrataAddon, file: string) => {
    if (!fs.statSync(file, { throwIfNoEntry: false })?.isDirectory()) return a.openRun(file);
    try {
      return await a.openRankRun(file);
    } catch (e) {
      const msg = (e as Error).message ?? String(e);
      if (!/no rank meta/.test(msg)) throw e;   // two runs in one folder, a rank claimed twice: say so
      return a.openRun(file);
    }
  };

  const open = (file: string) => openIn(file, false);
  const openRun = (runPath: string) => openIn(runPath, true);

  context.subscriptions.push(
    vscode.window.onDidChangeTextEditorSelection((e) => { if (e.textEditor === vscode.window.activeTextEditor) syncCursor(); }),
    vscode.window.onDidChangeActiveTextEditor(() => syncCursor()),
    { dispose: () => { if (cursorTimer) clearTimeout(cursorTimer); } },
    vscode.commands.registerCommand('strata.openProfile', async (arg?: unknown) => {
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
      await open(uri.fsPath);
    }),
    vscode.commands.registerCommand('strata.showViewer', () => {
      if (current) current.reveal();
      else void vscode.commands.executeCommand('strata.openProfile');
    }),
    // From a diagnostic: the analyzed profile's viewer, with the frames of that line outlined.
    vscode.languages.registerCodeActionsProvider({ scheme: 'file' }, new ShowInFlameGraphActions(),
      { providedCodeActionKinds: ShowInFlameGraphActions.kinds }),
    vscode.commands.registerCommand(SHOW_IN_FLAME_GRAPH, async (file?: unknown, line?: unknown) => {
      const editor = vscode.window.activeTextEditor;
      const f = typeof file === 'string' ? file : editor?.document.uri.fsPath;
      const l = typeof line === 'number' ? line : (editor ? editor.selection.active.line + 1 : 0);
      const target = [...viewers].find((v) => v.profilePath === feedback.analyzed) ?? current;
      if (!target) { void vscode.window.showInformationMessage('Strata: no profile is open.'); return; }
      target.reveal();
      target.highlightSource(f, l);
    }),
    // *.strata files open in the viewer (custom read-only editor).
    vscode.window.registerCustomEditorProvider('strata.profile', {
      openCustomDocument: (uri: vscode.Uri) => ({ uri, dispose: () => undefined }),
      resolveCustomEditor: async (doc: vscode.CustomDocument, panel: vscode.WebviewPanel) => {
        let a: StrataAddon;
        try {
          a = addon();
        } catch (e) {
          panel.webview.html = `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'"></head>` +
            `<body><p>${escapeHtml((e as AddonMissingError).message)}</p></body></html>`;
          return;
        }
        const viewer = makeViewer(panel, doc.uri.fsPath, a);
        try {
          await viewer.load();
        } catch (e) {
          void vscode.window.showErrorMessage(`Strata: ${(e as Error).message}`);
        }
      },
    } satisfies vscode.CustomReadonlyEditorProvider, { supportsMultipleEditorsPerDocument: true }),
    { dispose: () => { for (const v of viewers) v.dispose(); disposeHighlight(); } },
  );

  const rankRun = (runPath?: string): OpenRankRun | undefined => {
    const v = runPath ? [...viewers].find((x) => x.profilePath === runPath && x.ranked) : current;
    const r = v?.rankRunShown;
    return v && r ? { path: v.profilePath, ...r } : undefined;
  };

  return { open, openRun, states: () => [...viewers].map((v) => v.state()), currentProfile: () => current?.profilePath, rankRun };
}

/** The demo (and anyone scripting a session) names a profile to show as soon as VS Code is up. */
export function openStartupProfile(viewers: ProfileViewers, log: vscode.OutputChannel): void {
  const startup = vscode.workspace.getConfiguration('strata').get<string>('openOnStartup', '').trim();
  if (!startup) return;
  if (fs.existsSync(startup)) void viewers.open(startup);
  else log.appendLine(`[startup] strata.openOnStartup: no such file: ${startup}`);
}
