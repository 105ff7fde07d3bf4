// The timeline widget: rows × intervals on a time axis (generic; what the intervals mean comes
// from the handlers). Owns the canvases and the pointer: wheel over the plot zooms the time
// axis at the pointer, wheel over the row labels (or Shift+wheel) scrolls the rows, horizontal
// wheel pans, drag pans time and rows, hover shows a tooltip, a click (without dragging) opens
// the interval. Draws the visible intervals with the WebGL renderer (intervals narrower than
// a pixel that fall on a pixel already drawn at their depth are skipped) and a 2D overlay.
import { MarkKind, TimelineModel } from '../model/timelineModel';
import { formatValue } from '../model/format';
import { TimelineColors } from '../render/timelineColors';
import { IntervalLabel, MIN_INTERVAL_LABEL_WIDTH, RowLabel, TimelineOverlay, niceTicks, tickLabels } from '../render/timelineLabels';
import { TL_FLAG_HOVER, TimelineBatch, TimelineRenderer, makeTimelineBatch } from '../render/timelineRenderer';
import type { Theme } from '../ui/theme';
import type { Tooltip, TooltipContent } from '../ui/tooltip';
import { GraphStage } from './graphStage';

export const LEVEL_HEIGHT = 16;
/** Marks: the critical path (a bright bar at the row's top, thinner for the hops between lanes),
 *  wait and idle bubbles (bars at the row's bottom). */
const MARK_HEIGHT = 4;
const MARK_COLORS: [number, number, number][] = [[255, 64, 32], [255, 64, 32], [150, 150, 150], [90, 90, 90]];
export const AXIS_HEIGHT = 22;
export const GUTTER = 190;
const ROW_GAP = 3;
const GROUP_GAP = 9;
const DRAG_PX = 3;

export interface TimelineViewHandlers {
  /** Tooltip of interval i. */
  describe(i: number): TooltipContent;
  /** A click on interval i. */
  open(i: number): void;
  /** The visible window changed (zoom, pan, reset). */
  windowChanged(): void;
}

export interface TimelineViewStats {
  rows: number;
  intervals: number;
  /** Instances drawn in the last frame. */
  drawn: number;
  labels: number;
  frames: number;
  hovered: number;
  v0: number;
  v1: number;
  buildMs: number;
  drawMs: number;
  width: number;
  height: number;
  webgl: boolean;
}

export class TimelineView {
  readonly root: HTMLElement;
  private g: GraphStage<TimelineRenderer>;
  private overlay: TimelineOverlay;

  model: TimelineModel | null = null;
  private unit = 'ns';
  private colors: TimelineColors;
  private batch: TimelineBatch = makeTimelineBatch(0);
  private intervalLabels: IntervalLabel[] = [];
  private hovered = -1;
  /** Whether the marks of the critical path and the bubbles are drawn. */
  showPath = true;
  showBubbles = true;
  private lastMouse: { x: number; y: number } | null = null;
  private drag: { x: number; y: number; v0: number; scroll: number; moved: boolean } | null = null;
  readonly stats: TimelineViewStats = {
    rows: 0, intervals: 0, drawn: 0, labels: 0, frames: 0, hovered: -1, v0: 0, v1: 0,
    buildMs: 0, drawMs: 0, width: 0, height: 0, webgl: false,
  };

  constructor(private theme: Theme, private tooltip: Tooltip, private h: TimelineViewHandlers) {
    this.colors = new TimelineColors(theme);
    this.g = new GraphStage<TimelineRenderer>({
      rootClass: 'strata-graph strata-timeline', stageClass: 'strata-stage strata-timeline-stage',
      rootAttrs: { 'aria-label': 'Timeline', 'data-rows': '0', 'data-intervals': '0', 'data-drawn': '0' },
      waiting: 'Waiting for a region trace…', what: 'timeline',
      makeRenderer: (canvas, onRestored) => new TimelineRenderer(canvas, onRestored),
      frame: () => this.frame(),
    });
    this.root = this.g.root;
    this.stats.webgl = this.g.renderer !== null;
    this.overlay = new TimelineOverlay(this.g.overlayCanvas);
    this.g.stage.addEventListener('wheel', (e) => this.onWheel(e), { passive: false });
    this.g.stage.addEventListener('mousedown', (e) => this.onDown(e));
    this.g.stage.addEventListener('mousemove', (e) => { if (!this.drag) this.onMove(e.clientX, e.clientY); });
    this.g.stage.addEventListener('mouseleave', () => { if (!this.drag) { this.lastMouse = null; this.setHover(-1); this.tooltip.hide(); } });
  }

  /** Why WebGL could not be used (then nothing is drawn), or null. */
  get webglError(): string | null { return this.g.webglError; }

  // ---- data ------------------------------------------------------------------------------

