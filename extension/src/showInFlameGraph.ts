// "Show in flame graph": a quick-fix action on every Strata diagnostic that brings the profile's
// viewer forward with the frames of the diagnostic's line outlined (the same outline the
// cursor → frame navigation uses).
import * as vscode from 'vscode';

export const SHOW_IN_FLAME_GRAPH = 'strata.showInFlameGraph';

export class ShowInFlameGraphActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  provideCodeActions(doc: vscode.TextDocument, _range: vscode.Range, ctx: vscode.CodeActionContext): vscode.CodeAction[] {
    const out: vscode.CodeAction[] = [];
    for (const d of ctx.diagnostics) {
      if (d.source !== 'strata') continue;
      const action = new vscode.CodeAction('Show in flame graph', vscode.CodeActionKind.QuickFix);
      action.diagnostics = [d];
      action.command = { command: SHOW_IN_FLAME_GRAPH, title: 'Show in flame graph',
        arguments: [doc.uri.fsPath, d.range.start.line + 1] };
      out.push(action);
    }
    return out;
  }
}
