// The details pane: everything about one frame (the focused one, or the one picked): its full
// name, kind, whose code it is, source, module, whether its stack was truncated, its call path
// (each step clickable), a fused kernel's source lines (each opens its source), a distributed job's value per rank, and every metric's statistics at it (count, sum, mean, min, max, std;
// attributes as mean / min / max, never as sums). Text only (no markup from the profile).
import type { NodeLine, NodeMetricValues, RankSpreadData } from '../protocol';
import { spreadByRank } from '../model/rankSpread';
import type { FusedLine } from '../model/fusedLines';
import { formatValue } from '../model/format';
import { el } from './dom';

export interface DetailsFrame {
  node: number;
  name: string;          // full name
  kind: string;
  origin: string;        // legend class name
  location: string;      // "file:line" or ""
  module: string;
  truncated: boolean;
  path: { node: number; label: string }[];   // root's child → the frame
  /** The view's own metric at the node (shown until every metric's statistics arrive). */
  metric: { name: string; unit: string; total: string; self: string; value: number };
  canOpen: boolean;
  canSandwich: boolean;
  /** A fused kernel's frame: every source line it computes, in the compiler's order. */
  fused?: FusedLine[];
}

export interface DetailsHandlers {
  zoomTo(node: number): void;
  openSource(node: number): void;
  /** Opens line `index` of the node's fused lines. */
  openFusedLine(node: number, index: number): void;
  sandwich(node: number): void;
  close(): void;
}

/** Rows of the metrics table of one metric, or null when it has nothing at this node. */
export function metricRows(v: NodeMetricValues): string[] | null {
  const f = (x: number) => formatValue(x, v.unit);
  if (v.nature === 'attribute') {
    if (!(v.count > 0)) return null;
    // Attributes describe each event: their sum means nothing.
    return [v.name, '', '', formatValue(v.count, 'count'), f(v.mean), f(v.min), f(v.max), f(v.std)];
  }
  if (!(v.count > 0) && !v.inclusive && !v.exclusive) return null;
  return [v.name, f(v.inclusive), f(v.exclusive), formatValue(v.count, 'count'),
    v.count > 0 ? f(v.mean) : '', v.count > 0 ? f(v.min) : '', v.count > 0 ? f(v.max) : '', v.count > 0 ? f(v.std) : ''];
}

export class DetailsPane {
  readonly root: HTMLElement;
  private body: HTMLElement;
  private frame: DetailsFrame | null = null;

  constructor(private h: DetailsHandlers) {
    const close = el('button', { className: 'strata-button strata-details-close', text: '×', title: 'Close the details (i)', attrs: { type: 'button', 'aria-label': 'Close details' } });
    close.addEventListener('click', () => this.h.close());
    this.body = el('div', { className: 'strata-details-body' });
    this.root = el('section', { className: 'strata-details', attrs: { 'aria-label': 'Frame details' } }, close, this.body);
    this.root.hidden = true;
  }

  get node(): number { return this.frame ? this.frame.node : -1; }