  setModel(model: TimelineModel, unit: string): void {
    this.model = model;
    this.unit = unit;
    model.layout({ levelHeight: LEVEL_HEIGHT, rowGap: ROW_GAP, groupGap: GROUP_GAP });
    this.batch = makeTimelineBatch(model.n + 1 + (model.input.marks?.row.length ?? 0));
    this.hovered = -1;
    this.root.scrollTop = 0;
    this.stats.rows = model.rowCount;
    this.stats.intervals = model.n;
    this.root.dataset.rows = String(model.rowCount);
    this.root.dataset.intervals = String(model.n);
    this.g.placeholder.hidden = !this.webglError;
    if (!this.webglError && model.n === 0) { this.g.placeholder.hidden = false; this.g.placeholder.textContent = 'The trace has no intervals.'; }
    this.tooltip.hide();
    this.h.windowChanged();
    this.schedule();
  }

  setTheme(theme: Theme): void {
    this.theme = theme;
    this.colors = new TimelineColors(theme);
    this.schedule();
  }

  resetZoom(): void { this.model?.reset(); this.afterWindowChange(); }

  /** Shows the time window [a, b] (clamped to the trace). */
  showWindow(a: number, b: number): void { this.model?.show(a, b); this.afterWindowChange(); }

  /** Zooms by `factor` (< 1: in) around the middle of the window. */
  zoomBy(factor: number): void {
    const m = this.model;
    if (!m) return;
    m.zoomAt(m.v0 + m.span / 2, factor);
    this.afterWindowChange();
  }

  /** Where interval i is drawn, in stage coordinates (its middle), or null when off screen. */
  positionOf(i: number): { x: number; y: number } | null {
    const m = this.model;
    if (!m || i < 0 || i >= m.n) return null;
    const plotW = this.plotWidth;
    const a = Math.max(0, m.xAt(m.start[i], plotW)), b = Math.min(plotW, m.xAt(m.end[i], plotW));
    if (b < a) return null;
    const y = AXIS_HEIGHT + m.rowY[m.row[i]] + m.depth[i] * LEVEL_HEIGHT - this.root.scrollTop + LEVEL_HEIGHT / 2;
    if (y < AXIS_HEIGHT || y > this.g.height) return null;
    return { x: GUTTER + (a + b) / 2, y };
  }

  /** Scrolls the rows so that interval i's row is visible. */
  scrollToInterval(i: number): void {
    const m = this.model;
    if (!m || i < 0 || i >= m.n) return;
    const top = m.rowY[m.row[i]] + m.depth[i] * LEVEL_HEIGHT;
    const viewH = this.root.clientHeight - AXIS_HEIGHT;
    if (top < this.root.scrollTop || top + LEVEL_HEIGHT > this.root.scrollTop + viewH) this.root.scrollTop = Math.max(0, top - viewH / 2);
    this.frame();
  }

  private get plotWidth(): number { return Math.max(1, this.g.width - GUTTER); }

  // ---- pointer -----------------------------------------------------------------------------

  /** Interval under a client point, or -1. */
  intervalAt(clientX: number, clientY: number): number {
    const m = this.model;
    if (!m) return -1;
    const r = this.g.stage.getBoundingClientRect();
    const x = clientX - r.left - GUTTER;
    const y = clientY - r.top - AXIS_HEIGHT + this.root.scrollTop;
    if (x < 0 || clientY - r.top < AXIS_HEIGHT) return -1;
    const row = m.rowAt(y);
    if (row < 0) return -1;
    const level = Math.floor((y - m.rowY[row]) / LEVEL_HEIGHT);
    const plotW = this.plotWidth;
    return m.hitTest(row, level, m.timeAt(x, plotW), (2 * m.span) / plotW);
  }

  private onMove(clientX: number, clientY: number): void {
    this.lastMouse = { x: clientX, y: clientY };
    const i = this.intervalAt(clientX, clientY);
    this.setHover(i);
    if (i >= 0) this.tooltip.show(this.h.describe(i), clientX, clientY);
    else this.tooltip.hide();
  }

  private setHover(i: number): void {
    this.g.stage.style.cursor = i >= 0 ? 'pointer' : 'grab';
    if (i === this.hovered) return;
    this.hovered = i;
    this.stats.hovered = i;
    this.schedule();
  }

  private onWheel(e: WheelEvent): void {
    const m = this.model;
    if (!m) return;
    e.preventDefault();
    const scale = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? this.g.height : 1;
    const dx = e.deltaX * scale, dy = e.deltaY * scale;
    const r = this.g.stage.getBoundingClientRect();
    const x = e.clientX - r.left - GUTTER;
    if (e.shiftKey || x < 0) {
      // Rows: over the labels, or with Shift.
      this.root.scrollTop += e.shiftKey && dx && !dy ? dx : dy;
      return;
    }
    if (Math.abs(dx) > Math.abs(dy)) {
      m.pan((dx * m.span) / this.plotWidth);
    } else {
      m.zoomAt(m.timeAt(x, this.plotWidth), Math.exp(dy * 0.002));
    }
    this.afterWindowChange();
  }

