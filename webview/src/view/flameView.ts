// The flame graph widget: owns the canvases, turns the model's layout into a batch of rects
// (culling rects narrower than half a pixel and rows outside the scrolled viewport), draws
// them with the WebGL renderer plus a 2D label layer, and handles mouse and keyboard.
import type { FlameData } from '../protocol';
import { FlameModel, SearchResult } from '../model/flameModel';
import { formatPercent, formatValue, kindName } from '../model/format';
import { computeNodeColors, mix } from '../render/colors';
import { FLAG_FOCUS, FLAG_OUTLINE, FlameRenderer, RectBatch, WebGLUnavailableError } from '../render/flameRenderer';
import { Label, LabelLayer, MIN_LABEL_WIDTH } from '../render/labels';
import type { Theme } from '../ui/theme';
import { Tooltip } from '../ui/tooltip';
import { el } from '../ui/dom';

export const ROW_HEIGHT = 18;
const MIN_RECT_PX = 0.5;
const DIM = 0.72;

export interface FlameViewHandlers {
  openSource(node: number): void;
  focusChanged(): void;
}

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
}

export class FlameView {
  readonly root: HTMLElement;
  private stage: HTMLElement;
  private glCanvas: HTMLCanvasElement;
  private labelCanvas: HTMLCanvasElement;
  private spacer: HTMLElement;
  private placeholder: HTMLElement;
  private renderer: FlameRenderer | null = null;
  private labels: LabelLayer;
  readonly webglError: string | null = null;

  model: FlameModel | null = null;
  private colors: Uint8Array | null = null;
  private searchResult: SearchResult | null = null;
  private highlighted: Uint8Array | null = null;
  private hovered = -1;
  private batch: RectBatch = { rects: new Float32Array(0), colors: new Uint8Array(0), count: 0 };
  private labelList: Label[] = [];
  private scheduled = false;
  private dpr = 1;
  private width = 1;
  private height = 1;
  private lastMouse: { x: number; y: number } | null = null;
  readonly stats: FlameViewStats = {
    frames: 0, instances: 0, labels: 0, buildMs: 0, drawMs: 0, loadMs: 0, focus: 0, nodes: 0,
    rowHeight: ROW_HEIGHT, width: 0, height: 0, dpr: 1, webgl: false,
  };

  constructor(private theme: Theme, private tooltip: Tooltip, private h: FlameViewHandlers) {
    this.glCanvas = el('canvas', { className: 'strata-gl' });
    this.labelCanvas = el('canvas', { className: 'strata-labels', attrs: { 'aria-hidden': 'true' } });
    this.placeholder = el('div', { className: 'strata-placeholder', text: 'Waiting for a profile…' });
    this.stage = el('div', { className: 'strata-stage' }, this.glCanvas, this.labelCanvas, this.placeholder);
    this.spacer = el('div', { className: 'strata-spacer' });
    this.root = el('div', {
      className: 'strata-graph',
      attrs: { tabindex: '0', role: 'img', 'aria-label': 'Flame graph' },
    }, this.stage, this.spacer);
    this.labels = new LabelLayer(this.labelCanvas);
    try {
      this.renderer = new FlameRenderer(this.glCanvas, () => this.schedule());
      this.stats.webgl = true;
    } catch (e) {
      this.webglError = e instanceof WebGLUnavailableError ? e.message : `WebGL initialisation failed: ${String(e)}`;
      this.glCanvas.hidden = true;
      this.placeholder.textContent = `${this.webglError} The flame graph cannot be drawn.`;
      this.placeholder.classList.add('strata-placeholder-error');
    }
    this.root.addEventListener('scroll', () => this.schedule(), { passive: true });
    this.stage.addEventListener('mousemove', (e) => this.onMove(e));
    this.stage.addEventListener('mouseleave', () => { this.lastMouse = null; this.setHover(-1); this.tooltip.hide(); });
    this.stage.addEventListener('click', (e) => this.onClick(e));
    new ResizeObserver(() => this.schedule()).observe(this.root);
    window.addEventListener('resize', () => this.schedule());
    this.watchDpr();
  }

  private watchDpr(): void {
    const mq = window.matchMedia(`(resolution: ${window.devicePixelRatio}dppx)`);
    const onChange = () => { mq.removeEventListener('change', onChange); this.watchDpr(); this.schedule(); };
    mq.addEventListener('change', onChange);
  }

  // ---- data -------------------------------------------------------------------------------