  show(f: DetailsFrame, metrics: NodeMetricValues[] | null, lines: NodeLine[] = [], spread?: RankSpreadData): void {
    this.frame = f;
    const parts: Node[] = [];
    parts.push(el('div', { className: 'strata-details-name', text: f.name }));
    const facts = el('div', { className: 'strata-details-facts' },
      el('span', { text: f.kind }), el('span', { className: `strata-origin strata-origin-${f.origin.replace(/\W+/g, '-').toLowerCase()}`, text: f.origin }));
    if (f.location) facts.append(el('span', { className: 'strata-details-loc', text: f.location }));
    if (f.module) facts.append(el('span', { className: 'strata-details-module', text: f.module }));
    parts.push(facts);
    if (f.truncated) {
      parts.push(el('div', { className: 'strata-details-truncated', text: 'This stack was truncated here: the frames that called it are unknown, so it is not a complete stack.' }));
    }
    const actions = el('div', { className: 'strata-details-actions' });
    if (f.canOpen) {
      const b = el('button', { className: 'strata-button', text: 'Go to source', attrs: { type: 'button' } });
      b.addEventListener('click', () => this.h.openSource(f.node));
      actions.append(b);
    }
    if (f.canSandwich) {
      const b = el('button', { className: 'strata-button strata-sandwich-button', text: 'Sandwich', title: 'Callers and callees of this function', attrs: { type: 'button' } });
      b.addEventListener('click', () => this.h.sandwich(f.node));
      actions.append(b);
    }
    if (actions.childElementCount) parts.push(actions);
    // A fused kernel: the lines it computes, each a link to its source.
    if (f.fused && f.fused.length > 0) {
      const list = el('ol', { className: 'strata-details-fused', attrs: { 'aria-label': 'Fused source lines' } });
      f.fused.forEach((l, index) => {
        const where = l.line ? `${l.file}:${l.line}` : l.file;
        const b = el('button', {
          className: 'strata-link', text: l.function ? `${where} ${l.function}` : where,
          title: 'Go to this line', attrs: { type: 'button', 'data-fused-line': String(index) },
        });
        b.addEventListener('click', () => this.h.openFusedLine(f.node, index));
        list.append(el('li', {}, b));
      });
      parts.push(el('div', { className: 'strata-details-path-title', text: `Source lines this fused kernel computes (${f.fused.length})` }), list);
    }
    // Metrics.
    const table = el('table', { className: 'strata-details-metrics' });
    table.append(el('tr', {}, ...['metric', 'total', 'self', 'count', 'mean', 'min', 'max', 'std'].map((h) => el('th', { text: h }))));
    if (metrics) {
      for (const v of metrics) {
        const r = metricRows(v);
        if (r) table.append(el('tr', { attrs: { 'data-metric': v.name, 'data-nature': v.nature } }, ...r.map((c) => el('td', { text: c }))));
      }
    } else {
      table.append(el('tr', { attrs: { 'data-metric': f.metric.name } }, ...[f.metric.name, f.metric.total, f.metric.self, '', '', '', '', ''].map((c) => el('td', { text: c }))));
    }
    parts.push(table);
    // A distributed job: the frame's value on each rank, the heaviest marked.
    const byRank = spreadByRank(spread);
    if (byRank.length > 1) {
      const rt = el('table', { className: 'strata-details-ranks' });
      for (const r of byRank) {
        const tr = el('tr', { attrs: { 'data-rank': String(r.rank) } }, el('td', { text: `rank ${r.rank}` }),
          el('td', { text: formatValue(r.value, f.metric.unit) }), el('td', { text: r.max ? 'heaviest' : '' }));
        if (r.max) tr.classList.add('strata-details-rank-max');
        rt.append(tr);
      }
      parts.push(el('div', { className: 'strata-details-path-title', text: `${f.metric.name} per rank (${byRank.length} ranks)` }), rt);
    }
    // A view by function: the lines merged into this frame.
    if (lines.length > 0) {
      const lt = el('table', { className: 'strata-details-lines' });
      for (const l of lines) {
        const share = f.metric.value > 0 ? ` (${((100 * l.value) / f.metric.value).toFixed(1)}%)` : '';
        lt.append(el('tr', {}, el('td', { text: l.line ? `${l.file}:${l.line}` : l.file }), el('td', { text: `${formatValue(l.value, f.metric.unit)}${share}` })));
      }
      parts.push(el('div', { className: 'strata-details-path-title', text: `Lines of this function (${lines.length}, merged)` }), lt);
    }
    // Call path.
    const path = el('ol', { className: 'strata-details-path', attrs: { 'aria-label': 'Call path' } });
    for (const step of f.path) {
      const b = el('button', { className: 'strata-link', text: step.label, attrs: { type: 'button', 'data-node': String(step.node) } });
      b.addEventListener('click', () => this.h.zoomTo(step.node));
      path.append(el('li', {}, b));
    }
    parts.push(el('div', { className: 'strata-details-path-title', text: `Call path (${f.path.length} frames)` }), path);
    this.body.replaceChildren(...parts);
    this.root.hidden = false;
  }

  hide(): void { this.root.hidden = true; this.frame = null; }
}
