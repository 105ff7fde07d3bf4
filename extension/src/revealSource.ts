// Jump to source: open a frame's file at its line and highlight the line briefly.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SourceLocation } from '../../native/addon/index';
import { localSourceFor } from './remote/sourceMap';

const HIGHLIGHT_MS = 4000;

let decoration: vscode.TextEditorDecorationType | undefined;
let clearPending: (() => void) | undefined;

function highlightType(): vscode.TextEditorDecorationType {
  decoration ??= vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('editor.findMatchHighlightBackground'),
    borderColor: new vscode.ThemeColor('editor.findMatchHighlightBorder'),
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.findMatchForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Center,
  });
  return decoration;
}

export function disposeHighlight(): void {
  clearPending?.();
  decoration?.dispose();
  decoration = undefined;
}

/** Highlights `line` (0-based) of `editor` for a few seconds or until the cursor leaves it. */
export function highlightLine(editor: vscode.TextEditor, line: number): void {
  clearPending?.();
  const type = highlightType();
  editor.setDecorations(type, [new vscode.Range(line, 0, line, 0)]);
  let done = false;
  const listeners: vscode.Disposable[] = [];
  const clear = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    for (const l of listeners) l.dispose();
    editor.setDecorations(type, []);
    if (clearPending === clear) clearPending = undefined;
  };
  const timer = setTimeout(clear, HIGHLIGHT_MS);
  listeners.push(vscode.window.onDidChangeTextEditorSelection((e) => {
    if (e.textEditor === editor && e.selections[0] && e.selections[0].active.line !== line) clear();
  }));
  clearPending = clear;
}

/** A file recorded on another machine or in another checkout: look for a unique workspace
 *  file with the same name whose path ends the same way. */
export async function findInWorkspace(file: string): Promise<vscode.Uri | undefined> {
  const mapped = localSourceFor(file);   // recorded on a remote host: its remote.pathMap
  if (mapped) return vscode.Uri.file(mapped);
  const base = path.basename(file);
  if (!base || !vscode.workspace.workspaceFolders?.length) return undefined;
  const glob = `**/${base.replace(/[[\]{}*?]/g, '?')}`;
  const found = await vscode.workspace.findFiles(glob, '**/node_modules/**', 20);
  if (found.length === 0) return undefined;
  // Prefer the candidate sharing the longest path suffix with the recorded path.
  const parts = file.split(/[\\/]/).reverse();
  let best: vscode.Uri | undefined;
  let bestScore = -1;
  let tie = false;
  for (const uri of found) {
    const q = uri.fsPath.split(/[\\/]/).reverse();
    let k = 0;
    while (k < parts.length && k < q.length && parts[k] === q[k]) k++;
    if (k > bestScore) { best = uri; bestScore = k; tie = false; } else if (k === bestScore) tie = true;
  }
  return tie ? undefined : best;
}

/** Opens `loc` in an editor beside the profile and highlights the line. Shows a notification
 *  when there is nothing to open. Returns the editor, if one was opened. */
export async function revealSource(loc: SourceLocation | null, frameName?: string): Promise<vscode.TextEditor | undefined> {
  if (!loc || !loc.file) {
    void vscode.window.showInformationMessage(`Strata: no source file is known for ${frameName ? `"${frameName}"` : 'this frame'}.`);
    return undefined;
  }
  // A path under a remote run's pathMap folder names the file on the host, even where the same
  // path happens to exist here: the mapped local file wins.
  const mapped = localSourceFor(loc.file);
  let uri: vscode.Uri | undefined = vscode.Uri.file(mapped ?? loc.file);
  if (!mapped && !fs.existsSync(loc.file)) {
    uri = await findInWorkspace(loc.file);
    if (!uri) {
      // Moved, renamed, or recorded on another machine: say so, and what was looked for.
      void vscode.window.showWarningMessage(
        `Strata: source file not found: ${loc.file}${loc.line ? `:${loc.line}` : ''} (frame "${loc.name}"). ` +
        `It was moved or the profile was recorded elsewhere, and no single file named ${path.basename(loc.file)} ` +
        `in the workspace matches it.`);
      return undefined;
    }
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  const line = Math.min(Math.max(loc.line, 1), Math.max(doc.lineCount, 1)) - 1;
  const range = new vscode.Range(line, 0, line, 0);
  const editor = await vscode.window.showTextDocument(doc, {
    viewColumn: vscode.ViewColumn.Beside,
    preserveFocus: false,
    preview: true,
    selection: range,
  });
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  if (loc.line > 0) highlightLine(editor, line);
  else void vscode.window.showInformationMessage(`Strata: the line of "${loc.name}" is not known; opened ${path.basename(uri.fsPath)}.`);
  return editor;
}