  setData(data: FlameData): void {
    const prev = this.model;
    const prevPath = prev && prev.data.view === data.view && prev.focus > 0 ? prev.pathTo(prev.focus).map((i) => prev.label(i)) : null;
    const query = this.searchResult?.query ?? '';
    const t0 = performance.now();
    const m = new FlameModel(data);
    this.model = m;
    this.colors = computeNodeColors(data, this.theme);
    this.highlighted = null;
    this.hovered = -1;
    this.stats.nodes = m.n;
    const cap = m.n * 4;
    this.batch = { rects: new Float32Array(cap), colors: new Uint8Array(cap), count: 0 };
    if (prevPath) m.layout(this.findPath(m, prevPath));
    this.searchResult = query ? m.search(query) : null;
    this.stats.loadMs = performance.now() - t0;
    this.placeholder.hidden = !this.webglError;
    this.tooltip.hide();
    this.h.focusChanged();
    this.schedule();
  }

  private findPath(m: FlameModel, names: string[]): number {
    let cur = 0;
    for (let d = 1; d < names.length; d++) {
      let c = m.firstChild[cur];
      while (c >= 0 && m.label(c) !== names[d]) c = m.nextSibling[c];
      if (c < 0) break;
      cur = c;
    }
    return cur;
  }

  setTheme(theme: Theme): void {
    this.theme = theme;
    if (this.model) this.colors = computeNodeColors(this.model.data, theme);
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
    if (any && !anyVisible && zoomOut) { m.layout(0); this.h.focusChanged(); }
    this.schedule();
  }

  /** Ids of the outlined nodes (for tests and the app). */
  get highlightedNodes(): number[] {
    const out: number[] = [];
    const hl = this.highlighted;
    if (hl) for (let i = 0; i < hl.length; i++) if (hl[i]) out.push(i);
    return out;
  }

  // ---- zoom / source ---------------------------------------------------------------------

  zoom(node: number): void {
    const m = this.model;
    if (!m || node < 0 || node >= m.n || node === m.focus) return;
    m.layout(node);
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
    return node !== 0 || m.data.file[node] !== 0;
  }

  // ---- pointer -----------------------------------------------------------------------------

  private nodeAt(clientX: number, clientY: number): number {
    const m = this.model;
    if (!m) return -1;
    const r = this.stage.getBoundingClientRect();
    const x = clientX - r.left;
    const y = clientY - r.top + this.root.scrollTop;
    if (y < 0 || this.width <= 0) return -1;
    const row = Math.floor(y / ROW_HEIGHT);
    if (y - row * ROW_HEIGHT > ROW_HEIGHT - 1) return -1; // the gap between rows
    return m.hitTest(x / this.width, row, MIN_RECT_PX / this.width);
  }

  private onMove(e: MouseEvent): void {
    this.lastMouse = { x: e.clientX, y: e.clientY };
    this.refreshHover();
  }

  private refreshHover(): void {
    const m = this.model;
    if (!m || !this.lastMouse) return;
    const node = this.nodeAt(this.lastMouse.x, this.lastMouse.y);
    this.setHover(node);
    if (node < 0) { this.tooltip.hide(); return; }
    const d = m.data;
    const file = d.strings[d.file[node]];
    const line = d.line[node];
    const rows: [string, string][] = [
      ['Total', `${formatValue(d.inclusive[node], d.unit)} (${formatPercent(d.inclusive[node], m.total)})`],
      ['Self', `${formatValue(d.exclusive[node], d.unit)} (${formatPercent(d.exclusive[node], m.total)})`],
    ];
    if (m.focus > 0 && m.isInFocusSubtree(node)) {
      rows.push(['Of zoomed', formatPercent(d.inclusive[node], d.inclusive[m.focus])]);
    }
    if (d.metric) rows.push(['Metric', d.metric]);
    const canOpen = this.hasSource(node);
    this.tooltip.show({
      name: m.label(node),
      location: file ? (line ? `${file}:${line}` : file) : '',
      module: d.strings[d.module[node]] ?? '',
      kind: kindName(d.kind[node]),
      rows,
      hint: node === m.focus
        ? (canOpen ? 'Click or Enter: go to source' : '')
        : canOpen ? 'Click: zoom · Ctrl/⌘+click: go to source' : 'Click: zoom',
    }, this.lastMouse.x, this.lastMouse.y);
  }

