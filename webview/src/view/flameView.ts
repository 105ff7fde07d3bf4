// The flame graph widget: owns the canvases, turns the model's layout into a batch of rects
// (culling rects narrower than half a pixel, outside the horizontal viewport and rows outside
// the scrolled viewport), draws them with the WebGL renderer plus a 2D label layer, and handles
// the pointer: wheel zooms at the pointer (Shift+wheel scrolls rows, a horizontal wheel pans),
// drag pans, click zooms into a frame; back / forward through the zoom history. Data the host
// sent in part: a drawn node whose left-out children would now be wider than half a pixel is
// reported (needNodes) so that its part is asked for; the part, once in, is drawn in place.
import type { FlameData } from '../protocol';
import type { Added, LoadedView } from '../model/viewParts';
import { FlameModel, SearchResult } from '../model/flameModel';
import { formatPercent, formatValue, kindName } from '../model/format';
import { capText } from '../model/frameNames';
import { ZoomHistory, ZoomPlace } from '../model/zoomHistory';
import { computeFrameColors, mix } from '../render/colors';
import { FLAG_FOCUS, FLAG_OUTLINE, FlameRenderer, RectBatch } from '../render/flameRenderer';
import { Label, LabelLayer, MIN_LABEL_WIDTH } from '../render/labels';
import type { Theme } from '../ui/theme';
import { Tooltip } from '../ui/tooltip';
import { GraphStage } from './graphStage';

export const ROW_HEIGHT = 18;
const MIN_RECT_PX = 0.5;
const DIM = 0.72;
const DRAG_PX = 4;
/** A wheel gesture: events closer than this (ms) are one history entry. */
const WHEEL_GESTURE_MS = 400;

export interface FlameViewHandlers {
  openSource(node: number): void;
  focusChanged(): void;
  /** The pointer rests on `node` (-1: none): the app may fetch its details for the tooltip. */
  hovered?(node: number): void;
  /** The visible part changed (wheel, drag, keys, history): state to keep. */
  viewportChanged?(): void;
  /** Extra tooltip rows for a node (every metric's statistics, when the app has them). */
  tooltipRows?(node: number): [string, string][];
  /** Drawn nodes whose left-out children are now wide enough to draw, each with the value half
   *  a pixel is worth at this zoom (what their parts should go down to). */
  needNodes?(needs: NodeNeed[]): void;
  /** Drawn nodes a zoom into them would need the part of (each with the value half a pixel is
   *  worth once zoomed into it): asked for in the background, widest first, when nothing is
   *  needed now. */
  fillNodes?(needs: NodeNeed[]): void;
}

export interface NodeNeed { node: number; minValue: number }
/** Colours: RGBA bytes per frame of the table (a node has its frame's) or per node. */
interface NodeColors { rgba: Uint8Array; byFrame: boolean }
/** Colours nodes [from, data's length) into `out` (RGBA per node). */
export type NodeColoring = (data: FlameData, theme: Theme, out: Uint8Array, from: number) => void;
/** A part asked for goes this much below half a pixel: the next zoom steps need no new part. */
const PART_AHEAD = 4;
/** At most this many parts asked for per frame drawn. */
const NEEDS_PER_FRAME = 32;
/** Background fill: nodes at least this wide (px), a user zooms into; at most this many a frame. */
const FILL_MIN_PX = 16;
const FILLS_PER_FRAME = 16;

export interface FlameViewStats {
  frames: number;
  instances: number;
  labels: number;
  buildMs: number;
  drawMs: number;
  /** Time to take a new profile (model, layout, colours), ms. */
  loadMs: number;
  focus: number;
  nodes: number;
  rowHeight: number;
  width: number;
  height: number;
  dpr: number;
  webgl: boolean;
  /** The visible part of the focused width. */
  v0: number;
  v1: number;
}

export class FlameView {
  readonly root: HTMLElement;
  private g: GraphStage<FlameRenderer>;
  private labels: LabelLayer;

