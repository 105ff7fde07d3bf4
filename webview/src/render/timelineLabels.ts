// The timeline's 2D layer over the WebGL canvas (pointer-events: none): interval labels where
// an interval is wide enough, the row labels in a gutter on the left, and the time axis with
// ticks on top. The gutter and axis are painted opaque, so intervals scrolled under them hide.
import { textColorOn } from './colors';
import type { RGBA } from '../ui/theme';
import { toCss } from '../ui/theme';

export interface IntervalLabel { x: number; y: number; w: number; h: number; text: string; r: number; g: number; b: number }
/** `group`: the group's name, drawn left of the row's label (then right-aligned) on its first row;
 *  `right`: the label right-aligned (rows of a named group). */
export interface RowLabel { y: number; h: number; text: string; groupStart: boolean; group?: string; right?: boolean }

export interface OverlayParams {
  width: number; height: number; dpr: number;
  gutter: number; axisHeight: number;
  fontFamily: string; fontSize: number;
  background: RGBA; foreground: RGBA;
  /** Ticks: x (px from the plot's left edge) and text. */
  ticks: { x: number; text: string }[];
}

export const MIN_INTERVAL_LABEL_WIDTH = 28; // CSS px

/** Tick times for [v0, v1] at a 1-2-5 step, at most `maxTicks` of them. */
export function niceTicks(v0: number, v1: number, maxTicks: number): { step: number; ticks: number[] } {
  const span = v1 - v0;
  if (!(span > 0) || maxTicks < 1) return { step: 0, ticks: [] };
  const raw = span / maxTicks;
  const pow = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow;
  const ticks: number[] = [];
  for (let t = Math.ceil(v0 / step) * step; t <= v1 + step * 1e-9; t += step) ticks.push(Math.abs(t) < step * 1e-9 ? 0 : t);
  return { step, ticks };
}

const TIME_SCALE: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, ms: 1e6, s: 1e9 };

/** The ticks' texts: `format`'s (three significant digits) unless two neighbours read the same
 *  (a window of 50 ms far from the axis's 0: "12.1 s" twice); then, for times, every tick in the
 *  unit of the largest with the decimals the step needs ("12.05 s", "12.10 s"). */
export function tickLabels(ticks: number[], step: number, unit: string, format: (v: number, unit: string) => string): string[] {
  const plain = ticks.map((t) => format(t, unit));
  const scale = TIME_SCALE[unit.toLowerCase()];
  if (!plain.some((s, i) => i > 0 && s === plain[i - 1]) || scale === undefined || !(step > 0)) return plain;
  const ns = (v: number) => v * scale;
  const top = Math.max(...ticks.map((t) => Math.abs(ns(t))));
  const [div, name] = top >= 1e9 ? [1e9, 's'] : top >= 1e6 ? [1e6, 'ms'] : top >= 1e3 ? [1e3, 'µs'] : [1, 'ns'];
  const decimals = Math.min(9, Math.max(0, Math.ceil(-Math.log10(ns(step) / div) - 1e-9)));
  return ticks.map((t) => `${(ns(t) / div).toFixed(decimals)} ${name}`);
}

/** A time with the decimals `resolution` needs when `format`'s three significant digits do not
 *  resolve it ("11.9565790 s" for a 1 µs slice 12 s in; "12.3 ms" stays as it is). */
export function preciseTime(v: number, resolution: number, unit: string, format: (v: number, unit: string) => string): string {
  return tickLabels([v, v + resolution], resolution, unit, format)[0];
}

export class TimelineOverlay {
  private ctx: CanvasRenderingContext2D | null;

  constructor(readonly canvas: HTMLCanvasElement) { this.ctx = canvas.getContext('2d'); }

  resize(width: number, height: number, dpr: number): void {
    const w = Math.max(1, Math.round(width * dpr)), h = Math.max(1, Math.round(height * dpr));
    if (this.canvas.width !== w) this.canvas.width = w;
    if (this.canvas.height !== h) this.canvas.height = h;
  }

