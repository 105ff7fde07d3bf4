// Pure conversion of the addon's view columns into the webview protocol's 'profile' message
// (webview/src/protocol.ts). No vscode import: unit-tested under plain node.
import type { MetricInfo, SandwichColumns, ViewColumns, ViewOptions, ViewPart } from '../../native/addon/index';
import { PROTOCOL_VERSION } from '../../webview/src/protocol';
import type { FlameData, HostMessage, MetricDescriptor, NodePart, SandwichData, ViewName, WebviewMessage } from '../../webview/src/protocol';

export type ProfileMessage = Extract<HostMessage, { type: 'profile' }>;

export function isViewName(v: unknown): v is ViewName {
  return v === 'top-down' || v === 'bottom-up';
}

/** Index of the metric named `name`, else `fallback` (when valid), else 0. */
export function metricIndex(metrics: readonly MetricInfo[], name: string | undefined, fallback = 0): number {
  if (name) {
    const i = metrics.findIndex((m) => m.name === name);
    if (i >= 0) return i;
  }
  return fallback >= 0 && fallback < metrics.length ? fallback : 0;
}

/** The view options of a 'requestView' (v6 toggles), checked; what it leaves out stays as in `current`. */
export function viewOptions(m: Extract<WebviewMessage, { type: 'requestView' }>, current: ViewOptions): ViewOptions {
  const out: ViewOptions = { ...current };
  if (m.frames === 'python' || m.frames === 'all') out.frames = m.frames;
  if (typeof m.byFunction === 'boolean') out.byFunction = m.byFunction;
  return out;
}

/** The metrics a flame graph can be drawn by: additive ones with values in this profile (an
 *  attribute such as grid size or occupancy is shown per frame, never as a width). */
export function widthMetrics(metrics: readonly MetricInfo[], current: string): string[] {
  return metrics.filter((m) => (m.nature !== 'attribute' && (m.count ?? 1) > 0) || m.name === current).map((m) => m.name);
}

/** The panel title for a profile: "Strata: <file name>". */
export function profileTitle(path: string, meta: Record<string, string>): string {
  const base = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
  const cmd = meta.command ? ` — ${meta.command}` : '';
  return `${base}${cmd}`;
}

/** Checks the columns' shape (same lengths, preorder, frame indexes inside the frame table) so
 *  a broken view gives a readable error here instead of a blank webview. Returns the node count. */
export function checkColumns(v: ViewColumns): number {
  const n = v.parent.length;
  if (n === 0) throw new Error('the profile has no samples (the view is empty)');
  const m = v.frames?.kind?.length ?? 0;
  const cols: [string, ArrayLike<number> | undefined, number][] = [
    ['frame', v.frame, n], ['inclusive', v.inclusive, n], ['exclusive', v.exclusive, n],
    ['frames.kind', v.frames?.kind, m], ['frames.name', v.frames?.name, m], ['frames.file', v.frames?.file, m],
    ['frames.line', v.frames?.line, m], ['frames.module', v.frames?.module, m],
  ];
  if (v.node) cols.push(['node', v.node, n]);
  if (v.more) cols.push(['more', v.more, n]);
  if (v.frames?.origin) cols.push(['frames.origin', v.frames.origin, m]);
  if (v.frames?.flags) cols.push(['frames.flags', v.frames.flags, m]);
  if (v.frames?.fusedOffset) cols.push(['frames.fusedOffset', v.frames.fusedOffset, m + 1]);
  for (const [k, c, len] of cols) {
    if (!c || c.length !== len) throw new Error(`view column "${k}" has ${c ? c.length : 0} entries, expected ${len}`);
  }
  if (v.parent[0] !== -1) throw new Error('view: node 0 is not the root');
  for (let i = 1; i < n; i++) {
    if (v.parent[i] < 0 || v.parent[i] >= i) throw new Error(`view: node ${i} is not in preorder`);
  }
  for (let i = 0; i < n; i++) {
    if (v.frame[i] >= m) throw new Error(`view: node ${i} names frame ${v.frame[i]}, the frame table has ${m}`);
  }
  return n;
}