  model: FlameModel | null = null;
  /** RGBA per frame of the table (by whose code), or per node (a colouring such as the diff's). */
  private colors: NodeColors | null = null;
  /** The frame colours made last, kept while the frame table and the theme are the same: a
   *  view's parts share its frame table. */
  private frameColors: { frames: FlameData['frames']; theme: Theme; rgba: Uint8Array } | null = null;
  private searchResult: SearchResult | null = null;
  /** Outlined: nodes (the host's 'highlight'; nodes added later are not) or frames (a source
   *  line's: every node of those frames, also the ones parts add). */
  private highlighted: Uint8Array | null = null;
  private highlightedFrames: Uint8Array | null = null;
  private hovered = -1;
  private batch: RectBatch = { rects: new Float32Array(0), colors: new Uint8Array(0), count: 0 };
  private labelList: Label[] = [];
  private lastMouse: { x: number; y: number } | null = null;
  private drag: { x: number; y: number; v0: number; scroll: number; moved: boolean } | null = null;
  private suppressClick = false;
  private lastWheel = 0;
  readonly history = new ZoomHistory();
  /** Per frame of the table: 0 dims its nodes ("my code" highlight: the user's code kept). */
  private dimmed: Uint8Array | null = null;
  /** Colours per node other than by whose code (the diff mode's, by change); null: by code. */
  private coloring: NodeColoring | null = null;
  readonly stats: FlameViewStats = {
    frames: 0, instances: 0, labels: 0, buildMs: 0, drawMs: 0, loadMs: 0, focus: 0, nodes: 0,
    rowHeight: ROW_HEIGHT, width: 0, height: 0, dpr: 1, webgl: false, v0: 0, v1: 1,
  };

  constructor(private theme: Theme, private tooltip: Tooltip, private h: FlameViewHandlers) {
    this.g = new GraphStage<FlameRenderer>({
      rootClass: 'strata-graph', stageClass: 'strata-stage', rootAttrs: { 'aria-label': 'Flame graph' },
      waiting: 'Waiting for a profile…', what: 'flame graph',
      makeRenderer: (canvas, onRestored) => new FlameRenderer(canvas, onRestored),
      frame: () => this.frame(),
    });
    this.root = this.g.root;
    this.stats.webgl = this.g.renderer !== null;
    this.labels = new LabelLayer(this.g.overlayCanvas);
    this.g.stage.addEventListener('mousemove', (e) => { if (!this.drag) this.onMove(e); });
    this.g.stage.addEventListener('mouseleave', () => { if (!this.drag) { this.lastMouse = null; this.setHover(-1); this.tooltip.hide(); } });
    this.g.stage.addEventListener('click', (e) => this.onClick(e));
    this.g.stage.addEventListener('wheel', (e) => this.onWheel(e), { passive: false });
    this.g.stage.addEventListener('mousedown', (e) => this.onDown(e));
  }

  /** Why WebGL could not be used (then nothing is drawn), or null. */
  get webglError(): string | null { return this.g.webglError; }

  // ---- data -------------------------------------------------------------------------------

  setData(data: FlameData, limit?: Float64Array): void {
    const prev = this.model;
    const prevPath = prev && prev.data.view === data.view && prev.focus > 0 ? prev.stepsTo(prev.focus) : null;
    const query = this.searchResult?.query ?? '';
    const t0 = performance.now();
    const m = new FlameModel(data, limit);
    this.model = m;
    this.colors = this.colorsOf(data);
    this.highlighted = null;
    this.highlightedFrames = null;
    this.hovered = -1;
    this.stats.nodes = m.n;
    this.batch = { rects: new Float32Array(m.n * 4), colors: new Uint8Array(m.n * 4), count: 0 };
    this.history.reset();
    if (prevPath) { m.layout(m.findSteps(prevPath)); this.history.push(this.place); }
    this.searchResult = query ? m.search(query) : null;
    this.stats.loadMs = performance.now() - t0;
    this.g.placeholder.hidden = !this.webglError;
    this.tooltip.hide();
    this.h.focusChanged();
    this.schedule();
  }

