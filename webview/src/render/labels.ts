// Text labels for frames wide enough to hold some text, drawn on a 2D canvas laid over the
// WebGL canvas (pointer-events: none). Only the rects the view passes in are labelled.
import { textColorOn } from './colors';

export interface Label {
  x: number; row: number; w: number; text: string; r: number; g: number; b: number;
}

export const MIN_LABEL_WIDTH = 28; // CSS px

export class LabelLayer {
  private ctx: CanvasRenderingContext2D | null;
  private widthCache = new Map<string, number>();
  private font = '';

  constructor(readonly canvas: HTMLCanvasElement) {
    this.ctx = canvas.getContext('2d');
  }

  resize(width: number, height: number, dpr: number): void {
    const w = Math.max(1, Math.round(width * dpr)), h = Math.max(1, Math.round(height * dpr));
    if (this.canvas.width !== w) this.canvas.width = w;
    if (this.canvas.height !== h) this.canvas.height = h;
  }

  draw(labels: Label[], p: { dpr: number; rowHeight: number; scrollY: number; fontFamily: string; fontSize: number }): void {
    const ctx = this.ctx;
    if (!ctx) return;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    ctx.setTransform(p.dpr, 0, 0, p.dpr, 0, 0);
    const font = `${Math.min(p.fontSize, p.rowHeight - 5)}px ${p.fontFamily}`;
    if (font !== this.font) { this.font = font; this.widthCache.clear(); }
    ctx.font = font;
    ctx.textBaseline = 'middle';
    const pad = 4;
    const ell = this.measure(ctx, '…');
    for (const l of labels) {
      const avail = l.w - 2 * pad - 1;
      if (avail < ell * 2) continue;
      let text = l.text;
      const full = this.measure(ctx, text);
      if (full > avail) {
        // Estimate the characters that fit, then shrink until they do.
        let k = Math.max(1, Math.floor((text.length * (avail - ell)) / full));
        while (k > 1 && ctx.measureText(text.slice(0, k)).width + ell > avail) k--;
        text = text.slice(0, k) + '…';
      }
      ctx.fillStyle = textColorOn(l.r, l.g, l.b);
      ctx.fillText(text, l.x + pad, l.row * p.rowHeight - p.scrollY + (p.rowHeight - 1) / 2 + 0.5);
    }
  }

  private measure(ctx: CanvasRenderingContext2D, s: string): number {
    let w = this.widthCache.get(s);
    if (w === undefined) {
      w = ctx.measureText(s).width;
      if (this.widthCache.size > 20000) this.widthCache.clear();
      this.widthCache.set(s, w);
    }
    return w;
  }
}
