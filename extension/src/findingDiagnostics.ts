// Analyzer findings → diagnostics, the pure part (no vscode import: unit-tested).
//
// The interface findings plug into (see extension/README.md "Diagnostics"): a FindingsSource
// takes an open profile and resolves to the findings document of docs/analyzers.md
// ({format_version: 1, profile, findings: Finding[], errors: string[]}). The default source is
// the addon's profile.analyze(options); any other producer (a test, a future remote analyzer)
// only has to return the same document. diagnostics.ts turns the plain records below into
// vscode.Diagnostics in the "strata" collection (the Problems view); findingTree.ts lists every
// finding, those attached to the profile too, in the Strata Findings view.
import type { AnalyzeOptions, Finding, FindingFrame, Findings, Profile } from '../../native/addon/index';

export type FindingsSource = (profile: Profile, options: AnalyzeOptions) => Promise<Findings>;

/** The addon's analyzers when this addon has them; otherwise no findings (an older addon). */
export const addonFindings: FindingsSource = async (profile, options) => {
  const analyze = (profile as Partial<Profile>).analyze;
  if (typeof analyze !== 'function') return { format_version: 1, profile: '', findings: [], errors: [] };
  return analyze.call(profile, options);
};

export type Severity = 'error' | 'warning' | 'note';

/** Maps a recorded path to the editor's path; undefined: the file is not here. */
export type Resolve = (recorded: string) => string | undefined;

/** Where a finding is shown: on a line of a source file here, or on the profile itself (no source
 *  line was recorded, or the recorded file is not here). A finding on the profile is listed in
 *  the Strata Findings view under the profile, never put on a made-up line of the binary file. */
export type FindingPlace =
  | { kind: 'line'; file: string; line: number }   // line 0-based
  | { kind: 'profile'; profile: string; recorded?: { file: string; line: number } };   // recorded: not found here

/** A related location of a diagnostic: a frame of the call path, or another call path merged
 *  into the finding. */
export interface PlainRelated { file: string; line: number; message: string }   // line 0-based

/** One diagnostic, before it becomes a vscode.Diagnostic. */
export interface PlainDiagnostic {
  file: string;            // the finding's source file, as resolved here
  line: number;            // 0-based
  severity: Severity;
  message: string;
  code: string;            // the rule id
  related: PlainRelated[]; // the call path (root side first), then the other call paths
}

/** At most this many related locations per diagnostic: the call path's deepest frames first
 *  give way to the other call paths (each of those is one entry). */
export const MAX_RELATED = 20;
const MAX_OTHER_PATHS = 8;

export function placeFinding(f: Finding, profilePath: string, resolve: Resolve): FindingPlace {
  const loc = f.location;
  if (loc && loc.file && loc.line > 0) {
    const file = resolve(loc.file);
    if (file) return { kind: 'line', file, line: loc.line - 1 };
    return { kind: 'profile', profile: profilePath, recorded: { file: loc.file, line: loc.line } };
  }
  return { kind: 'profile', profile: profilePath };
}

/** "step (train.py:30)", or the name alone when the frame has no line. */
export function frameText(fr: FindingFrame): string {
  if (!fr.file || !fr.line) return fr.name;
  return `${fr.name} (${fr.file.slice(fr.file.lastIndexOf('/') + 1)}:${fr.line})`;
}

/** A call path by its last frames, where merged paths differ: "… › main (train.py:12) › step (train.py:31)".
 *  Frames with a source line stand for the path (the interpreter's and libraries' unnamed native
 *  frames between them say nothing), and its last frame; all frames where fewer than two have one. */
export function pathSummary(path: readonly FindingFrame[], last = 3): string {
  const lined = path.filter((fr, i) => (fr.file && fr.line > 0) || i === path.length - 1);
  const shown = lined.length >= 2 ? lined : path;
  const tail = shown.slice(-last).map(frameText).join(' › ');
  return shown.length > last || shown.length < path.length ? `… › ${tail}` : tail;
}

/** The deepest frame of a path with a source line here, or undefined. */
function deepestHere(path: readonly FindingFrame[], resolve: Resolve): PlainRelated | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const fr = path[i];
    if (!fr.file || !(fr.line > 0)) continue;
    const file = resolve(fr.file);
    if (file) return { file, line: fr.line - 1, message: '' };
  }
  return undefined;
}

/** The call path's frames with a source line here, then one entry per other call path merged into
 *  the finding (at its deepest line here, else at the finding's own line). */
export function relatedOf(f: Finding, at: { file: string; line: number }, resolve: Resolve): PlainRelated[] {
  const frames: PlainRelated[] = [];
  for (const fr of f.path ?? []) {
    if (!fr.file || !(fr.line > 0)) continue;
    const r = resolve(fr.file);
    if (r) frames.push({ file: r, line: fr.line - 1, message: `${fr.kind} ${fr.name}` });
  }
  const others = (f.other_paths ?? []).slice(0, MAX_OTHER_PATHS);
  const more = (f.other_paths?.length ?? 0) - others.length;
  const paths: PlainRelated[] = others.map((p, i) => {
    const where = deepestHere(p, resolve) ?? { ...at, message: '' };
    const n = f.other_paths.length + 1;
    return { ...where, message: `also on call path ${i + 2} of ${n}: ${pathSummary(p)}${i === others.length - 1 && more > 0 ? ` (and ${more} more)` : ''}` };
  });
  // The deepest frames are the ones nearest the finding: drop from the root side.
  const room = Math.max(0, MAX_RELATED - paths.length);
  return [...frames.slice(Math.max(0, frames.length - room)), ...paths];
}

/** Diagnostics of the findings on a source line here, grouped by file. The others (no source
 *  line, or the file is not here) are the profile's: placeFinding says so, the findings view
 *  lists them. */
export function findingsToDiagnostics(doc: Pick<Findings, 'findings'>, profilePath: string, resolve: Resolve): Map<string, PlainDiagnostic[]> {
  const out = new Map<string, PlainDiagnostic[]>();
  for (const f of doc.findings ?? []) {
    if (!f || typeof f.message !== 'string') continue;
    const place = placeFinding(f, profilePath, resolve);
    if (place.kind !== 'line') continue;
    let list = out.get(place.file);
    if (!list) out.set(place.file, list = []);
    list.push({
      file: place.file, line: place.line, severity: severityOf(f), message: f.message, code: f.rule || 'strata',
      related: relatedOf(f, place, resolve),
    });
  }
  return out;
}

export function severityOf(f: Finding): Severity {
  return f.severity === 'error' || f.severity === 'warning' ? f.severity : 'note';
}