  /** The same view with more of it (a node's part came in: nodes `added` at the end): the
   *  zoom, the visible part, the history and the outlines stay (nodes keep their indexes); what
   *  is done costs the part, not the nodes held. */
  extend(v: LoadedView, added: Added): void {
    const m = this.model;
    if (!m) { this.setData(v.data, v.limit); return; }
    const t0 = performance.now();
    m.grow(v.data, v.limit, added.from, (id) => v.indexOf(id));
    if (this.colors && !this.colors.byFrame && this.coloring) {
      const rgba = this.colors.rgba.length >= m.n * 4 ? this.colors.rgba : grownBytes(this.colors.rgba, Math.max(m.n * 4, this.colors.rgba.length * 1.5));
      this.coloring(v.data, this.theme, rgba, added.from);
      this.colors = { rgba, byFrame: false };
    }
    this.stats.nodes = m.n;
    const query = this.searchResult?.query ?? '';
    this.searchResult = query ? m.search(query) : null;
    this.stats.loadMs = performance.now() - t0;
    this.schedule();
  }

  /** Colours nodes by `fn` instead of by whose code they are (null: by code again). */
  setColoring(fn: NodeColoring | null): void {
    this.coloring = fn;
    if (this.model) this.colors = this.colorsOf(this.model.data);
    this.schedule();
  }

  private colorsOf(data: FlameData): NodeColors {
    if (this.coloring) {
      const rgba = new Uint8Array(data.parent.length * 4);
      this.coloring(data, this.theme, rgba, 0);
      return { rgba, byFrame: false };
    }
    const c = this.frameColors;
    if (c && c.frames === data.frames && c.theme === this.theme) return { rgba: c.rgba, byFrame: true };
    const rgba = computeFrameColors(data, this.theme);
    this.frameColors = { frames: data.frames, theme: this.theme, rgba };
    return { rgba, byFrame: true };
  }

  /** Dims the nodes of frames (of the table) for which `keep` is 0 (null: none dimmed; the root
   *  never is). */
  setDimmed(keep: Uint8Array | null): void {
    this.dimmed = keep;
    this.schedule();
  }

  setTheme(theme: Theme): void {
    this.theme = theme;
    if (this.model) this.colors = this.colorsOf(this.model.data);
    this.schedule();
  }

  search(query: string): SearchResult | null {
    this.searchResult = this.model ? this.model.search(query) : null;
    this.schedule();
    return this.searchResult;
  }

  get searchState(): SearchResult | null { return this.searchResult; }

  /** Outlines `nodes`. With `zoomOut` (the default, for 'highlight') the graph zooms out to the
   *  root when none of them is visible in the zoomed subtree. */
  setHighlight(nodes: number[], zoomOut = true): void {
    const m = this.model;
    if (!m) return;
    const hl = new Uint8Array(m.n);
    let any = false, anyVisible = false;
    for (const v of nodes) {
      const i = Number(v);
      if (Number.isInteger(i) && i >= 0 && i < m.n) { hl[i] = 1; any = true; if (m.isVisible(i)) anyVisible = true; }
    }
    this.highlighted = any ? hl : null;
    this.highlightedFrames = null;
    if (any && !anyVisible && zoomOut) { m.layout(0); this.h.focusChanged(); }
    this.schedule();
  }

  /** Outlines every node of the frames (of the table) marked in `frames` (null: none), without
   *  zooming: also the nodes parts add later. */
  setHighlightFrames(frames: Uint8Array | null): void {
    this.highlightedFrames = frames;
    this.highlighted = null;
    this.schedule();
  }

  /** The graph's width in CSS pixels (what a part's bound is computed for). */
  get width(): number { return this.g.width || this.root.clientWidth || window.innerWidth; }

