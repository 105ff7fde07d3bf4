// Diff mode of the webview (protocol v8 'diff'): run B's flame graph coloured by the change of
// each frame against its matched path in run A (model/diffColors.ts), a table of the largest
// gains and losses (a row zooms the graph to its frame and opens its line), and the kernels that
// appeared or vanished. The host (the core, through the addon) did the matching and ranking. A
// large diff arrives as its part wider than half a pixel; the parts a zoom needs, and the nodes
// on the way to a row's frame, are asked for as a profile's are (partRequests.ts).
import type { DiffData, DiffRowData, FlameData, HostMessage } from './protocol';
import { DiffMatch } from './protocol';
import type { HostApi } from './host';
import { formatPercent, formatValue } from './model/format';
import { normalizeFlameData } from './model/normalize';
import { changeOf, DIFF_LEGEND, diffNodeColors, largestChange } from './model/diffColors';
import type { DiffNodes } from './model/diffColors';
import { LoadedView } from './model/viewParts';
import { PartRequests } from './partRequests';
import { FlameView } from './view/flameView';
import { el } from './ui/dom';
import type { Theme } from './ui/theme';
import type { Tooltip } from './ui/tooltip';

type DiffMessage = Extract<HostMessage, { type: 'diff' }>;

/** Rows the table shows. */
const ROWS_SHOWN = 30;
const KERNELS_SHOWN = 10;

function signed(v: number, unit: string): string { return `${v < 0 ? '−' : '+'}${formatValue(Math.abs(v), unit)}`; }

export class DiffApp {
  readonly root: HTMLElement;
  readonly view: FlameView;
  private header: HTMLElement;
  private table: HTMLElement;
  private kernels: HTMLElement;
  private data: DiffData | null = null;
  /** Nodes the diff message itself brought (B's first part), before any part came in (tests). */
  firstNodes = 0;
  /** B's view as far as the host has sent it, with A's value and the match per node. */
  private parts: PartRequests;
  /** What the table shows, in order (tests): frame name, user line, change, B's node (host id). */
  shownRows: { name: string; file: string; line: number; change: number; match: string; node: number }[] = [];

  constructor(theme: Theme, tooltip: Tooltip, private host: HostApi) {
    this.view = new FlameView(theme, tooltip, {
      openSource: (node) => this.openSource(node),
      focusChanged: () => {},
      tooltipRows: (node) => this.tooltipRows(node),
      needNodes: (needs) => this.parts.need(needs),
      fillNodes: (needs) => this.parts.fill(needs),
    });
    this.parts = new PartRequests(this.view, (m) => host.postMessage(m), {
      extras: (part): Record<string, Float64Array | Uint8Array> => (part.baseline && part.match ? { baseline: part.baseline, match: part.match } : {}),
    });
    this.header = el('div', { className: 'strata-diff-header' });
    this.table = el('div', { className: 'strata-diff-table', attrs: { role: 'table', 'aria-label': 'Largest gains and losses' } });
    this.kernels = el('div', { className: 'strata-diff-kernels' });
    const side = el('div', { className: 'strata-diff-side' }, this.table, this.kernels);
    this.root = el('div', { className: 'strata-diff' }, this.header, el('div', { className: 'strata-diff-body' }, this.view.root, side));
  }

  show(m: DiffMessage): void {
    const d = m.data;
    if (!d || !d.baseline || !d.match || d.baseline.length !== d.parent?.length || d.match.length !== d.parent.length) {
      throw new Error('the diff has no baseline per node');
    }
    // Typed arrays as VS Code hands them over; plain arrays (a test's JSON) converted.
    const baseline = d.baseline instanceof Float64Array ? d.baseline : Float64Array.from(d.baseline as ArrayLike<number>);
    const match = d.match instanceof Uint8Array ? d.match : Uint8Array.from(d.match as ArrayLike<number>);
    this.data = d;
    this.firstNodes = d.parent.length;
    const flame: FlameData = normalizeFlameData({
      strings: d.strings, frames: d.frames, parent: d.parent, frame: d.frame, inclusive: d.inclusive, exclusive: d.exclusive,
      view: 'top-down', metric: d.metric, unit: d.unit, total: d.inclusive[0] ?? 0, frameFilter: d.frameFilter,
      ...(d.node ? { node: d.node, more: d.more, minValue: d.minValue, nodes: d.nodes, viewId: d.viewId } : {}),
    });
    const loaded = new LoadedView(flame, { baseline, match });
    this.parts.reset(loaded);
    // Scaled to the whole view's largest change (the host's when it sent a part): colours do not
    // shift as parts come in.
    const scale = typeof d.largestChange === 'number' ? d.largestChange : largestChange(this.nodes()!);
    this.view.setColoring((_data, theme, out, from) => diffNodeColors(this.nodes()!, theme.kind === 'dark' || theme.kind === 'high-contrast'
      ? [110, 110, 110, 255] : [200, 200, 200, 255], scale, out, from));
    this.view.setData(flame, loaded.limit);
    this.renderHeader(m);
    this.renderRows(d.rows);
    this.renderKernels(d);
  }

