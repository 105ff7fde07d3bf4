// Toolbar of the timeline: title, what is shown (lanes, intervals, the visible window), reset
// zoom, "Export Chrome Trace" (asks the host; shown when the host can write one), and a hint.
import { el } from './dom';

export interface TimelineToolbarHandlers {
  onReset(): void;
  onExport(): void;
  /** The critical path and bubbles shown or hidden. */
  onPath?(shown: boolean): void;
}

export class TimelineToolbar {
  readonly root: HTMLElement;
  private titleEl: HTMLElement;
  private summary: HTMLElement;
  private windowEl: HTMLElement;
  private resetButton: HTMLButtonElement;
  private hint: HTMLElement;
  readonly exportButton: HTMLButtonElement;
  /** Shows / hides the critical path and the bubbles (when the trace has an overlap analysis). */
  readonly pathButton: HTMLButtonElement;
  /** The overlap analysis's verdict: the critical path's largest region, the model. */
  readonly overlapEl: HTMLElement;

  constructor(h: TimelineToolbarHandlers) {
    this.titleEl = el('span', { className: 'strata-title' });
    this.summary = el('span', { className: 'strata-match strata-timeline-summary', attrs: { 'aria-live': 'polite' } });
    this.windowEl = el('span', { className: 'strata-crumb' });
    this.resetButton = el('button', { className: 'strata-button', text: 'Reset zoom', title: 'Show the whole trace (0 or Esc)', attrs: { type: 'button' } });
    this.resetButton.addEventListener('click', () => h.onReset());
    this.exportButton = el('button', {
      className: 'strata-button strata-export', text: 'Export Chrome Trace',
      title: 'Write the trace as Chrome / Perfetto JSON (strata regions --format chrome)', attrs: { type: 'button' },
    });
    this.exportButton.addEventListener('click', () => h.onExport());
    this.pathButton = el('button', {
      className: 'strata-button strata-critical-path', text: 'Critical path',
      title: 'Show or hide the critical path through the lanes (bar at the top of a lane) and the bubbles (bar at the bottom: grey waits, dark idle)',
      attrs: { type: 'button', 'aria-pressed': 'true' },
    });
    this.pathButton.hidden = true;
    this.pathButton.addEventListener('click', () => {
      const shown = this.pathButton.getAttribute('aria-pressed') !== 'true';
      this.pathButton.setAttribute('aria-pressed', String(shown));
      h.onPath?.(shown);
    });
    this.overlapEl = el('span', { className: 'strata-match strata-overlap-summary', attrs: { 'aria-live': 'polite' } });
    this.hint = el('span', {
      className: 'strata-hint',
      text: 'Wheel: zoom · drag: pan · wheel on lanes / Shift+wheel: scroll · click: marker source',
    });
    this.root = el('div', { className: 'strata-toolbar', attrs: { role: 'toolbar' } },
      this.titleEl, this.summary, this.overlapEl, this.pathButton, this.resetButton, this.exportButton, this.windowEl, this.hint);
  }

  setTitle(title: string): void { this.titleEl.textContent = title; this.titleEl.title = title; }
  /** What the pointer does here (a click's meaning differs by what the timeline shows). */
  setHint(text: string): void { this.hint.textContent = text; }
  setSummary(text: string): void { this.summary.textContent = text; }
  setExport(enabled: boolean): void { this.exportButton.hidden = !enabled; }
  /** The overlap verdict ("" hides it and the button). */
  setOverlap(text: string): void {
    this.overlapEl.textContent = text;
    this.overlapEl.hidden = !text;
    this.pathButton.hidden = !text;
  }

  setWindow(zoomed: boolean, text: string): void {
    this.resetButton.disabled = !zoomed;
    this.windowEl.textContent = text;
  }
}