  /** Ids of the outlined nodes (for tests and the app). */
  get highlightedNodes(): number[] {
    const out: number[] = [];
    const m = this.model;
    if (!m) return out;
    for (let i = 0; i < m.n; i++) if (this.isOutlined(i, m.data.frame)) out.push(i);
    return out;
  }

  private isOutlined(i: number, frame: Uint32Array): boolean {
    const hl = this.highlighted, hf = this.highlightedFrames;
    return !!((hl && i < hl.length && hl[i]) || (hf && hf[frame[i]]));
  }

  // ---- zoom / source ---------------------------------------------------------------------

  /** Where the graph is: the focused node and the visible part of its width. */
  get place(): ZoomPlace {
    const m = this.model;
    return m ? { focus: m.focus, v0: m.v0, v1: m.v1 } : { focus: 0, v0: 0, v1: 1 };
  }

  /** Goes to `p` (from the history or saved state) without recording it. */
  goTo(p: ZoomPlace): void {
    const m = this.model;
    if (!m) return;
    const focus = p.focus >= 0 && p.focus < m.n ? p.focus : 0;
    if (focus !== m.focus) { m.layout(focus); this.h.focusChanged(); }
    m.setViewport(p.v0, p.v1);
    this.tooltip.hide();
    this.afterViewport();
  }

  back(): boolean { const p = this.history.back(); if (p) this.goTo(p); return !!p; }
  forward(): boolean { const p = this.history.forward(); if (p) this.goTo(p); return !!p; }

  /** Zooms the visible part by `factor` (< 1: in) around screen fraction `xs` (default: centre). */
  zoomViewport(factor: number, xs = 0.5): void {
    const m = this.model;
    if (!m) return;
    m.zoomAt(xs, factor);
    this.history.push(this.place);
    this.afterViewport();
  }

  /** Pans the visible part by `d` of its own width. */
  panViewport(d: number): void {
    const m = this.model;
    if (!m) return;
    m.pan(d * m.span);
    this.history.push(this.place);
    this.afterViewport();
  }

  private afterViewport(): void {
    this.h.viewportChanged?.();
    this.schedule();
    this.refreshHover();
  }

  zoom(node: number): void {
    const m = this.model;
    if (!m || node < 0 || node >= m.n || (node === m.focus && !m.zoomedIn)) return;
    m.layout(node);
    this.history.push(this.place);
    this.h.viewportChanged?.();
    this.root.scrollTop = Math.min(this.root.scrollTop, Math.max(0, (m.depth[node] - 1) * ROW_HEIGHT));
    this.tooltip.hide();
    this.h.focusChanged();
    this.schedule();
    this.refreshHover();
  }

  resetZoom(): void { this.zoom(0); }

  zoomOut(): void {
    const m = this.model;
    if (m && m.focus > 0) this.zoom(m.data.parent[m.focus]);
  }

  /** Frame under the pointer, else the focused frame. */
  get current(): number { return this.hovered >= 0 ? this.hovered : this.model ? this.model.focus : -1; }

  hasSource(node: number): boolean {
    const m = this.model;
    if (!m || node < 0) return false;
    // Only frames with a source file (kernels, unsymbolized native frames and the root have none).
    return node < m.n && m.data.frames.file[m.data.frame[node]] !== 0;
  }

  // ---- pointer -----------------------------------------------------------------------------

  private nodeAt(clientX: number, clientY: number): number {
    const m = this.model;
    if (!m) return -1;
    const r = this.g.stage.getBoundingClientRect();
    const x = clientX - r.left;
    const y = clientY - r.top + this.root.scrollTop;
    if (y < 0 || this.g.width <= 0) return -1;
    const row = Math.floor(y / ROW_HEIGHT);
    if (y - row * ROW_HEIGHT > ROW_HEIGHT - 1) return -1; // the gap between rows
    return m.hitTest(x / this.g.width, row, MIN_RECT_PX / this.g.width);
  }