  private setHover(node: number): void {
    if (node === this.hovered) return;
    this.hovered = node;
    this.stage.style.cursor = node >= 0 ? 'pointer' : 'default';
    this.schedule();
  }

  private onClick(e: MouseEvent): void {
    if (e.button !== 0 || !this.model) return;
    const node = this.nodeAt(e.clientX, e.clientY);
    if (node < 0) return;
    if (e.ctrlKey || e.metaKey || node === this.model.focus) {
      if (this.hasSource(node)) this.h.openSource(node);
      return;
    }
    this.zoom(node);
  }

  // ---- drawing -----------------------------------------------------------------------------

  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => { this.scheduled = false; this.frame(); });
  }

  /** Synchronous redraw (also used by tests through the debug hook). */
  frame(): void {
    const m = this.model;
    const vw = this.root.clientWidth, vh = this.root.clientHeight;
    this.width = Math.max(1, vw);
    this.height = Math.max(1, vh);
    this.dpr = Math.max(0.25, window.devicePixelRatio || 1);
    this.stage.style.height = `${this.height}px`;
    const contentH = m ? (m.maxDepth + 1) * ROW_HEIGHT + 4 : 0;
    this.spacer.style.height = `${Math.max(0, contentH - this.height)}px`;
    const scrollY = this.root.scrollTop;
    const t0 = performance.now();
    if (m) this.build(m, scrollY); else { this.batch.count = 0; this.labelList = []; }
    const t1 = performance.now();
    if (this.renderer) {
      this.renderer.resize(this.width, this.height, this.dpr);
      this.renderer.upload(this.batch);
      this.renderer.render({
        width: this.width, height: this.height, dpr: this.dpr, rowHeight: ROW_HEIGHT, scrollY,
        background: this.theme.background, outline: this.theme.foreground,
      });
    }
    this.labels.resize(this.width, this.height, this.dpr);
    this.labels.draw(this.renderer ? this.labelList : [], {
      dpr: this.dpr, rowHeight: ROW_HEIGHT, scrollY, fontFamily: this.theme.fontFamily, fontSize: this.theme.fontSize,
    });
    const t2 = performance.now();
    Object.assign(this.stats, {
      frames: this.stats.frames + 1, instances: this.batch.count, labels: this.labelList.length,
      buildMs: t1 - t0, drawMs: t2 - t1, focus: m ? m.focus : 0, width: this.width, height: this.height, dpr: this.dpr,
    });
  }

  private build(m: FlameModel, scrollY: number): void {
    const W = this.width;
    const rowTop = Math.floor(scrollY / ROW_HEIGHT);
    const rowBottom = Math.ceil((scrollY + this.height) / ROW_HEIGHT);
    const { rects, colors: out } = this.batch;
    const base = this.colors!;
    const match = this.searchResult?.matches ?? null;
    const hl = this.highlighted;
    const bg = this.theme.background;
    const depth = m.depth, x0 = m.x0, x1 = m.x1, end = m.end;
    const labels: Label[] = [];
    let k = 0;
    const push = (i: number, a: number, b: number, row: number, ancestor: boolean) => {
      const o = k * 4;
      rects[o] = a; rects[o + 1] = b; rects[o + 2] = row;
      rects[o + 3] = (hl && hl[i] ? FLAG_OUTLINE : 0) + (i === this.hovered ? FLAG_FOCUS : 0);
      const dim = match ? (match[i] ? 0 : DIM) : ancestor ? 0.25 : 0;
      if (dim) mix(base, i * 4, bg, dim, out, o);
      else { out[o] = base[i * 4]; out[o + 1] = base[i * 4 + 1]; out[o + 2] = base[i * 4 + 2]; out[o + 3] = 255; }
      k++;
      if (b - a >= MIN_LABEL_WIDTH) labels.push({ x: a, row, w: b - a, text: m.label(i), r: out[o], g: out[o + 1], b: out[o + 2] });
    };
    const anc = m.ancestors;
    for (let d = 0; d < anc.length - 1; d++) if (d >= rowTop && d < rowBottom) push(anc[d], 0, W, d, true);
    const f = m.focus, e = end[f];
    for (let i = f; i < e;) {
      const a = x0[i] * W, b = x1[i] * W;
      const row = depth[i];
      if (b - a < MIN_RECT_PX || row >= rowBottom) { i = end[i]; continue; } // whole subtree is culled
      if (row >= rowTop) push(i, a, b, row, false);
      i++;
    }
    this.batch.count = k;
    this.labelList = labels;
  }
}
