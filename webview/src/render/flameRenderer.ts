// WebGL (regl) rectangle renderer: every visible frame is one instance of a unit quad, drawn in
// a single instanced draw call. Positions are in CSS pixels; the canvas backing store is scaled
// by devicePixelRatio. Outlines (host 'highlight') are drawn in the fragment shader.
import createREGL from 'regl';
import type { RGBA } from '../ui/theme';
import { createInstancedRegl, initError, resizeCanvas, WebGLUnavailableError } from './webglContext';

export const FLAG_OUTLINE = 1;
export const FLAG_FOCUS = 2;

/** Per-instance data: rects = [x0px, x1px, row, flags] * count; colors = RGBA bytes * count. */
export interface RectBatch {
  rects: Float32Array;
  colors: Uint8Array;
  count: number;
}

export interface FrameParams {
  width: number;      // CSS px
  height: number;     // CSS px
  dpr: number;
  rowHeight: number;  // CSS px
  scrollY: number;    // CSS px
  background: RGBA;
  outline: RGBA;
}

export { WebGLUnavailableError };

interface Uniforms {
  uViewport: [number, number];
  uRowH: number;
  uScrollY: number;
  uDpr: number;
  uOutline: [number, number, number, number];
}

export class FlameRenderer {
  private regl: createREGL.Regl;
  private rectBuf: createREGL.Buffer;
  private colorBuf: createREGL.Buffer;
  private draw: createREGL.DrawCommand;
  private count = 0;
  private lost = false;

  /** `onRestored` is called after a lost WebGL context comes back (regl restores its objects). */
  constructor(readonly canvas: HTMLCanvasElement, onRestored: () => void = () => {}) {
    try {
      this.regl = createInstancedRegl(canvas, (lost) => { this.lost = lost; }, onRestored);
      this.rectBuf = this.regl.buffer({ usage: 'dynamic', type: 'float', length: 16 });
      this.colorBuf = this.regl.buffer({ usage: 'dynamic', type: 'uint8', length: 4 });
      const corners = this.regl.buffer([0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1]);
      this.draw = this.regl<Uniforms>({
        vert: `
        precision highp float;
        attribute vec2 aCorner;
        attribute vec4 aRect;
        attribute vec4 aColor;
        uniform vec2 uViewport;
        uniform float uRowH, uScrollY, uDpr;
        varying vec4 vColor;
        varying vec2 vLocal;
        varying vec2 vSize;
        varying float vFlags;
        void main() {
          float w = aRect.y - aRect.x;
          float gap = w >= 3.0 ? 1.0 : 0.0;
          vec2 size = vec2(max(w - gap, 1.0 / uDpr), uRowH - 1.0);
          vec2 pos = vec2(aRect.x, aRect.z * uRowH - uScrollY) + aCorner * size;
          vLocal = aCorner * size;
          vSize = size;
          vColor = aColor;
          vFlags = aRect.w;
          gl_Position = vec4(pos.x / uViewport.x * 2.0 - 1.0, 1.0 - pos.y / uViewport.y * 2.0, 0.0, 1.0);
        }`,
        frag: `
        precision mediump float;
        uniform vec4 uOutline;
        uniform float uDpr;
        varying vec4 vColor;
        varying vec2 vLocal;
        varying vec2 vSize;
        varying float vFlags;
        void main() {
          vec2 d = min(vLocal, vSize - vLocal);
          float edge = min(d.x, d.y);
          if (mod(vFlags, 2.0) >= 1.0 && edge < 2.0) {
            gl_FragColor = uOutline;
          } else if (mod(floor(vFlags / 2.0), 2.0) >= 1.0 && edge < 1.0) {
            gl_FragColor = vec4(mix(vColor.rgb, uOutline.rgb, 0.6), 1.0);
          } else {
            gl_FragColor = vColor;
          }
        }`,
        attributes: {
          aCorner: { buffer: corners, divisor: 0 },
          aRect: { buffer: this.rectBuf, divisor: 1, size: 4 },
          aColor: { buffer: this.colorBuf, divisor: 1, size: 4, normalized: true },
        },
        uniforms: {
          uViewport: this.regl.prop<Uniforms, 'uViewport'>('uViewport'),
          uRowH: this.regl.prop<Uniforms, 'uRowH'>('uRowH'),
          uScrollY: this.regl.prop<Uniforms, 'uScrollY'>('uScrollY'),
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
      throw initError(e, 'flame graph');
    }
  }

  get contextLost(): boolean { return this.lost; }

  /** Resizes the backing store to CSS size × devicePixelRatio. */
  resize(width: number, height: number, dpr: number): void {
    resizeCanvas(this.canvas, width, height, dpr);
  }

  upload(batch: RectBatch): void {
    this.count = batch.count;
    if (batch.count === 0) return;
    this.rectBuf({ usage: 'dynamic', type: 'float', data: batch.rects.subarray(0, batch.count * 4) });
    this.colorBuf({ usage: 'dynamic', type: 'uint8', data: batch.colors.subarray(0, batch.count * 4) });
  }

  render(p: FrameParams): void {
    if (this.lost) return;
    this.regl.poll();
    const bg = p.background;
    this.regl.clear({ color: [bg[0] / 255, bg[1] / 255, bg[2] / 255, 1] });
    if (this.count === 0) return;
    this.draw({
      uViewport: [p.width, p.height],
      uRowH: p.rowHeight,
      uScrollY: p.scrollY,
      uDpr: p.dpr,
      uOutline: [p.outline[0] / 255, p.outline[1] / 255, p.outline[2] / 255, 1],
    });
  }

  destroy(): void { this.regl.destroy(); }
}