  private onDown(e: MouseEvent): void {
    const m = this.model;
    if (e.button !== 0 || !m) return;
    this.drag = { x: e.clientX, y: e.clientY, v0: m.v0, scroll: this.root.scrollTop, moved: false };
    const move = (ev: MouseEvent) => {
      const d = this.drag;
      if (!d || !this.model) return;
      const dx = ev.clientX - d.x, dy = ev.clientY - d.y;
      if (!d.moved && Math.abs(dx) < DRAG_PX && Math.abs(dy) < DRAG_PX) return;
      if (!d.moved) { d.moved = true; this.tooltip.hide(); this.g.stage.style.cursor = 'grabbing'; }
      const mm = this.model;
      mm.pan(d.v0 - (dx * mm.span) / this.plotWidth - mm.v0);
      this.root.scrollTop = d.scroll - dy;
      this.afterWindowChange();
    };
    const up = (ev: MouseEvent) => {
      window.removeEventListener('mousemove', move);
      window.removeEventListener('mouseup', up);
      const d = this.drag;
      this.drag = null;
      if (d && !d.moved) {
        const i = this.intervalAt(ev.clientX, ev.clientY);
        if (i >= 0) this.h.open(i);
      }
      this.onMove(ev.clientX, ev.clientY);
    };
    window.addEventListener('mousemove', move);
    window.addEventListener('mouseup', up);
  }

  /** Keys (the app forwards the document's): + / - zoom, ← / → pan, 0 or Esc reset, Enter opens. */
  handleKey(e: KeyboardEvent): void {
    const m = this.model;
    if (!m) return;
    if (e.key === '+' || e.key === '=') this.zoomBy(0.5);
    else if (e.key === '-' || e.key === '_') this.zoomBy(2);
    else if (e.key === 'ArrowLeft') { m.pan(-m.span * 0.2); this.afterWindowChange(); }
    else if (e.key === 'ArrowRight') { m.pan(m.span * 0.2); this.afterWindowChange(); }
    else if (e.key === '0' || e.key === 'Escape') this.resetZoom();
    else if (e.key === 'Enter' && this.hovered >= 0) this.h.open(this.hovered);
    else return;
    e.preventDefault();
  }

  private afterWindowChange(): void {
    this.h.windowChanged();
    this.schedule();
    if (this.lastMouse && !this.drag) this.onMove(this.lastMouse.x, this.lastMouse.y);
  }

  // ---- drawing -----------------------------------------------------------------------------

  schedule(): void { this.g.schedule(); }

  /** Synchronous redraw (also used by tests through the debug hook). */
  frame(): void {
    const m = this.model;
    const scrollY = this.g.measure(m ? AXIS_HEIGHT + m.contentHeight + 8 : 0);
    const t0 = performance.now();
    const rowLabels: RowLabel[] = [];
    if (m) this.build(m, scrollY, rowLabels); else { this.batch.count = 0; this.intervalLabels = []; }
    const t1 = performance.now();
    if (this.g.renderer) {
      this.g.renderer.resize(this.g.width, this.g.height, this.g.dpr);
      this.g.renderer.upload(this.batch);
      this.g.renderer.render({ width: this.g.width, height: this.g.height, dpr: this.g.dpr, background: this.theme.background, outline: this.theme.foreground });
    }
    const ticks: { x: number; text: string }[] = [];
    if (m) {
      const o = typeof m.input.origin === 'number' && Number.isFinite(m.input.origin) ? m.input.origin : m.t0;
      const { step, ticks: ts } = niceTicks(m.v0 - o, m.v1 - o, Math.max(1, Math.floor(this.plotWidth / 110)));
      const texts = tickLabels(ts, step, this.unit, formatValue);
      ts.forEach((t, k) => ticks.push({ x: m.xAt(t + o, this.plotWidth), text: texts[k] }));
    }
    this.overlay.resize(this.g.width, this.g.height, this.g.dpr);
    this.overlay.draw(this.g.renderer ? this.intervalLabels : [], m ? rowLabels : [], {
      width: this.g.width, height: this.g.height, dpr: this.g.dpr, gutter: GUTTER, axisHeight: AXIS_HEIGHT,
      fontFamily: this.theme.fontFamily, fontSize: this.theme.fontSize,
      background: this.theme.background, foreground: this.theme.foreground, ticks,
    });
    const t2 = performance.now();
    Object.assign(this.stats, {
      frames: this.stats.frames + 1, drawn: this.batch.count, labels: this.intervalLabels.length,
      v0: m ? m.v0 : 0, v1: m ? m.v1 : 0, buildMs: t1 - t0, drawMs: t2 - t1, width: this.g.width, height: this.g.height,
    });
    this.root.dataset.drawn = String(this.batch.count);
  }