  private onMove(e: MouseEvent): void {
    this.lastMouse = { x: e.clientX, y: e.clientY };
    this.refreshHover();
  }

  /** Redraws the tooltip of the frame under the pointer (its details arrived). */
  refreshHover(): void {
    const m = this.model;
    if (!m || !this.lastMouse) return;
    const node = this.nodeAt(this.lastMouse.x, this.lastMouse.y);
    this.setHover(node);
    if (node < 0) { this.tooltip.hide(); return; }
    const d = m.data;
    const f = d.frame[node];
    const file = d.strings[d.frames.file[f]];
    const line = d.frames.line[f];
    // Bottom-up: a root is a function where time was spent (its value is that time), a deeper
    // node a caller through which it was reached; "self" would read 0 there.
    const bottomUp = d.view === 'bottom-up';
    const rows: [string, string][] = [
      [bottomUp ? (d.parent[node] === 0 ? 'Spent here' : 'Through this caller') : 'Total',
        `${formatValue(d.inclusive[node], d.unit)} (${formatPercent(d.inclusive[node], m.total)})`],
    ];
    if (!bottomUp) rows.push(['Self', `${formatValue(d.exclusive[node], d.unit)} (${formatPercent(d.exclusive[node], m.total)})`]);
    if (m.focus > 0 && m.isInFocusSubtree(node)) {
      rows.push(['Of zoomed', formatPercent(d.inclusive[node], d.inclusive[m.focus])]);
    }
    if (d.metric) rows.push(['Metric', d.metric]);
    if (m.truncated(node)) rows.push(['Stack', 'truncated here: its callers are unknown']);
    for (const r of this.h.tooltipRows?.(node) ?? []) rows.push(r);
    const canOpen = this.hasSource(node);
    this.h.hovered?.(node);
    this.tooltip.show({
      name: m.label(node),
      location: capText(file ? (line ? `${file}:${line}` : file) : ''),
      module: capText(d.strings[d.frames.module[f]] ?? ''),
      kind: kindName(d.frames.kind[f]),
      rows,
      hint: node === m.focus
        ? (canOpen ? 'Click or Enter: go to source' : '')
        : canOpen ? 'Click: zoom · Ctrl/⌘+click: go to source' : 'Click: zoom',
    }, this.lastMouse.x, this.lastMouse.y);
  }

  private setHover(node: number): void {
    if (node === this.hovered) return;
    this.hovered = node;
    this.g.stage.style.cursor = node >= 0 ? 'pointer' : 'default';
    this.schedule();
  }

  private onClick(e: MouseEvent): void {
    if (this.suppressClick) { this.suppressClick = false; return; }
    if (e.button !== 0 || !this.model) return;
    const node = this.nodeAt(e.clientX, e.clientY);
    if (node < 0) return;
    if (e.ctrlKey || e.metaKey || node === this.model.focus) {
      if (this.hasSource(node)) this.h.openSource(node);
      return;
    }
    this.zoom(node);
  }

  private onWheel(e: WheelEvent): void {
    const m = this.model;
    if (!m) return;
    const scale = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? this.g.height : 1;
    const dx = e.deltaX * scale, dy = e.deltaY * scale;
    if (e.shiftKey) return; // the browser scrolls the rows
    e.preventDefault();
    const r = this.g.stage.getBoundingClientRect();
    const xs = (e.clientX - r.left) / this.g.width;
    if (Math.abs(dx) > Math.abs(dy)) m.pan((dx / this.g.width) * m.span);
    else m.zoomAt(Math.min(1, Math.max(0, xs)), Math.exp(dy * 0.002));
    // One wheel gesture is one history entry.
    const now = performance.now();
    if (now - this.lastWheel > WHEEL_GESTURE_MS) this.history.push(this.place); else this.history.replace(this.place);
    this.lastWheel = now;
    this.afterViewport();
  }

