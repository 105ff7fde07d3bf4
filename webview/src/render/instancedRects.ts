// What both rectangle renderers share: a unit quad drawn once per instance in a single instanced
// draw call, per-instance attributes from typed arrays, a lost context skipped until restored,
// and a background clear. Each renderer (flame graph, timeline) brings its shaders, attributes
// and uniforms; positions are in CSS pixels, the backing store is scaled by devicePixelRatio.
import createREGL from 'regl';
import type { RGBA } from '../ui/theme';
import { createInstancedRegl, initError, resizeCanvas } from './webglContext';

/** One per-instance attribute: `size` components of float or normalized bytes. */
export interface InstanceAttribute {
  name: string;
  size: 1 | 4;
  type: 'float' | 'uint8';
}

/**
 * The vertex shader both renderers use: a rectangle `size` CSS px large at `pos`, with a one-pixel
 * gap between neighbours once they are wide enough to spare it (never thinner than one device
 * pixel). `declarations` adds the renderer's attributes and uniforms; `placement` sets
 * `vec2 size`, `vec2 pos` and `vFlags` from `w` (the rectangle's width) and `gap`.
 */
export function rectVertexShader(declarations: string, placement: string): string {
  return `
    precision highp float;
    attribute vec2 aCorner;
    attribute vec4 aRect;
    attribute vec4 aColor;
    uniform vec2 uViewport;
    uniform float uDpr;
    ${declarations}
    varying vec4 vColor;
    varying vec2 vLocal;
    varying vec2 vSize;
    varying float vFlags;
    void main() {
      float w = aRect.y - aRect.x;
      float gap = w >= 3.0 ? 1.0 : 0.0;
      ${placement}
      vLocal = aCorner * size;
      vSize = size;
      vColor = aColor;
      gl_Position = vec4(pos.x / uViewport.x * 2.0 - 1.0, 1.0 - pos.y / uViewport.y * 2.0, 0.0, 1.0);
    }`;
}

/**
 * The fragment shader both renderers use: `colour` sets gl_FragColor from `vColor`, `vFlags`,
 * `uOutline` and `edge` (the distance in CSS px to the rectangle's nearest side).
 */
export function rectFragmentShader(colour: string): string {
  return `
    precision mediump float;
    uniform vec4 uOutline;
    varying vec4 vColor;
    varying vec2 vLocal;
    varying vec2 vSize;
    varying float vFlags;
    void main() {
      vec2 d = min(vLocal, vSize - vLocal);
      float edge = min(d.x, d.y);
      ${colour}
    }`;
}

export interface InstancedRectsSpec<U extends object> {
  vert: string;           // gets `attribute vec2 aCorner` (the quad corner, 0..1) and the instance attributes
  frag: string;
  attributes: InstanceAttribute[];
  uniforms: (keyof U & string)[];
}

export class InstancedRects<U extends object> {
  private regl: createREGL.Regl;
  private bufs = new Map<string, { buf: createREGL.Buffer; attr: InstanceAttribute }>();
  private draw: createREGL.DrawCommand;
  private count = 0;
  private lost = false;

  /** `what` names the renderer in errors; `onRestored` runs after a lost context comes back. */
  constructor(readonly canvas: HTMLCanvasElement, what: string, spec: InstancedRectsSpec<U>, onRestored: () => void) {
    try {
      this.regl = createInstancedRegl(canvas, (lost) => { this.lost = lost; }, onRestored);
      const corners = this.regl.buffer([0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1]);
      const attributes: Record<string, unknown> = { aCorner: { buffer: corners, divisor: 0 } };
      for (const a of spec.attributes) {
        const buf = this.regl.buffer({ usage: 'dynamic', type: a.type, length: 4 * a.size });
        this.bufs.set(a.name, { buf, attr: a });
        attributes[a.name] = { buffer: buf, divisor: 1, size: a.size, normalized: a.type === 'uint8' };
      }
      const uniforms: Record<string, unknown> = {};
      for (const u of spec.uniforms) uniforms[u] = this.regl.prop<U, typeof u>(u);
      this.draw = this.regl<U>({
        vert: spec.vert,
        frag: spec.frag,
        attributes: attributes as createREGL.DrawConfig['attributes'],
        uniforms: uniforms as createREGL.DrawConfig<U>['uniforms'],
        primitive: 'triangles',
        count: 6,
        instances: () => this.count,
        depth: { enable: false },
        blend: { enable: false },
      });
    } catch (e) {
      throw initError(e, what);
    }
  }

  get contextLost(): boolean { return this.lost; }

  /** Resizes the backing store to CSS size × devicePixelRatio. */
  resize(width: number, height: number, dpr: number): void {
    resizeCanvas(this.canvas, width, height, dpr);
  }

  /** The first `count` instances of each attribute's array (by attribute name). */
  upload(count: number, data: Record<string, Float32Array | Uint8Array>): void {
    this.count = count;
    if (count === 0) return;
    for (const [name, { buf, attr }] of this.bufs) {
      buf({ usage: 'dynamic', type: attr.type, data: data[name].subarray(0, count * attr.size) });
    }
  }

  render(background: RGBA, uniforms: U): void {
    if (this.lost) return;
    this.regl.poll();
    this.regl.clear({ color: [background[0] / 255, background[1] / 255, background[2] / 255, 1] });
    if (this.count === 0) return;
    this.draw(uniforms);
  }

  destroy(): void { this.regl.destroy(); }
}

/** An RGBA colour of 0..255 components as a vec4 uniform. */
export function rgbaUniform(c: RGBA): [number, number, number, number] {
  return [c[0] / 255, c[1] / 255, c[2] / 255, 1];
}