  private build(m: TimelineModel, scrollY: number, rowLabels: RowLabel[]): void {
    const { rects, colors: out, flags } = this.batch;
    const plotW = this.plotWidth;
    const scale = plotW / m.span;
    const v0 = m.v0, v1 = m.v1;
    const W = this.g.width;
    const labels: IntervalLabel[] = [];
    let k = 0;
    const push = (i: number, a: number, b: number, y: number) => {
      const o = k * 4;
      rects[o] = a; rects[o + 1] = b; rects[o + 2] = y; rects[o + 3] = LEVEL_HEIGHT;
      const c = this.colors.color(m.colorKey[i], m.shade[i]);
      out[o] = c[0]; out[o + 1] = c[1]; out[o + 2] = c[2]; out[o + 3] = 255;
      flags[k] = i === this.hovered ? TL_FLAG_HOVER : 0;
      k++;
      if (b - a >= MIN_INTERVAL_LABEL_WIDTH) labels.push({ x: a, y, w: b - a, h: LEVEL_HEIGHT, text: m.labelOf(i), r: c[0], g: c[1], b: c[2] });
    };
    const lastEnd = new Float64Array(64);
    let hoverRect: [number, number, number] | null = null;
    for (let r = m.firstRowBelow(scrollY); r < m.rowCount; r++) {
      const top = AXIS_HEIGHT + m.rowY[r] - scrollY;
      if (top >= this.g.height) break;
      const rows = m.input.rows, first = r === 0 || rows[r].group !== rows[r - 1].group;
      rowLabels.push({ y: top, h: m.rowH[r], text: rows[r].label, groupStart: r > 0 && first,
        ...(m.input.groupLabels ? { right: true, group: first ? rows[r].group : undefined } : {}) });
      lastEnd.fill(-Infinity);
      for (let q = m.rowStart[r], e = m.rowStart[r + 1]; q < e; q++) {
        const i = m.order[q];
        const s = m.start[i];
        if (s > v1) break;
        const en = m.end[i];
        if (en < v0) continue;
        const a = Math.max(GUTTER, GUTTER + (s - v0) * scale), b = Math.min(W + 1, GUTTER + (en - v0) * scale);
        const d = m.depth[i];
        const y = top + d * LEVEL_HEIGHT;
        if (y + LEVEL_HEIGHT <= AXIS_HEIGHT || y >= this.g.height) continue;
        if (i === this.hovered) hoverRect = [a, b, y];
        const dl = d < 64 ? d : 63;
        // Sub-pixel intervals on a pixel already covered at this depth add nothing visible.
        if (b - a < 1 && b <= lastEnd[dl]) continue;
        lastEnd[dl] = Math.max(lastEnd[dl], a + 1, b);
        push(i, a, b, y);
      }
    }
    // The hovered interval last, so its outline is on top even where it was coalesced.
    if (hoverRect) push(this.hovered, hoverRect[0], hoverRect[1], hoverRect[2]);
    // Marks (the critical path at the row's top, bubbles at its bottom) over the intervals.
    let marks = 0;
    const mk = m.input.marks;
    if (mk && (this.showPath || this.showBubbles)) {
      const first = m.firstRowBelow(scrollY);
      for (let j = 0; j < mk.row.length; j++) {
        const kind = mk.kind[j];
        const path = kind === MarkKind.Path || kind === MarkKind.PathHop;
        if (path ? !this.showPath : !this.showBubbles) continue;
        const r = mk.row[j];
        if (r < first) continue;
        const top = AXIS_HEIGHT + m.rowY[r] - scrollY;
        if (top >= this.g.height || mk.start[j] > v1 || mk.end[j] < v0) continue;
        const a = Math.max(GUTTER, GUTTER + (mk.start[j] - v0) * scale), b = Math.min(W + 1, GUTTER + (mk.end[j] - v0) * scale);
        const h = kind === MarkKind.PathHop ? 2 : MARK_HEIGHT;
        const y = path ? top : top + m.rowH[r] - MARK_HEIGHT;
        const c = MARK_COLORS[kind as number] ?? MARK_COLORS[0];
        const o = k * 4;
        rects[o] = a; rects[o + 1] = Math.max(b, a + 1); rects[o + 2] = y; rects[o + 3] = h + 1;  // the shader keeps 1 px as a gap
        out[o] = c[0]; out[o + 1] = c[1]; out[o + 2] = c[2]; out[o + 3] = 255;
        flags[k] = 0;
        k++;
        marks++;
      }
    }
    this.root.dataset.marks = String(marks);
    this.batch.count = k;
    this.intervalLabels = labels;
  }
}
