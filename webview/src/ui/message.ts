// A message banner (errors from the host, invalid data, WebGL unavailable).
import { el } from './dom';

export class MessageBar {
  readonly root: HTMLElement;
  constructor() {
    this.root = el('div', { className: 'strata-message', attrs: { role: 'alert' } });
    this.root.hidden = true;
  }
  show(text: string, level: 'error' | 'info' = 'error'): void {
    this.root.textContent = text;
    this.root.dataset.level = level;
    this.root.hidden = false;
  }
  clear(): void { this.root.hidden = true; this.root.textContent = ''; }
  get text(): string { return this.root.hidden ? '' : this.root.textContent ?? ''; }
}
