// The DOM and redraw loop both graph views (flame graph, timeline) stand on: a scrolling root
// whose spacer gives the content its height, a sticky stage with the WebGL canvas, a 2D overlay
// canvas and a placeholder; the view's renderer made on the WebGL canvas (or, where WebGL cannot
// be had, the reason in the placeholder); redraws batched to one per animation frame, on scroll,
// resize, a devicePixelRatio change and a restored WebGL context.
import { WebGLUnavailableError } from '../render/webglContext';
import { el } from '../ui/dom';

export interface GraphStageOptions<R> {
  rootClass: string;
  stageClass: string;
  rootAttrs: Record<string, string>;
  /** Placeholder text until there is data. */
  waiting: string;
  /** "flame graph", "timeline": what cannot be drawn without WebGL. */
  what: string;
  makeRenderer(canvas: HTMLCanvasElement, onRestored: () => void): R;
  /** The view's synchronous redraw. */
  frame(): void;
}

export class GraphStage<R> {
  readonly root: HTMLElement;
  readonly stage: HTMLElement;
  readonly glCanvas: HTMLCanvasElement;
  readonly overlayCanvas: HTMLCanvasElement;
  readonly spacer: HTMLElement;
  readonly placeholder: HTMLElement;
  readonly renderer: R | null = null;
  readonly webglError: string | null = null;
  /** The last measure(): CSS pixels and devicePixelRatio. */
  width = 1;
  height = 1;
  dpr = 1;
  private scheduled = false;

  constructor(private readonly o: GraphStageOptions<R>) {
    this.glCanvas = el('canvas', { className: 'strata-gl' });
    this.overlayCanvas = el('canvas', { className: 'strata-labels', attrs: { 'aria-hidden': 'true' } });
    this.placeholder = el('div', { className: 'strata-placeholder', text: o.waiting });
    this.stage = el('div', { className: o.stageClass }, this.glCanvas, this.overlayCanvas, this.placeholder);
    this.spacer = el('div', { className: 'strata-spacer' });
    this.root = el('div', { className: o.rootClass, attrs: { tabindex: '0', role: 'img', ...o.rootAttrs } }, this.stage, this.spacer);
    try {
      this.renderer = o.makeRenderer(this.glCanvas, () => this.schedule());
    } catch (e) {
      this.webglError = e instanceof WebGLUnavailableError ? e.message : `WebGL initialisation failed: ${String(e)}`;
      this.glCanvas.hidden = true;
      this.placeholder.textContent = `${this.webglError} The ${o.what} cannot be drawn.`;
      this.placeholder.classList.add('strata-placeholder-error');
    }
    this.root.addEventListener('scroll', () => this.schedule(), { passive: true });
    new ResizeObserver(() => this.schedule()).observe(this.root);
    window.addEventListener('resize', () => this.schedule());
    this.watchDpr();
  }

  private watchDpr(): void {
    const mq = window.matchMedia(`(resolution: ${window.devicePixelRatio}dppx)`);
    const onChange = () => { mq.removeEventListener('change', onChange); this.watchDpr(); this.schedule(); };
    mq.addEventListener('change', onChange);
  }

  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => { this.scheduled = false; this.o.frame(); });
  }

  /** Measures the root, sizes the stage to it and the spacer to `contentHeight` (CSS px);
   *  returns the scroll offset to draw at. */
  measure(contentHeight: number): number {
    this.width = Math.max(1, this.root.clientWidth);
    this.height = Math.max(1, this.root.clientHeight);
    this.dpr = Math.max(0.25, window.devicePixelRatio || 1);
    this.stage.style.height = `${this.height}px`;
    this.spacer.style.height = `${Math.max(0, contentHeight - this.height)}px`;
    return this.root.scrollTop;
  }
}
