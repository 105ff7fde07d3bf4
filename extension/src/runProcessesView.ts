// The "Strata Processes" view (Explorer): the processes of one recorded run as a tree by parent
// (pid, command, the process's CPU time, samples and GPU time), each opening its own profile, and
// "All N processes together" opening the run's merged view. It shows the run opened with
// "Strata: Open Run" (a folder, or a profile and the processes it started) and follows a
// profile opened on its own when its run has more than one process.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RunProcess } from '../../native/addon/index';
import type { StrataAddon } from './addon';
import { processDescription, processLabel, processTooltip, processTree, togetherLabel, type ProcessNode } from './runProcesses';

type Item = { together: true; count: number } | { together: false; node: ProcessNode };

export interface RunProcessesState {
  run: string | undefined;
  processes: { pid: number; parentPid: number; depth: number; label: string; description: string; path: string }[];
  error?: string;
}

export class RunProcessesView implements vscode.TreeDataProvider<Item>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Item | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private run: string | undefined;
  private list: RunProcess[] = [];
  private roots: ProcessNode[] = [];
  private error: string | undefined;
  private seq = 0;

  constructor(private readonly addon: () => StrataAddon, private readonly log: vscode.OutputChannel) {}

  /** Lists the run at `runPath`; resolves to how many processes it has (0: it failed). */
  async show(runPath: string): Promise<number> {
    const seq = ++this.seq;
    let list: RunProcess[] = [];
    let error: string | undefined;
    try {
      list = await this.addon().runProcesses(runPath);
    } catch (e) {
      error = (e as Error).message ?? String(e);
      this.log.appendLine(`[processes] ${runPath}: ${error}`);
    }
    if (seq !== this.seq) return list.length;
    this.run = runPath;
    this.list = list;
    this.roots = processTree(list);
    this.error = error;
    void vscode.commands.executeCommand('setContext', 'strata.hasRun', list.length > 0);
    this.changed.fire(undefined);
    if (error) void vscode.window.showErrorMessage(`Strata: ${path.basename(runPath)}: ${error}`);
    return list.length;
  }

  state(): RunProcessesState {
    return {
      run: this.run, error: this.error,
      processes: this.list.map((p) => ({ pid: p.pid, parentPid: p.parentPid, depth: p.depth,
        label: processLabel(p), description: processDescription(p), path: p.path })),
    };
  }

  getTreeItem(e: Item): vscode.TreeItem {
    if (e.together) {
      const item = new vscode.TreeItem(togetherLabel(e.count), vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon('type-hierarchy');
      item.tooltip = `${this.run}\nEvery process under one root, one process frame each`;
      item.contextValue = 'strata.runTogether';
      item.command = { command: 'strata.openRunTogether', title: 'Open All Processes Together', arguments: [this.run] };
      return item;
    }
    const p = e.node.process;
    const item = new vscode.TreeItem(processLabel(p),
      e.node.children.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    item.id = p.path;
    item.description = processDescription(p);
    item.tooltip = processTooltip(p, e.node.parent);
    item.resourceUri = vscode.Uri.file(p.path);
    item.iconPath = new vscode.ThemeIcon(p.depth === 0 ? 'flame' : 'debug-stackframe');
    item.contextValue = 'strata.runProcess';
    item.command = { command: 'strata.openProfile', title: 'Open Profile', arguments: [vscode.Uri.file(p.path)] };
    return item;
  }

  getChildren(parent?: Item): Item[] {
    if (!parent) {
      if (!this.list.length) return [];
      return [{ together: true, count: this.list.length }, ...this.roots.map((node) => ({ together: false as const, node }))];
    }
    return parent.together ? [] : parent.node.children.map((node) => ({ together: false as const, node }));
  }

  dispose(): void { this.changed.dispose(); }
}

export interface RunProcessesApi {
  state(): RunProcessesState;
  /** Lists the run at `runPath` in the view (what "Strata: Open Run" does before the merged view). */
  show(runPath: string): Promise<number>;
}

/** The Strata Processes view, "Strata: Open Run" and the item commands. */
export function registerRunProcesses(context: vscode.ExtensionContext, deps: {
  addon: () => StrataAddon; log: vscode.OutputChannel; openRun: (runPath: string) => Promise<void>;
}): RunProcessesApi & { follow(profilePath: string): void } {
  const view = new RunProcessesView(deps.addon, deps.log);
  const reveal = () => void vscode.commands.executeCommand('strata.runProcesses.focus');
  const openRun = async (runPath: string) => {
    if (await view.show(runPath) === 0) return;
    reveal();
    await deps.openRun(runPath);
  };
  context.subscriptions.push(view, vscode.window.registerTreeDataProvider('strata.runProcesses', view),
    vscode.commands.registerCommand('strata.openRun', async (arg?: unknown) => {
      let target = arg instanceof vscode.Uri ? arg.fsPath : typeof arg === 'string' ? arg : undefined;
      if (!target) {
        const picked = await vscode.window.showOpenDialog({
          canSelectFiles: false, canSelectFolders: true, canSelectMany: false, openLabel: 'Open Run',
          title: 'Strata: Open Run (a folder of profiles)', defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
        });
        target = picked?.[0]?.fsPath;
      }
      if (target) await openRun(target);
    }),
    vscode.commands.registerCommand('strata.openRunTogether', async (arg?: unknown) => {
      const target = arg instanceof vscode.Uri ? arg.fsPath : typeof arg === 'string' ? arg : view.state().run;
      if (target) await deps.openRun(target);
    }));
  return {
    state: () => view.state(),
    show: (p) => view.show(p),
    // A profile opened on its own: its run goes into the view when it started other processes
    // (a profile of a single process leaves the view as it was).
    follow: (profilePath: string) => {
      if (!fs.existsSync(profilePath)) return;
      void deps.addon().runProcesses(profilePath).then((list) => {
        if (list.length > 1 && view.state().run !== profilePath) void view.show(profilePath);
      }, () => undefined);
    },
  };
}
