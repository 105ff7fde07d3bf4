// Analyzer findings of the open profile as diagnostics ("strata" collection: the Problems view
// and squiggles on the source lines). The findings come from a FindingsSource (findingDiagnostics.ts:
// by default the addon's profile.analyze()), configured by the strata.analyze.* settings. Every
// finding, those attached to the profile (no source line here) too, goes to the Strata Findings
// view through onDidChangeFindings.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AnalyzeOptions, Findings, Profile } from '../../native/addon/index';
import { addonFindings, findingsToDiagnostics, type FindingsSource, type PlainDiagnostic } from './findingDiagnostics';
import { findingTree, type FindingTreeNode } from './findingTree';
import { findInWorkspace } from './revealSource';

const SEVERITY: Record<PlainDiagnostic['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  note: vscode.DiagnosticSeverity.Information,
};

/** strata.analyze.* → the analyzers' options (rule files relative to the workspace folder). */
export function analyzeOptions(): AnalyzeOptions | undefined {
  const cfg = vscode.workspace.getConfiguration('strata.analyze');
  if (!cfg.get<boolean>('enabled', true)) return undefined;
  const ws = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const rules = (cfg.get<string[]>('rules', []) ?? []).filter((r) => typeof r === 'string' && r.trim())
    .map((r) => {
      const p = ws ? r.replace(/\$\{workspaceFolder\}/g, ws) : r;
      return ws && !path.isAbsolute(p) ? path.join(ws, p) : p;
    });
  const thresholds: Record<string, number> = {};
  for (const [k, v] of Object.entries(cfg.get<Record<string, unknown>>('thresholds', {}) ?? {})) {
    if (typeof v === 'number' && Number.isFinite(v)) thresholds[k] = v;
  }
  const disabled = (cfg.get<string[]>('disabled', []) ?? []).filter((r) => typeof r === 'string');
  return { rules, thresholds, disabled };
}

