// Diff mode of the webview (protocol v8 'diff'): run B's flame graph coloured by the change of
// each frame against its matched path in run A (model/diffColors.ts), a table of the largest
// gains and losses (a row zooms the graph to its frame and opens its line), and the kernels that
// appeared or vanished. The host (the core, through the addon) did the matching and ranking.
import type { DiffData, DiffRowData, FlameData, HostMessage } from './protocol';
import { DiffMatch } from './protocol';
import type { HostApi } from './host';
import { formatPercent, formatValue } from './model/format';
import { normalizeFlameData } from './model/normalize';
import { changeOf, DIFF_LEGEND, diffNodeColors } from './model/diffColors';
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
  /** What the table shows, in order (tests): frame name, user line, change. */
  shownRows: { name: string; file: string; line: number; change: number; match: string }[] = [];

  constructor(theme: Theme, tooltip: Tooltip, private host: HostApi) {
    this.view = new FlameView(theme, tooltip, {
      openSource: (node) => this.openSource(node),
      focusChanged: () => {},
      tooltipRows: (node) => this.tooltipRows(node),
    });
    this.header = el('div', { className: 'strata-diff-header' });
    this.table = el('div', { className: 'strata-diff-table', attrs: { role: 'table', 'aria-label': 'Largest gains and losses' } });
    this.kernels = el('div', { className: 'strata-diff-kernels' });
    const side = el('div', { className: 'strata-diff-side' }, this.table, this.kernels);
    this.root = el('div', { className: 'strata-diff' }, this.header, el('div', { className: 'strata-diff-body' }, this.view.root, side));
  }

  show(m: DiffMessage): void {
    const d = m.data;
    if (!d || !(d.baseline instanceof Float64Array) || !(d.match instanceof Uint8Array) || d.baseline.length !== d.parent?.length) {
      throw new Error('the diff has no baseline per node');
    }
    this.data = d;
    const flame: FlameData = normalizeFlameData({
      strings: d.strings, frames: d.frames, parent: d.parent, frame: d.frame, inclusive: d.inclusive, exclusive: d.exclusive,
      view: 'top-down', metric: d.metric, unit: d.unit, total: d.inclusive[0] ?? 0, frameFilter: d.frameFilter,
    });
    const nodes = { inclusive: flame.inclusive, baseline: d.baseline, match: d.match };
    this.view.setColoring((_data, theme) => diffNodeColors(nodes, theme.kind === 'dark' || theme.kind === 'high-contrast'
      ? [110, 110, 110, 255] : [200, 200, 200, 255]));
    this.view.setData(flame);
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
      this.shownRows.push({ name, file: where?.file ?? '', line: where?.line ?? 0, change, match: r.match });
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

  /** A row: zoom the graph to its frame (B's node, when B has it) and open the line of the
   *  user's code its path runs through. */
  private goTo(r: DiffRowData, index: number): void {
    if (r.node >= 0 && this.view.model && r.node < this.view.model.n) this.view.zoom(r.node);
    this.host.postMessage({ type: 'openDiffRow', row: index });
  }

  private openSource(node: number): void {
    const m = this.view.model;
    if (m && node >= 0 && node < m.n) this.host.postMessage({ type: 'openSource', node: m.hostId(node), view: 'top-down' });
  }

  private tooltipRows(node: number): [string, string][] {
    const d = this.data;
    if (!d || node < 0 || node >= d.baseline.length) return [];
    const unit = d.unit;
    const b = d.inclusive[node], a = d.baseline[node];
    const how = d.match[node] === DiffMatch.OnlyB ? 'only in B' : d.match[node] === DiffMatch.Fuzzy ? 'fuzzy (moved line or other instantiation)' : 'exact';
    return [['A', formatValue(a, unit)], ['B', formatValue(b, unit)], ['Change', signed(changeOf({ inclusive: d.inclusive, baseline: d.baseline, match: d.match }, node), unit)], ['Matched', how]];
  }
}
