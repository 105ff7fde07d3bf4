// Toolbar: view switch (top-down / bottom-up; asks the host with 'requestView'), metric select,
// search box with the matched share, reset zoom, and a breadcrumb of the focused frame; "Region
// timeline" while the focused frame is a kernel with in-kernel regions under it.
import type { ViewName } from '../protocol';
import { el } from './dom';

export interface ToolbarHandlers {
  onView(view: ViewName): void;
  onMetric(metric: string): void;
  onSearch(query: string): void;
  onReset(): void;
  /** The focused kernel's in-kernel regions as a timeline (button shown by setRegionTimeline). */
  onRegionTimeline?(): void;
}

export class Toolbar {
  readonly root: HTMLElement;
  readonly search: HTMLInputElement;
  private viewButtons: Record<ViewName, HTMLButtonElement>;
  private metric: HTMLSelectElement;
  private matchLabel: HTMLElement;
  private resetButton: HTMLButtonElement;
  readonly regionButton: HTMLButtonElement;
  private crumb: HTMLElement;
  private titleEl: HTMLElement;
  private searchTimer = 0;

  constructor(private h: ToolbarHandlers) {
    const mk = (view: ViewName, text: string, tip: string) => {
      const b = el('button', { className: 'strata-seg', text, title: tip, attrs: { type: 'button', 'data-view': view, 'aria-pressed': 'false' } });
      b.addEventListener('click', () => { if (b.getAttribute('aria-pressed') !== 'true') this.h.onView(view); });
      return b;
    };
    this.viewButtons = {
      'top-down': mk('top-down', 'Top-down', 'Callers above callees (call tree)'),
      'bottom-up': mk('bottom-up', 'Bottom-up', 'Where time is spent, then who called it'),
    };
    this.metric = el('select', { className: 'strata-metric', title: 'Metric', attrs: { 'aria-label': 'Metric' } });
    this.metric.addEventListener('change', () => this.h.onMetric(this.metric.value));
    this.search = el('input', {
      className: 'strata-search',
      attrs: { type: 'search', placeholder: 'Search frames (name or file)', 'aria-label': 'Search frames', spellcheck: 'false' },
    });
    this.search.addEventListener('input', () => {
      clearTimeout(this.searchTimer);
      this.searchTimer = window.setTimeout(() => this.h.onSearch(this.search.value), 60);
    });
    this.search.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.search.value) {
        e.stopPropagation();
        this.search.value = '';
        this.h.onSearch('');
      } else if (e.key === 'Enter') {
        clearTimeout(this.searchTimer);
        this.h.onSearch(this.search.value);
      }
    });
    this.matchLabel = el('span', { className: 'strata-match', attrs: { 'aria-live': 'polite' } });
    this.resetButton = el('button', { className: 'strata-button', text: 'Reset zoom', title: 'Zoom out to the root (Esc)', attrs: { type: 'button' } });
    this.resetButton.addEventListener('click', () => this.h.onReset());
    this.regionButton = el('button', {
      className: 'strata-button strata-region-timeline', text: 'Region timeline',
      title: 'Show the in-kernel regions of this kernel\'s captured launches as a timeline', attrs: { type: 'button' },
    });
    this.regionButton.hidden = true;
    this.regionButton.addEventListener('click', () => this.h.onRegionTimeline?.());
    this.titleEl = el('span', { className: 'strata-title' });
    this.crumb = el('span', { className: 'strata-crumb' });
    const hint = el('span', {
      className: 'strata-hint',
      text: 'Click: zoom · click focused frame or Ctrl/⌘+click: go to source · Esc: zoom out',
    });
    this.root = el('div', { className: 'strata-toolbar', attrs: { role: 'toolbar' } },
      el('span', { className: 'strata-segmented', attrs: { role: 'group', 'aria-label': 'View' } },
        this.viewButtons['top-down'], this.viewButtons['bottom-up']),
      this.metric,
      el('span', { className: 'strata-search-wrap' }, this.search, this.matchLabel),
      this.resetButton,
      this.regionButton,
      this.titleEl,
      this.crumb,
      hint,
    );
  }

  setView(view: ViewName): void {
    for (const [v, b] of Object.entries(this.viewButtons)) b.setAttribute('aria-pressed', String(v === view));
  }

  setMetrics(metrics: string[], current: string): void {
    const list = metrics.length ? metrics : current ? [current] : [];
    if (current && !list.includes(current)) list.unshift(current);
    this.metric.replaceChildren(...list.map((m) => el('option', { text: m, attrs: { value: m } })));
    this.metric.value = current;
    this.metric.hidden = list.length === 0;
    this.metric.disabled = list.length < 2;
  }

  setTitle(title: string): void { this.titleEl.textContent = title; this.titleEl.title = title; }

  setMatch(text: string): void { this.matchLabel.textContent = text; }

  /** Shows "Region timeline" for the focused kernel `name` ("" hides it). */
  setRegionTimeline(name: string): void {
    this.regionButton.hidden = !name;
    this.regionButton.dataset.kernel = name;
  }

  setZoomed(zoomed: boolean, path: string): void {
    this.resetButton.disabled = !zoomed;
    this.crumb.textContent = zoomed ? path : '';
    this.crumb.title = path;
  }
}
