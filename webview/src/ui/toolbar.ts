// Toolbar: view switch (top-down / bottom-up, asked of the host with 'requestView'; sandwich,
// made here from the top-down view), the Python view and by-function toggles (asked of the host),
// the "my code" highlight, metric select (additive metrics only), search box with the matched
// share, back / forward through the zoom history, reset zoom, and a breadcrumb of the focused
// frame (each step clickable); "Region timeline" while the focused frame is a kernel with
// in-kernel regions under it.
import type { ViewName } from '../protocol';
import { capText } from '../model/frameNames';
import { el } from './dom';

export type ModeName = ViewName | 'sandwich';

export interface ToolbarHandlers {
  onView(view: ModeName): void;
  onPythonView(on: boolean): void;
  onByFunction(on: boolean): void;
  onMyCode(on: boolean): void;
  onBack(): void;
  onForward(): void;
  onCrumb(node: number): void;
  onMetric(metric: string): void;
  onSearch(query: string): void;
  onReset(): void;
  /** The focused kernel's in-kernel regions as a timeline (button shown by setRegionTimeline). */
  onRegionTimeline?(): void;
}

export class Toolbar {
  readonly root: HTMLElement;
  readonly search: HTMLInputElement;
  private viewButtons: Record<ModeName, HTMLButtonElement>;
  readonly pythonButton: HTMLButtonElement;
  readonly functionButton: HTMLButtonElement;
  readonly myCodeButton: HTMLButtonElement;
  readonly backButton: HTMLButtonElement;
  readonly forwardButton: HTMLButtonElement;
  private metric: HTMLSelectElement;
  private matchLabel: HTMLElement;
  private resetButton: HTMLButtonElement;
  readonly regionButton: HTMLButtonElement;
  private crumb: HTMLElement;
  private titleEl: HTMLElement;
  private searchTimer = 0;

  constructor(private h: ToolbarHandlers) {
    const mk = (view: ModeName, text: string, tip: string) => {
      const b = el('button', { className: 'strata-seg', text, title: tip, attrs: { type: 'button', 'data-view': view, 'aria-pressed': 'false' } });
      b.addEventListener('click', () => { if (b.getAttribute('aria-pressed') !== 'true') this.h.onView(view); });
      return b;
    };
    this.viewButtons = {
      'top-down': mk('top-down', 'Top-down', 'Callers above callees (call tree)'),
      'bottom-up': mk('bottom-up', 'Bottom-up', 'Where time is spent, then who called it'),
      sandwich: mk('sandwich', 'Sandwich', 'Callers and callees of one function (the focused frame\'s)'),
    };
    const toggle = (text: string, tip: string, cls: string, on: (pressed: boolean) => void) => {
      const b = el('button', { className: `strata-toggle ${cls}`, text, title: tip, attrs: { type: 'button', 'aria-pressed': 'false' } });
      b.addEventListener('click', () => on(b.getAttribute('aria-pressed') !== 'true'));
      return b;
    };
    this.pythonButton = toggle('Python view', 'Fold the interpreter\'s own frames (start-up, eval loop, call machinery) into the Python lines they serve; off: every frame (p)', 'strata-python-toggle', (v) => this.h.onPythonView(v));
    this.functionButton = toggle('By function', 'Merge the lines of one function into one frame (the lines stay in the details) (f)', 'strata-function-toggle', (v) => this.h.onByFunction(v));
    this.myCodeButton = toggle('My code', 'Highlight your code: dim libraries, the interpreter and the GPU (m)', 'strata-mycode-toggle', (v) => this.h.onMyCode(v));
    this.backButton = el('button', { className: 'strata-button strata-back', text: '‹', title: 'Back: the previous zoom ([ or Alt+←)', attrs: { type: 'button', 'aria-label': 'Back' } });
    this.backButton.addEventListener('click', () => this.h.onBack());
    this.forwardButton = el('button', { className: 'strata-button strata-forward', text: '›', title: 'Forward: the next zoom (] or Alt+→)', attrs: { type: 'button', 'aria-label': 'Forward' } });
    this.forwardButton.addEventListener('click', () => this.h.onForward());
    this.metric = el('select', { className: 'strata-metric', title: 'Metric', attrs: { 'aria-label': 'Metric' } });
    this.metric.addEventListener('change', () => this.h.onMetric(this.metric.value));
    this.metric.title = 'Metric drawn as widths (additive metrics; attributes such as grid or occupancy are in the details)';
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
      text: 'Wheel: zoom · drag: pan · click: zoom to frame · Ctrl/⌘+click: source · [ ]: back/forward · i: details',
    });
    this.root = el('div', { className: 'strata-toolbar', attrs: { role: 'toolbar' } },
      el('span', { className: 'strata-segmented', attrs: { role: 'group', 'aria-label': 'View' } },
        this.viewButtons['top-down'], this.viewButtons['bottom-up'], this.viewButtons.sandwich),
      this.pythonButton, this.functionButton, this.myCodeButton,
      this.metric,
      el('span', { className: 'strata-search-wrap' }, this.search, this.matchLabel),
      this.backButton, this.forwardButton,
      this.resetButton,
      this.regionButton,
      this.titleEl,
      this.crumb,
      hint,
    );
  }

  setView(view: ModeName): void {
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

  /** Toggle states; `python` null hides the Python view toggle (no Python frames), `byFunction`
   *  null hides the by-function one (bottom-up merges by function anyway). */
  setToggles(python: boolean | null, byFunction: boolean | null, myCode: boolean): void {
    this.pythonButton.hidden = python === null;
    this.pythonButton.setAttribute('aria-pressed', String(!!python));
    this.functionButton.hidden = byFunction === null;
    this.functionButton.setAttribute('aria-pressed', String(!!byFunction));
    this.myCodeButton.setAttribute('aria-pressed', String(myCode));
  }

  setHistory(canBack: boolean, canForward: boolean): void {
    this.backButton.disabled = !canBack;
    this.forwardButton.disabled = !canForward;
  }

  /** The breadcrumb: the focused frame's path, each step a button (zooms there). */
  setZoomed(zoomed: boolean, path: { node: number; label: string }[]): void {
    this.resetButton.disabled = !zoomed;
    const items: Node[] = [];
    if (zoomed) {
      const root = el('button', { className: 'strata-crumb-step', text: 'all', title: 'The whole profile', attrs: { type: 'button', 'data-node': '0' } });
      root.addEventListener('click', () => this.h.onCrumb(0));
      items.push(root);
      // Long paths: the first two and the last six steps, the middle as one "…" step.
      const shown = path.length > 8 ? [...path.slice(0, 2), null, ...path.slice(-6)] : path;
      for (const step of shown) {
        items.push(el('span', { className: 'strata-crumb-sep', text: '›' }));
        if (!step) { items.push(el('span', { text: '…' })); continue; }
        const b = el('button', { className: 'strata-crumb-step', text: capText(step.label, 60), title: capText(step.label, 400), attrs: { type: 'button', 'data-node': String(step.node) } });
        b.addEventListener('click', () => this.h.onCrumb(step.node));
        items.push(b);
      }
    }
    this.crumb.replaceChildren(...items);
    this.crumb.title = path.map((p) => capText(p.label, 60)).join(' › ');
  }
}
