// Pure conversion of the addon's view columns into the webview protocol's 'profile' message
// (webview/src/protocol.ts). No vscode import: unit-tested under plain node.
import type { MetricInfo, ViewColumns, ViewOptions } from '../../native/addon/index';
import { PROTOCOL_VERSION } from '../../webview/src/protocol';
import type { FlameData, HostMessage, MetricDescriptor, ViewName, WebviewMessage } from '../../webview/src/protocol';

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
  if (v.frames?.origin) cols.push(['frames.origin', v.frames.origin, m]);
  if (v.frames?.flags) cols.push(['frames.flags', v.frames.flags, m]);
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

/** Builds the 'profile' message. The typed arrays are passed as they are (VS Code transfers
 *  ArrayBuffers to the webview without JSON). */
export function toProfileMessage(view: ViewColumns, metrics: readonly MetricInfo[], title: string): ProfileMessage {
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