  private onDown(e: MouseEvent): void {
    const m = this.model;
    if (e.button !== 0 || !m) return;
    this.drag = { x: e.clientX, y: e.clientY, v0: m.v0, scroll: this.root.scrollTop, moved: false };
    const move = (ev: MouseEvent) => {
      const d = this.drag;
      const mm = this.model;
      if (!d || !mm) return;
      const dx = ev.clientX - d.x, dy = ev.clientY - d.y;
      if (!d.moved && Math.abs(dx) < DRAG_PX && Math.abs(dy) < DRAG_PX) return;
      if (!d.moved) { d.moved = true; this.tooltip.hide(); this.g.stage.style.cursor = 'grabbing'; }
      mm.setViewport(d.v0 - (dx / this.g.width) * mm.span, d.v0 - (dx / this.g.width) * mm.span + mm.span);
      this.root.scrollTop = d.scroll - dy;
      this.h.viewportChanged?.();
      this.schedule();
    };
    const up = (ev: MouseEvent) => {
      window.removeEventListener('mousemove', move);
      window.removeEventListener('mouseup', up);
      const d = this.drag;
      this.drag = null;
      if (d?.moved) {
        this.suppressClick = true;   // the click that ends a drag is not a zoom
        setTimeout(() => { this.suppressClick = false; }, 0);
        this.history.push(this.place);
        this.g.stage.style.cursor = 'default';
      }
      this.onMove(ev);
    };
    window.addEventListener('mousemove', move);
    window.addEventListener('mouseup', up);
  }

  // ---- drawing -----------------------------------------------------------------------------

  schedule(): void { this.g.schedule(); }

  /** Synchronous redraw (also used by tests through the debug hook). */
  frame(): void {
    const m = this.model;
    const scrollY = this.g.measure(m ? (m.maxDepth + 1) * ROW_HEIGHT + 4 : 0);
    const t0 = performance.now();
    if (m) this.build(m, scrollY); else { this.batch.count = 0; this.labelList = []; }
    const t1 = performance.now();
    if (this.g.renderer) {
      this.g.renderer.resize(this.g.width, this.g.height, this.g.dpr);
      this.g.renderer.upload(this.batch);
      this.g.renderer.render({
        width: this.g.width, height: this.g.height, dpr: this.g.dpr, rowHeight: ROW_HEIGHT, scrollY,
        background: this.theme.background, outline: this.theme.foreground,
      });
    }
    this.labels.resize(this.g.width, this.g.height, this.g.dpr);
    this.labels.draw(this.g.renderer ? this.labelList : [], {
      dpr: this.g.dpr, rowHeight: ROW_HEIGHT, scrollY, fontFamily: this.theme.fontFamily, fontSize: this.theme.fontSize,
    });
    const t2 = performance.now();
    Object.assign(this.stats, {
      frames: this.stats.frames + 1, instances: this.batch.count, labels: this.labelList.length,
      buildMs: t1 - t0, drawMs: t2 - t1, focus: m ? m.focus : 0, width: this.g.width, height: this.g.height, dpr: this.g.dpr,
      v0: m ? m.v0 : 0, v1: m ? m.v1 : 1,
    });
  }