  draw(intervals: IntervalLabel[], rows: RowLabel[], p: OverlayParams): void {
    const ctx = this.ctx;
    if (!ctx) return;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    ctx.setTransform(p.dpr, 0, 0, p.dpr, 0, 0);
    ctx.textBaseline = 'middle';
    const pad = 3;
    const fg = toCss(p.foreground);
    const faint = toCss([p.foreground[0], p.foreground[1], p.foreground[2], 60]);

    // Interval labels, clipped to the plot.
    ctx.save();
    ctx.beginPath();
    ctx.rect(p.gutter, p.axisHeight, p.width - p.gutter, p.height - p.axisHeight);
    ctx.clip();
    ctx.font = `${Math.min(p.fontSize, 11)}px ${p.fontFamily}`;
    const ell = ctx.measureText('…').width;
    for (const l of intervals) {
      const x = Math.max(l.x, p.gutter), w = l.x + l.w - x;
      const avail = w - 2 * pad - 1;
      if (avail < ell * 2) continue;
      let text = l.text;
      const full = ctx.measureText(text).width;
      if (full > avail) {
        let k = Math.max(1, Math.floor((text.length * (avail - ell)) / full));
        while (k > 1 && ctx.measureText(text.slice(0, k)).width + ell > avail) k--;
        text = text.slice(0, k) + '…';
      }
      ctx.fillStyle = textColorOn(l.r, l.g, l.b);
      ctx.fillText(text, x + pad, l.y + (l.h - 1) / 2 + 0.5);
    }
    ctx.restore();

    // Gutter: row labels, a line above each group.
    ctx.fillStyle = toCss(p.background);
    ctx.fillRect(0, 0, p.gutter, p.height);
    ctx.font = `${Math.min(p.fontSize, 12)}px ${p.fontFamily}`;
    const fit = (s: string, avail: number) => {
      let text = s;
      while (text.length > 1 && ctx.measureText(text).width > avail) text = text.slice(0, -2) + '…';
      return text;
    };
    for (const r of rows) {
      if (r.groupStart) { ctx.fillStyle = faint; ctx.fillRect(0, r.y - 3, p.width, 1); }
      ctx.fillStyle = fg;
      const avail = p.gutter - 2 * pad - 4;
      const y = r.y + Math.min(r.h, 16) / 2;
      if (!r.right && !r.group) { ctx.fillText(fit(r.text, avail), pad, y); continue; }
      // The row's label right-aligned; the group's name (bold) in what is left of the gutter.
      const text = fit(r.text, avail / 2);
      const w = ctx.measureText(text).width;
      ctx.fillText(text, pad + avail - w, y);
      if (r.group) {
        ctx.save();
        ctx.font = `bold ${Math.min(p.fontSize, 12)}px ${p.fontFamily}`;
        ctx.fillText(fit(r.group, avail - w - 8), pad, y);
        ctx.restore();
      }
    }
    ctx.fillStyle = faint;
    ctx.fillRect(p.gutter - 1, 0, 1, p.height);

    // Axis.
    ctx.fillStyle = toCss(p.background);
    ctx.fillRect(0, 0, p.width, p.axisHeight);
    ctx.fillStyle = faint;
    ctx.fillRect(0, p.axisHeight - 1, p.width, 1);
    ctx.font = `${Math.min(p.fontSize, 11)}px ${p.fontFamily}`;
    for (const t of p.ticks) {
      const x = p.gutter + t.x;
      if (x < p.gutter || x > p.width) continue;
      ctx.fillStyle = faint;
      ctx.fillRect(Math.round(x), p.axisHeight - 6, 1, 6);
      ctx.fillStyle = fg;
      ctx.fillText(t.text, x + 3, p.axisHeight / 2);
    }
  }
}