/** Builds the 'profile' message (`viewId`: which view of the host it is, for its parts). The
 *  typed arrays are passed as they are (VS Code transfers ArrayBuffers to the webview without
 *  JSON). */
export function toProfileMessage(view: ViewColumns, metrics: readonly MetricInfo[], title: string, viewId?: number): ProfileMessage {
  checkColumns(view);
  const viewName: ViewName = view.view === 'bottom-up' ? 'bottom-up' : 'top-down';
  const metric = view.metric || metrics[view.metricIndex]?.name || '';
  const unit = view.unit || metrics[view.metricIndex]?.unit || '';
  const data: FlameData = {
    view: viewName,
    metric,
    unit,
    total: Number.isFinite(view.total) ? view.total : view.inclusive[0],
    strings: view.strings.length > 0 ? view.strings : [''],
    frames: view.frames,
    parent: view.parent,
    frame: view.frame,
    inclusive: view.inclusive,
    exclusive: view.exclusive,
    frameFilter: view.frameFilter === 'python' ? 'python' : 'all',
    byFunction: view.byFunction === true,
  };
  // A part of the view: its nodes' ids, the children left out and their bound.
  if (view.node && view.more) Object.assign(data, { node: view.node, more: view.more, minValue: view.minValue ?? 0 });
  if (typeof view.nodes === 'number') data.nodes = view.nodes;
  if (viewId !== undefined) data.viewId = viewId;
  const metricInfo: MetricDescriptor[] = metrics.map((m) => ({ name: m.name, unit: m.unit, nature: m.nature === 'attribute' ? 'attribute' : 'additive', count: m.count ?? 0 }));
  return { type: 'profile', version: PROTOCOL_VERSION, title, metrics: widthMetrics(metrics, metric), metricInfo, data };
}

/** Frame names of the heaviest children of the root (for logs and tests). */
export function topFrames(view: ViewColumns, limit = 5): string[] {
  const out: { name: string; value: number }[] = [];
  for (let i = 1; i < view.parent.length; i++) {
    if (view.parent[i] === 0) out.push({ name: view.strings[view.frames.name[view.frame[i]]] ?? '', value: view.inclusive[i] });
  }
  out.sort((a, b) => b.value - a.value);
  return out.slice(0, limit).map((x) => x.name);
}

/** The part under one node ('nodes' message), checked like a view's columns. */
export function toNodePart(part: ViewPart): NodePart {
  const n = part.parent.length;
  for (const [k, c] of [['frame', part.frame], ['inclusive', part.inclusive], ['exclusive', part.exclusive], ['node', part.node], ['more', part.more]] as const) {
    if (!c || c.length !== n) throw new Error(`view part column "${k}" has ${c ? c.length : 0} entries, expected ${n}`);
  }
  if (n === 0 || part.parent[0] !== -1) throw new Error('view part: node 0 is not its root');
  return { parent: part.parent, frame: part.frame, inclusive: part.inclusive, exclusive: part.exclusive, node: part.node, more: part.more, minValue: part.minValue };
}

/** The sandwich of a function as the webview's data: two top-down trees over one frame table. */
export function toSandwichData(sw: SandwichColumns): SandwichData {
  const tree = (t: SandwichColumns['callers']): FlameData => ({
    view: 'top-down', metric: sw.metric, unit: sw.unit, total: t.inclusive[0] ?? 0,
    strings: sw.strings.length > 0 ? sw.strings : [''], frames: sw.frames,
    parent: t.parent, frame: t.frame, inclusive: t.inclusive, exclusive: t.exclusive,
    frameFilter: sw.frameFilter === 'python' ? 'python' : 'all', byFunction: true,
  });
  const out: SandwichData = { calls: sw.calls, callers: tree(sw.callers), callees: tree(sw.callees) };
  if (sw.partial) out.partial = sw.partial;
  return out;
}