  private renderHeader(m: DiffMessage): void {
    const d = m.data;
    const change = d.totalB - d.totalA;
    const pct = d.totalA > 0 ? ` (${change >= 0 ? '+' : '−'}${formatPercent(Math.abs(change), d.totalA)})` : '';
    const legend = el('span', { className: 'strata-diff-legend' });
    for (const [label, c] of DIFF_LEGEND) {
      const swatch = el('span', { className: 'strata-diff-swatch' });
      swatch.style.background = `rgb(${c[0]}, ${c[1]}, ${c[2]})`;  // CSSOM: the CSP allows no style attributes
      legend.append(swatch, label);
    }
    this.header.replaceChildren(
      el('span', { className: 'strata-diff-title', text: `${m.nameB} (B) against ${m.nameA} (A)` }),
      el('span', { text: `${d.metric}: A ${formatValue(d.totalA, d.unit)} → B ${formatValue(d.totalB, d.unit)}, ${signed(change, d.unit)}${pct}` }),
      el('span', { text: `${d.commonPaths} call paths in both${d.fuzzyPaths ? ` (${d.fuzzyPaths} matched fuzzily)` : ''}` }),
      legend);
  }

  private renderRows(rows: DiffRowData[]): void {
    const unit = this.data!.unit;
    this.table.replaceChildren(el('div', { className: 'strata-diff-caption', text: 'Largest gains and losses' }));
    this.shownRows = [];
    for (const [index, r] of rows.slice(0, ROWS_SHOWN).entries()) {
      const change = r.b - r.a;
      const name = r.frame?.name ?? '<root>';
      const where = r.userFrame ?? (r.frame?.file ? r.frame : undefined);
      const line = where ? `${where.file.split('/').pop()}:${where.line}` : '';
      const tag = r.match === 'exact' ? '' : r.match;
      this.shownRows.push({ name, file: where?.file ?? '', line: where?.line ?? 0, change, match: r.match, node: r.node });
      const row = el('div', { className: `strata-diff-row ${change >= 0 ? 'strata-diff-grew' : 'strata-diff-shrank'}`, attrs: { role: 'row', tabindex: '0' },
        title: `${name}\nA ${formatValue(r.a, unit)}, B ${formatValue(r.b, unit)}${tag ? `\n${tag}` : ''}` },
      el('span', { className: 'strata-diff-change', text: signed(change, unit) }),
      el('span', { className: 'strata-diff-line', text: line }),
      el('span', { className: 'strata-diff-name', text: name }),
      el('span', { className: 'strata-diff-tag', text: tag }));
      const go = (): void => this.goTo(r, index);
      row.addEventListener('click', go);
      row.addEventListener('keydown', (e) => { if (e.key === 'Enter') go(); });
      this.table.append(row);
    }
  }

  private renderKernels(d: DiffData): void {
    this.kernels.replaceChildren();
    for (const [title, list] of [['Kernels that appeared (only in B)', d.appeared], ['Kernels that vanished (only in A)', d.vanished]] as const) {
      if (!list.length) continue;
      this.kernels.append(el('div', { className: 'strata-diff-caption', text: `${title}: ${list.length}` }));
      for (const k of list.slice(0, KERNELS_SHOWN)) {
        this.kernels.append(el('div', { className: 'strata-diff-kernel', title: k.name },
          el('span', { className: 'strata-diff-change', text: formatValue(k.value, d.unit) }),
          el('span', { className: 'strata-diff-name', text: k.name })));
      }
    }
  }

  /** A 'nodes' message: a part of B's view (or the path to a row's node). */
  onNodes(m: Extract<HostMessage, { type: 'nodes' }>): void { this.parts.arrive(m); }

  /** Parts asked for and put in place (tests, bench). */
  get partStats(): PartRequests['stats'] { return this.parts.stats; }

  /** The nodes held: B's values, A's and the match. */
  private nodes(): DiffNodes | null {
    const l = this.parts.loaded;
    const baseline = l?.column<Float64Array>('baseline'), match = l?.column<Uint8Array>('match');
    return l && baseline && match ? { inclusive: l.data.inclusive, baseline, match } : null;
  }

  /** A row: zoom the graph to its frame (B's node, when B has it: asked for first when it was
   *  not sent) and open the line of the user's code its path runs through. */
  private goTo(r: DiffRowData, index: number): void {
    if (r.node >= 0) this.parts.reveal(r.node, (i) => this.view.zoom(i));
    this.host.postMessage({ type: 'openDiffRow', row: index });
  }

  private openSource(node: number): void {
    const m = this.view.model;
    if (m && node >= 0 && node < m.n) this.host.postMessage({ type: 'openSource', node: m.hostId(node), view: 'top-down' });
  }

  private tooltipRows(node: number): [string, string][] {
    const d = this.data, nodes = this.nodes();
    if (!d || !nodes || node < 0 || node >= nodes.baseline.length) return [];
    const unit = d.unit;
    const b = nodes.inclusive[node], a = nodes.baseline[node];
    const how = nodes.match[node] === DiffMatch.OnlyB ? 'only in B' : nodes.match[node] === DiffMatch.Fuzzy ? 'fuzzy (moved line or other instantiation)' : 'exact';
    return [['A', formatValue(a, unit)], ['B', formatValue(b, unit)], ['Change', signed(changeOf(nodes, node), unit)], ['Matched', how]];
  }
}
