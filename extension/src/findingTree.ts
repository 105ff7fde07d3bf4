// What the Strata Findings view shows of the analyzed profile's findings, the pure part (no
// vscode import: unit-tested). Every finding is listed: on its source line, or attached to the
// profile when it has no line here (findingDiagnostics.placeFinding); under it its evidence, its
// call path and the other call paths merged into it, each frame opening its line.
import type { Finding, FindingFrame, Findings } from '../../native/addon/index';
import { formatValue } from '../../webview/src/model/format';
import { frameText, pathSummary, placeFinding, severityOf, type FindingPlace, type Resolve, type Severity } from './findingDiagnostics';

/** What a click on a node opens: a source line here, or the profile's viewer. */
export type FindingTarget = { kind: 'source'; file: string; line: number } | { kind: 'profile'; profile: string };  // line 0-based

export type FindingIcon = Severity | 'evidence' | 'path' | 'frame';

export interface FindingTreeNode {
  label: string;
  description?: string;
  tooltip?: string;
  icon: FindingIcon;
  target?: FindingTarget;
  /** A finding's own node: where it is shown (tests and the view's summary read it). */
  place?: FindingPlace;
  children: FindingTreeNode[];
}

/** "66%", "1.34 s", "12.3×", "4,589": an evidence value for people. */
export function evidenceText(value: number, unit: string): string {
  if (!Number.isFinite(value)) return String(value);
  if (unit === 'share') return `${(value * 100).toFixed(value >= 0.1 ? 0 : 1)}%`;
  if (unit === 'ratio') return `${Number(value.toPrecision(3))}×`;
  return formatValue(Number.isInteger(value) ? value : Number(value.toPrecision(4)), unit);
}

function placeText(place: FindingPlace): string {
  if (place.kind === 'line') return `${place.file.slice(place.file.lastIndexOf('/') + 1)}:${place.line + 1}`;
  const name = place.profile.slice(place.profile.lastIndexOf('/') + 1);
  return place.recorded
    ? `${name} · ${place.recorded.file.slice(place.recorded.file.lastIndexOf('/') + 1)}:${place.recorded.line} not found here`
    : `${name} · no source line`;
}

function frameNode(fr: FindingFrame, resolve: Resolve): FindingTreeNode {
  const file = fr.file && fr.line > 0 ? resolve(fr.file) : undefined;
  return {
    label: fr.name || '(unnamed)',
    description: fr.file ? `${fr.file.slice(fr.file.lastIndexOf('/') + 1)}${fr.line ? `:${fr.line}` : ''}` : fr.kind,
    tooltip: fr.file ? `${fr.kind} ${fr.name}\n${fr.file}${fr.line ? `:${fr.line}` : ''}${file ? '' : ' (not found here)'}` : `${fr.kind} ${fr.name}`,
    icon: 'frame',
    target: file ? { kind: 'source', file, line: fr.line - 1 } : undefined,
    children: [],
  };
}

function pathNode(label: string, path: readonly FindingFrame[], resolve: Resolve): FindingTreeNode {
  return { label, description: pathSummary(path), icon: 'path', children: path.map((fr) => frameNode(fr, resolve)) };
}

export function findingNode(f: Finding, profilePath: string, resolve: Resolve): FindingTreeNode {
  const place = placeFinding(f, profilePath, resolve);
  const children: FindingTreeNode[] = [];
  if (f.evidence?.length) {
    children.push({
      label: 'Evidence', icon: 'evidence',
      children: f.evidence.map((e) => ({ label: e.name, description: evidenceText(e.value, e.unit), icon: 'evidence', children: [] })),
    });
  }
  const others = f.other_paths ?? [];
  if (f.path?.length) children.push(pathNode(others.length ? `Call path 1 of ${others.length + 1}` : 'Call path', f.path, resolve));
  others.forEach((p, i) => children.push(pathNode(`Call path ${i + 2} of ${others.length + 1}`, p, resolve)));
  const where = place.kind === 'line' ? frameText(f.location) : placeText(place);
  return {
    label: `${f.rule}: ${f.message}`,
    description: placeText(place),
    tooltip: `${f.severity} [${f.rule}] ${where}\n\n${f.message}`,
    icon: severityOf(f),
    target: place.kind === 'line' ? { kind: 'source', file: place.file, line: place.line } : { kind: 'profile', profile: profilePath },
    place,
    children,
  };
}

/** The view's nodes for one findings document, in its order (most severe first). */
export function findingTree(doc: Pick<Findings, 'findings'>, profilePath: string, resolve: Resolve): FindingTreeNode[] {
  return (doc.findings ?? []).filter((f) => f && typeof f.message === 'string').map((f) => findingNode(f, profilePath, resolve));
}

/** "3 findings, 1 of them on the profile (no source line here)": the view's message. */
export function findingsSummary(nodes: readonly FindingTreeNode[], profilePath: string): string {
  const name = profilePath.slice(profilePath.lastIndexOf('/') + 1);
  if (!nodes.length) return `${name}: no findings`;
  const onProfile = nodes.filter((n) => n.place?.kind === 'profile').length;
  return `${name}: ${nodes.length} finding${nodes.length === 1 ? '' : 's'}` +
    (onProfile ? `, ${onProfile} on the profile itself (no source line here)` : '');
}
