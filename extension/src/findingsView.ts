// The "Strata Findings" view (Explorer): every analyzer finding of the analyzed profile
// (findingTree.ts), those on a source line and those attached to the profile itself (no source
// line here), with their evidence, call path and the other call paths merged into them. A click
// opens a finding's or a frame's line, or the profile's viewer for a finding on the profile.
import * as vscode from 'vscode';
import { findingsSummary, type FindingIcon, type FindingTarget, type FindingTreeNode } from './findingTree';

export const OPEN_FINDING_TARGET = 'strata.openFindingTarget';

const ICONS: Record<FindingIcon, vscode.ThemeIcon> = {
  error: new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground')),
  warning: new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground')),
  note: new vscode.ThemeIcon('info', new vscode.ThemeColor('problemsInfoIcon.foreground')),
  evidence: new vscode.ThemeIcon('graph'),
  path: new vscode.ThemeIcon('list-tree'),
  frame: new vscode.ThemeIcon('debug-stackframe'),
};

export interface FindingsViewState {
  profile: string | undefined;
  message: string | undefined;
  /** The findings as listed: label, description, and their children's labels (one level down). */
  findings: { label: string; description: string; place: 'line' | 'profile'; children: { label: string; description: string; children: number }[] }[];
}

export class FindingsView implements vscode.TreeDataProvider<FindingTreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<FindingTreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private profile: string | undefined;
  private nodes: FindingTreeNode[] = [];
  readonly view: vscode.TreeView<FindingTreeNode>;

  constructor() {
    this.view = vscode.window.createTreeView('strata.findings', { treeDataProvider: this, showCollapseAll: true });
  }

  /** The findings of `profile` (undefined: none analyzed). */
  show(profile: string | undefined, nodes: FindingTreeNode[]): void {
    this.profile = profile;
    this.nodes = nodes;
    this.view.message = profile ? findingsSummary(nodes, profile) : undefined;
    this.changed.fire(undefined);
  }

  state(): FindingsViewState {
    return {
      profile: this.profile, message: this.view.message,
      findings: this.nodes.map((n) => ({
        label: n.label, description: n.description ?? '', place: n.place?.kind ?? 'profile',
        children: n.children.map((c) => ({ label: c.label, description: c.description ?? '', children: c.children.length })),
      })),
    };
  }

  getTreeItem(n: FindingTreeNode): vscode.TreeItem {
    const item = new vscode.TreeItem(n.label,
      n.children.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.description = n.description;
    item.tooltip = n.tooltip;
    item.iconPath = ICONS[n.icon];
    if (n.target) item.command = { command: OPEN_FINDING_TARGET, title: 'Open', arguments: [n.target] };
    return item;
  }

  getChildren(parent?: FindingTreeNode): FindingTreeNode[] {
    return parent ? parent.children : this.nodes;
  }

  dispose(): void {
    this.changed.dispose();
    this.view.dispose();
  }
}

/** Opens what a finding or frame points at: its source line, or the profile's viewer. */
export async function openFindingTarget(target: FindingTarget): Promise<void> {
  if (target.kind === 'profile') {
    await vscode.commands.executeCommand('strata.showViewer');
    return;
  }
  const pos = new vscode.Position(target.line, 0);
  await vscode.window.showTextDocument(vscode.Uri.file(target.file), { selection: new vscode.Range(pos, pos), preview: true });
}

export function registerFindingsView(context: vscode.ExtensionContext): FindingsView {
  const view = new FindingsView();
  context.subscriptions.push(view, vscode.commands.registerCommand(OPEN_FINDING_TARGET, (t: FindingTarget) => openFindingTarget(t)));
  return view;
}
