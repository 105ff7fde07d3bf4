// WebGL (regl) renderer of a timeline: every visible interval is one instance of a unit quad,
// drawn in a single instanced draw call (like the flame renderer, but rects have any y and
// height, since timeline rows differ in height). Positions are in CSS pixels of the canvas;
// the backing store is scaled by devicePixelRatio. The hovered interval gets an outline.
import createREGL from 'regl';
import type { RGBA } from '../ui/theme';
import { createInstancedRegl, initError, resizeCanvas } from './webglContext';

export const TL_FLAG_HOVER = 1;

/** Per-instance data: rects = [x0, x1, y, h] px * count; colors = RGBA bytes * count;
 *  flags = one float per instance. */
export interface TimelineBatch {
  rects: Float32Array;
  colors: Uint8Array;
  flags: Float32Array;
  count: number;
}

export function makeTimelineBatch(capacity: number): TimelineBatch {
  return { rects: new Float32Array(capacity * 4), colors: new Uint8Array(capacity * 4), flags: new Float32Array(capacity), count: 0 };
}

export interface TimelineFrame {
  width: number;      // CSS px
  height: number;     // CSS px
  dpr: number;
  background: RGBA;
  outline: RGBA;
}

interface Uniforms {
  uViewport: [number, number];
  uDpr: number;
  uOutline: [number, number, number, number];
}

export class TimelineRenderer {
  private regl: createREGL.Regl;
  private rectBuf: createREGL.Buffer;
  private colorBuf: createREGL.Buffer;
  private flagBuf: createREGL.Buffer;
  private draw: createREGL.DrawCommand;
  private count = 0;
  private lost = false;

  constructor(readonly canvas: HTMLCanvasElement, onRestored: () => void = () => {}) {
    try {
      this.regl = createInstancedRegl(canvas, (lost) => { this.lost = lost; }, onRestored);
      this.rectBuf = this.regl.buffer({ usage: 'dynamic', type: 'float', length: 16 });
      this.colorBuf = this.regl.buffer({ usage: 'dynamic', type: 'uint8', length: 4 });
      this.flagBuf = this.regl.buffer({ usage: 'dynamic', type: 'float', length: 4 });
      const corners = this.regl.buffer([0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1]);
      this.draw = this.regl<Uniforms>({
        vert: `
        precision highp float;
        attribute vec2 aCorner;
        attribute vec4 aRect;
        attribute vec4 aColor;
        attribute float aFlags;
        uniform vec2 uViewport;
        uniform float uDpr;
        varying vec4 vColor;
        varying vec2 vLocal;
        varying vec2 vSize;
        varying float vFlags;
        void main() {
          float w = aRect.y - aRect.x;
          // A one-pixel gap between neighbours once they are wide enough to spare it; never
          // thinner than one device pixel, so every interval stays visible.
          float gap = w >= 3.0 ? 1.0 : 0.0;
          vec2 size = vec2(max(w - gap, 1.0 / uDpr), max(aRect.w - 1.0, 1.0 / uDpr));
          vec2 pos = vec2(aRect.x, aRect.z) + aCorner * size;
          vLocal = aCorner * size;
          vSize = size;
          vColor = aColor;
          vFlags = aFlags;
          gl_Position = vec4(pos.x / uViewport.x * 2.0 - 1.0, 1.0 - pos.y / uViewport.y * 2.0, 0.0, 1.0);
        }`,
        frag: `
        precision mediump float;
        uniform vec4 uOutline;
        varying vec4 vColor;
        varying vec2 vLocal;
        varying vec2 vSize;
        varying float vFlags;
        void main() {
          vec2 d = min(vLocal, vSize - vLocal);
          float edge = min(d.x, d.y);
          if (mod(vFlags, 2.0) >= 1.0 && edge < 1.5) gl_FragColor = uOutline;
          else gl_FragColor = vColor;
        }`,
        attributes: {
          aCorner: { buffer: corners, divisor: 0 },
          aRect: { buffer: this.rectBuf, divisor: 1, size: 4 },
          aColor: { buffer: this.colorBuf, divisor: 1, size: 4, normalized: true },
          aFlags: { buffer: this.flagBuf, divisor: 1, size: 1 },
        },
        uniforms: {
          uViewport: this.regl.prop<Uniforms, 'uViewport'>('uViewport'),
          uDpr: this.regl.prop<Uniforms, 'uDpr'>('uDpr'),
          uOutline: this.regl.prop<Uniforms, 'uOutline'>('uOutline'),
        },
        primitive: 'triangles',
        count: 6,
        instances: () => this.count,
        depth: { enable: false },
        blend: { enable: false },
      });
    } catch (e) {
      throw initError(e, 'timeline');
    }
  }

  get contextLost(): boolean { return this.lost; }

  resize(width: number, height: number, dpr: number): void {
    resizeCanvas(this.canvas, width, height, dpr);
  }

  upload(batch: TimelineBatch): void {
    this.count = batch.count;
    if (batch.count === 0) return;
    this.rectBuf({ usage: 'dynamic', type: 'float', data: batch.rects.subarray(0, batch.count * 4) });
    this.colorBuf({ usage: 'dynamic', type: 'uint8', data: batch.colors.subarray(0, batch.count * 4) });
    this.flagBuf({ usage: 'dynamic', type: 'float', data: batch.flags.subarray(0, batch.count) });
  }

  render(p: TimelineFrame): void {
    if (this.lost) return;
    this.regl.poll();
    const bg = p.background;
    this.regl.clear({ color: [bg[0] / 255, bg[1] / 255, bg[2] / 255, 1] });
    if (this.count === 0) return;
    this.draw({
      uViewport: [p.width, p.height],
      uDpr: p.dpr,
      uOutline: [p.outline[0] / 255, p.outline[1] / 255, p.outline[2] / 255, 1],
    });
  }

  destroy(): void { this.regl.destroy(); }
}