export class StrataDiagnostics implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection('strata');
  private readonly findingsChanged = new vscode.EventEmitter<{ profile: string | undefined; nodes: FindingTreeNode[] }>();
  /** Every finding of the analyzed profile (none: profile undefined), for the Strata Findings view. */
  readonly onDidChangeFindings = this.findingsChanged.event;
  private seq = 0;
  private shownFor: string | undefined;
  private last: { profile: string; findings: number; errors: string[] } | undefined;
  private onProfile = 0;
  /** Findings per profile and options: a profile is analyzed once, not on every focus change. */
  private readonly cache = new Map<string, { options: string; findings: Promise<Findings> }>();
  /** Analyzer runs started (for tests: focus changes must not add any). */
  runs = 0;

  constructor(private readonly log: vscode.OutputChannel, private readonly source: FindingsSource = addonFindings) {}

  /** Replaces the diagnostics with the findings of `profile` (none while analyzing is off). */
  async update(profile: Profile, profilePath: string): Promise<void> {
    const seq = ++this.seq;
    const options = analyzeOptions();
    if (!options) { this.clear(); return; }
    let doc: Findings;
    const started = Date.now();
    // The file's stamp: a profile rewritten in place (a new run to the same path) is analyzed again.
    const key = JSON.stringify(options) + fileStamp(profilePath);
    let cached = this.cache.get(profilePath);
    const fresh = !cached || cached.options !== key;
    if (!cached || cached.options !== key) {
      this.runs++;
      this.log.appendLine(`[analyze] ${path.basename(profilePath)}: running the analyzers`);
      cached = { options: key, findings: this.source(profile, options) };
      this.cache.set(profilePath, cached);
    }
    try {
      doc = await cached.findings;
    } catch (e) {
      if (this.cache.get(profilePath) === cached) this.cache.delete(profilePath);   // retried next time
      if (seq !== this.seq) return;
      const msg = (e as Error).message ?? String(e);
      this.log.appendLine(`[analyze] ${profilePath}: ${msg}`);
      this.collection.clear();
      // A wrong setting (unknown threshold key, unreadable rule file): say which, once per profile.
      if (this.shownFor !== profilePath) {
        this.shownFor = profilePath;
        void vscode.window.showErrorMessage(`Strata: the analyzers could not run: ${msg} (settings strata.analyze.*)`);
      }
      return;
    }
    if (seq !== this.seq) return;
    // Recorded paths → files here (moved checkouts are matched by name in the workspace).
    const resolved = new Map<string, string | undefined>();
    const want = new Set<string>();
    for (const f of doc.findings ?? []) {
      if (f.location?.file) want.add(f.location.file);
      for (const p of [f.path ?? [], ...(f.other_paths ?? [])]) for (const fr of p) if (fr.file) want.add(fr.file);
    }
    for (const file of want) {
      if (fs.existsSync(file)) resolved.set(file, file);
      else resolved.set(file, (await findInWorkspace(file).catch(() => undefined))?.fsPath);
    }
    if (seq !== this.seq) return;
    const resolve = (f: string) => resolved.get(f);
    const byFile = findingsToDiagnostics(doc, profilePath, resolve);
    this.collection.clear();
    for (const [file, list] of byFile) {
      this.collection.set(vscode.Uri.file(file), list.map((d) => toDiagnostic(d)));
    }
    const nodes = findingTree(doc, profilePath, resolve);
    this.onProfile = nodes.filter((n) => n.place?.kind === 'profile').length;
    this.findingsChanged.fire({ profile: profilePath, nodes });
    const errors = doc.errors ?? [];
    this.last = { profile: profilePath, findings: doc.findings?.length ?? 0, errors };
    this.log.appendLine(`[analyze] ${path.basename(profilePath)}: ${doc.findings?.length ?? 0} findings ${fresh ? `in ${Date.now() - started} ms` : '(cached)'}` +
      (errors.length ? `; rule errors: ${errors.join('; ')}` : ''));
    if (errors.length && this.shownFor !== profilePath) {
      this.shownFor = profilePath;
      void vscode.window.showWarningMessage(`Strata: rule file errors (those rules were skipped): ${errors.join('; ')}`);
    }
  }

  /** The findings of `profilePath` being computed or computed (undefined: not analyzed). */
  findingsOf(profilePath: string): Promise<Findings> | undefined {
    return this.cache.get(profilePath)?.findings;
  }

  /** Drops the cached findings of a profile (its file changed, or its last viewer closed). */
  forget(profilePath: string): void {
    this.cache.delete(profilePath);
  }

  clear(): void {
    ++this.seq;
    this.collection.clear();
    this.last = undefined;
    this.onProfile = 0;
    this.findingsChanged.fire({ profile: undefined, nodes: [] });
  }

  /** files: diagnostics per source file; related: their related locations (call paths), per
   *  file; onProfile: findings attached to the profile (no source line here), not in Problems. */
  state(): { profile?: string; findings: number; errors: string[]; files: Record<string, number>; related: Record<string, number[]>;
    onProfile: number; runs: number; cached: string[] } {
    const files: Record<string, number> = {};
    const related: Record<string, number[]> = {};
    this.collection.forEach((uri, list) => {
      files[uri.fsPath] = list.length;
      related[uri.fsPath] = list.map((d) => d.relatedInformation?.length ?? 0);
    });
    return { profile: this.last?.profile, findings: this.last?.findings ?? 0, errors: this.last?.errors ?? [], files, related,
      onProfile: this.onProfile, runs: this.runs, cached: [...this.cache.keys()] };
  }

  dispose(): void {
    this.collection.dispose();
    this.findingsChanged.dispose();
  }
}

function toDiagnostic(d: PlainDiagnostic): vscode.Diagnostic {
  const range = new vscode.Range(d.line, 0, d.line, Number.MAX_SAFE_INTEGER);
  const diag = new vscode.Diagnostic(range, d.message, SEVERITY[d.severity]);
  diag.source = 'strata';
  diag.code = d.code;
  diag.relatedInformation = d.related.map((r) =>
    new vscode.DiagnosticRelatedInformation(new vscode.Location(vscode.Uri.file(r.file), new vscode.Position(r.line, 0)), r.message));
  return diag;
}

/** Modification time and size of a file ("" when it cannot be read). */
export function fileStamp(file: string): string {
  try {
    const st = fs.statSync(file);
    return `:${st.mtimeMs}:${st.size}`;
  } catch {
    return '';
  }
}