  private build(m: FlameModel, scrollY: number): void {
    const W = this.g.width;
    const rowTop = Math.floor(scrollY / ROW_HEIGHT);
    const rowBottom = Math.ceil((scrollY + this.g.height) / ROW_HEIGHT);
    if (this.batch.rects.length < m.n * 4) {
      const cap = Math.max(m.n * 4, Math.ceil(this.batch.rects.length * 1.5));
      this.batch = { rects: new Float32Array(cap), colors: new Uint8Array(cap), count: 0 };
    }
    const { rects, colors: out } = this.batch;
    const base = this.colors!.rgba;
    const byFrame = this.colors!.byFrame;
    const frameOf = m.data.frame;
    const match = this.searchResult?.matches ?? null;
    const hl = this.highlighted, hf = this.highlightedFrames;
    const bg = this.theme.background;
    const depth = m.depth, x0 = m.x0, x1 = m.x1;
    const dimmed = this.dimmed;
    const v0 = m.v0, scale = W / m.span;
    const labels: Label[] = [];
    let k = 0;
    const push = (i: number, a: number, b: number, row: number, ancestor: boolean) => {
      const o = k * 4;
      const f = frameOf[i];
      rects[o] = a; rects[o + 1] = b; rects[o + 2] = row;
      rects[o + 3] = ((hl && i < hl.length && hl[i]) || (hf && hf[f]) ? FLAG_OUTLINE : 0) + (i === this.hovered ? FLAG_FOCUS : 0);
      const dim = match ? (i < match.length && match[i] ? 0 : DIM) : dimmed && i > 0 && !dimmed[f] ? DIM * 0.8 : ancestor ? 0.25 : 0;
      const c = (byFrame ? f : i) * 4;
      if (dim) mix(base, c, bg, dim, out, o);
      else { out[o] = base[c]; out[o + 1] = base[c + 1]; out[o + 2] = base[c + 2]; out[o + 3] = 255; }
      k++;
      const la = Math.max(a, 0), lb = Math.min(b, W);
      if (lb - la >= MIN_LABEL_WIDTH) labels.push({ x: la, row, w: lb - la, text: m.label(i), r: out[o], g: out[o + 1], b: out[o + 2] });
    };
    const anc = m.ancestors;
    for (let d = 0; d < anc.length - 1; d++) if (d >= rowTop && d < rowBottom) push(anc[d], 0, W, d, true);
    const f = m.focus;
    // Pixels per unit of value at this zoom: a node whose left-out children are under limit[i]
    // needs its part once limit[i] is worth half a pixel.
    const pxPerValue = m.data.inclusive[f] > 0 ? scale / m.data.inclusive[f] : 0;
    const limit = m.limit;
    const needs: NodeNeed[] = [];
    const fills: { node: number; minValue: number; px: number }[] = [];
    // Only the outermost nodes in need: a part goes down their whole subtree. A node's need
    // covers its subtree: the walk marks where it is inside one by the depth it began at.
    let needDepth = -1;
    const inclusive = m.data.inclusive;
    m.walk(f, (i) => {
      const row = depth[i];
      if (needDepth >= 0 && row <= needDepth) needDepth = -1;
      let a = (x0[i] - v0) * scale, b = (x1[i] - v0) * scale;
      // Narrow, outside the viewport or below the screen: the whole subtree is culled.
      if (b - a < MIN_RECT_PX || row >= rowBottom || b <= 0 || a >= W) return false;
      if (a < -1) a = -1;
      if (b > W + 1) b = W + 1;
      if (row >= rowTop) push(i, a, b, row, false);
      if (needDepth < 0 && limit[i] > 0 && limit[i] * pxPerValue >= MIN_RECT_PX && row + 1 < rowBottom && needs.length < NEEDS_PER_FRAME) {
        needs.push({ node: i, minValue: MIN_RECT_PX / pxPerValue / PART_AHEAD });
        needDepth = row;
      } else if (limit[i] > 0 && b - a >= FILL_MIN_PX && i !== f && row >= rowTop) {
        // Zoomed into, node i would span the width: half a pixel is then worth inclusive / W (no
        // further: every node the fill adds makes each later part's putting in place slower).
        fills.push({ node: i, minValue: (MIN_RECT_PX * inclusive[i]) / W, px: b - a });
      }
      return true;
    });
    this.batch.count = k;
    this.labelList = labels;
    if (needs.length) this.h.needNodes?.(needs);
    else if (fills.length) {
      fills.sort((x, y) => y.px - x.px);
      this.h.fillNodes?.(fills.slice(0, FILLS_PER_FRAME).map(({ node, minValue }) => ({ node, minValue })));
    }
  }
}

function grownBytes(a: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(Math.ceil(size / 4) * 4);
  out.set(a);
  return out;
}
