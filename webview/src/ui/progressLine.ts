// What the host is working on (opening a profile, building a view or a sandwich), with the time
// so far and a moving bar: shown while any call is under way, hidden when the last one ends.
import type { Progress } from '../protocol';
import { el } from './dom';

export class ProgressLine {
  readonly root: HTMLElement;
  private readonly label: HTMLElement;
  private readonly active = new Map<number, Progress>();
  /** How many times it has been shown (tests). */
  shown = 0;

  constructor() {
    this.label = el('span', { className: 'strata-progress-label' });
    this.root = el('div', { className: 'strata-progress', attrs: { role: 'status', 'aria-live': 'polite' } },
      this.label, el('span', { className: 'strata-progress-bar' }));
    this.root.hidden = true;
  }

  update(p: Progress): void {
    if (!p || typeof p.id !== 'number') return;
    if (p.active) this.active.set(p.id, p); else this.active.delete(p.id);
    const latest = [...this.active.values()].pop();
    if (!latest) { this.root.hidden = true; return; }
    if (this.root.hidden) this.shown++;
    this.root.hidden = false;
    this.label.textContent = `${String(latest.label)}… ${(Math.max(0, Number(latest.elapsedMs) || 0) / 1000).toFixed(1)} s`;
  }

  get visible(): boolean { return !this.root.hidden; }
  get text(): string { return this.root.hidden ? '' : this.label.textContent ?? ''; }
}
