// Analyzer findings → diagnostics, the pure part (no vscode import: unit-tested).
//
// The interface findings plug into (see extension/README.md "Diagnostics"): a FindingsSource
// takes an open profile and resolves to the findings document of docs/analyzers.md
// ({format_version: 1, findings: Finding[], errors: string[]}). The default source is the
// addon's profile.analyze(options); any other producer (a test, a future remote analyzer) only
// has to return the same document. diagnostics.ts turns the plain records below into
// vscode.Diagnostics in the "strata" collection (the Problems view).
import type { AnalyzeOptions, Finding, Findings, Profile } from '../../native/addon/index';

export type FindingsSource = (profile: Profile, options: AnalyzeOptions) => Promise<Findings>;

/** The addon's analyzers when this addon has them; otherwise no findings (an older addon). */
export const addonFindings: FindingsSource = async (profile, options) => {
  const analyze = (profile as Partial<Profile>).analyze;
  if (typeof analyze !== 'function') return { format_version: 1, findings: [], errors: [] };
  return analyze.call(profile, options);
};

export type Severity = 'error' | 'warning' | 'note';

/** One diagnostic, before it becomes a vscode.Diagnostic. */
export interface PlainDiagnostic {
  file: string;            // the file to put it on: the finding's source file (as resolved), or the profile
  line: number;            // 0-based; 0 for a finding without a line
  severity: Severity;
  message: string;
  code: string;            // the rule id
  related: { file: string; line: number; message: string }[];   // the call path, root side first
}

/** Groups findings by file. `resolve` maps a recorded path to the editor's path (undefined: the
 *  file is not here — the finding then goes on the profile file, with the recorded location in
 *  its message, so that it is not lost). Findings without a source file also go on the profile. */
export function findingsToDiagnostics(
  doc: Pick<Findings, 'findings'>, profilePath: string, resolve: (recorded: string) => string | undefined,
): Map<string, PlainDiagnostic[]> {
  const out = new Map<string, PlainDiagnostic[]>();
  const add = (d: PlainDiagnostic) => {
    let list = out.get(d.file);
    if (!list) out.set(d.file, list = []);
    list.push(d);
  };
  for (const f of doc.findings ?? []) {
    if (!f || typeof f.message !== 'string') continue;
    const loc = f.location;
    const recorded = loc && loc.file ? loc.file : '';
    const file = recorded ? resolve(recorded) : undefined;
    const related: PlainDiagnostic['related'] = [];
    for (const fr of f.path ?? []) {
      if (!fr.file) continue;
      const r = resolve(fr.file);
      if (r) related.push({ file: r, line: Math.max(0, (fr.line || 1) - 1), message: `${fr.kind} ${fr.name}` });
    }
    let message = f.message;
    if (recorded && !file) message += ` (at ${recorded}${loc.line ? `:${loc.line}` : ''}, not found here)`;
    add({
      file: file ?? profilePath,
      line: file && loc.line > 0 ? loc.line - 1 : 0,
      severity: severityOf(f),
      message,
      code: f.rule || 'strata',
      related,
    });
  }
  return out;
}

function severityOf(f: Finding): Severity {
  return f.severity === 'error' || f.severity === 'warning' ? f.severity : 'note';
}
