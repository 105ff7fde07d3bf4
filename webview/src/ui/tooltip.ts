// Hover tooltip: name, file:line, module, kind, inclusive and exclusive values with their share
// of the total (and of the zoomed frame when zoomed).
import { el } from './dom';

export interface TooltipContent {
  name: string;
  location: string;
  module: string;
  kind: string;
  rows: [string, string][];
  hint: string;
}

export class Tooltip {
  readonly root: HTMLElement;

  constructor() {
    this.root = el('div', { className: 'strata-tooltip', attrs: { role: 'tooltip' } });
    this.root.hidden = true;
  }

  show(c: TooltipContent, clientX: number, clientY: number): void {
    const body: Node[] = [el('div', { className: 'strata-tt-name', text: c.name })];
    if (c.location) body.push(el('div', { className: 'strata-tt-loc', text: c.location }));
    if (c.module) body.push(el('div', { className: 'strata-tt-module', text: c.module }));
    const table = el('table', { className: 'strata-tt-table' });
    for (const [k, v] of [...c.rows, ['Kind', c.kind] as [string, string]]) {
      table.append(el('tr', {}, el('th', { text: k }), el('td', { text: v })));
    }
    body.push(table);
    if (c.hint) body.push(el('div', { className: 'strata-tt-hint', text: c.hint }));
    this.root.replaceChildren(...body);
    this.root.hidden = false;
    // Keep inside the window.
    const pad = 12;
    const r = this.root.getBoundingClientRect();
    let x = clientX + pad, y = clientY + pad;
    if (x + r.width > window.innerWidth - 4) x = Math.max(4, clientX - r.width - pad);
    if (y + r.height > window.innerHeight - 4) y = Math.max(4, clientY - r.height - pad);
    this.root.style.left = `${x}px`;
    this.root.style.top = `${y}px`;
  }

  hide(): void { this.root.hidden = true; }
}
