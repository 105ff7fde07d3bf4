// The "Strata Profiles" view (Explorer): every *.strata file of the workspace, newest first,
// described by its duration and command (the profile's meta, read through the addon). Refreshed
// when profiles appear, change or go (a FileSystemWatcher); a click opens the viewer.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StrataAddon } from './addon';
import { profileDescription } from './profileDescription';

interface ProfileEntry {
  uri: vscode.Uri;
  mtime: number;
  description: string;
  tooltip: string;
  error?: string;
}

export class ProfilesTree implements vscode.TreeDataProvider<ProfileEntry>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ProfileEntry | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  /** Meta per file, keyed by path; valid while mtime and size are unchanged. */
  private readonly metaCache = new Map<string, { mtime: number; size: number; description: string; tooltip: string; error?: string }>();
  private readonly subs: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private lastList: string[] = [];

  constructor(private readonly addon: () => StrataAddon, private readonly log: vscode.OutputChannel) {
    const watcher = vscode.workspace.createFileSystemWatcher('**/*.strata');
    this.subs.push(watcher,
      watcher.onDidCreate(() => this.refreshSoon()),
      watcher.onDidChange(() => this.refreshSoon()),
      watcher.onDidDelete(() => this.refreshSoon()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.refreshSoon()));
  }

  /** A profile written by Strata (a rename into place) shows up as create+change: refresh once. */
  refreshSoon(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.timer = undefined; this.changed.fire(undefined); }, 300);
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  /** File names as last listed, newest first (for tests). */
  listed(): string[] { return [...this.lastList]; }

  getTreeItem(e: ProfileEntry): vscode.TreeItem {
    const item = new vscode.TreeItem(path.basename(e.uri.fsPath), vscode.TreeItemCollapsibleState.None);
    item.resourceUri = e.uri;
    item.description = e.description;
    item.tooltip = e.tooltip;
    item.iconPath = new vscode.ThemeIcon(e.error ? 'warning' : 'flame');
    item.contextValue = 'strata.profileFile';
    item.command = { command: 'strata.openProfile', title: 'Open Profile', arguments: [e.uri] };
    return item;
  }

  async getChildren(parent?: ProfileEntry): Promise<ProfileEntry[]> {
    if (parent || !vscode.workspace.workspaceFolders?.length) return [];
    const uris = await vscode.workspace.findFiles('**/*.strata', '**/node_modules/**', 1000);
    const entries: ProfileEntry[] = [];
    for (const uri of uris) {
      let st: fs.Stats;
      try { st = await fs.promises.stat(uri.fsPath); } catch { continue; }   // gone meanwhile
      if (!st.isFile()) continue;
      const info = await this.describe(uri.fsPath, st);
      entries.push({ uri, mtime: st.mtimeMs, ...info });
    }
    entries.sort((a, b) => b.mtime - a.mtime || a.uri.fsPath.localeCompare(b.uri.fsPath));
    this.lastList = entries.map((e) => path.basename(e.uri.fsPath));
    return entries;
  }

  private async describe(file: string, st: fs.Stats): Promise<{ description: string; tooltip: string; error?: string }> {
    const c = this.metaCache.get(file);
    if (c && c.mtime === st.mtimeMs && c.size === st.size) return c;
    let out: { description: string; tooltip: string; error?: string };
    try {
      const p = await this.addon().open(file);
      let meta: Record<string, string>;
      try { meta = p.meta(); } finally { p.close(); }
      const when = new Date(st.mtimeMs).toLocaleString();
      out = {
        description: profileDescription(meta),
        tooltip: `${file}\n${when}${meta.command ? `\n${meta.command}` : ''}${meta.exit ? `\n${meta.exit}` : ''}`,
      };
    } catch (e) {
      // Not a profile, a newer format version, or the addon missing: the core's one line.
      const msg = (e as Error).message ?? String(e);
      this.log.appendLine(`[profiles] ${file}: ${msg}`);
      out = { description: msg, tooltip: `${file}\n${msg}`, error: msg };
    }
    this.metaCache.set(file, { mtime: st.mtimeMs, size: st.size, ...out });
    return out;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
  }
}

/** The Strata Profiles view (Explorer) and its refresh command. */
export function registerProfilesTree(context: vscode.ExtensionContext, addon: () => StrataAddon, log: vscode.OutputChannel): ProfilesTree {
  const tree = new ProfilesTree(addon, log);
  context.subscriptions.push(tree, vscode.window.registerTreeDataProvider('strata.profiles', tree),
    vscode.commands.registerCommand('strata.refreshProfiles', () => tree.refresh()));
  return tree;
}
