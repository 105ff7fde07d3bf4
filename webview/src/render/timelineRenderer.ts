// WebGL (regl) renderer of a timeline: every visible interval is one instance of a unit quad,
// drawn in a single instanced draw call (like the flame renderer, but rects have any y and
// height, since timeline rows differ in height). Positions are in CSS pixels of the canvas;
// the backing store is scaled by devicePixelRatio. The hovered interval gets an outline.
import type { RGBA } from '../ui/theme';
import { InstancedRects, rectFragmentShader, rectVertexShader, rgbaUniform } from './instancedRects';

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
  private rects: InstancedRects<Uniforms>;

  constructor(readonly canvas: HTMLCanvasElement, onRestored: () => void = () => {}) {
    this.rects = new InstancedRects<Uniforms>(canvas, 'timeline', {
      vert: rectVertexShader('attribute float aFlags;', `
        vec2 size = vec2(max(w - gap, 1.0 / uDpr), max(aRect.w - 1.0, 1.0 / uDpr));
        vec2 pos = vec2(aRect.x, aRect.z) + aCorner * size;
        vFlags = aFlags;`),
      frag: rectFragmentShader(`
        if (mod(vFlags, 2.0) >= 1.0 && edge < 1.5) gl_FragColor = uOutline;
        else gl_FragColor = vColor;`),
      attributes: [
        { name: 'aRect', size: 4, type: 'float' }, { name: 'aColor', size: 4, type: 'uint8' }, { name: 'aFlags', size: 1, type: 'float' },
      ],
      uniforms: ['uViewport', 'uDpr', 'uOutline'],
    }, onRestored);
  }

  get contextLost(): boolean { return this.rects.contextLost; }

  resize(width: number, height: number, dpr: number): void { this.rects.resize(width, height, dpr); }

  upload(batch: TimelineBatch): void {
    this.rects.upload(batch.count, { aRect: batch.rects, aColor: batch.colors, aFlags: batch.flags });
  }

  render(p: TimelineFrame): void {
    this.rects.render(p.background, { uViewport: [p.width, p.height], uDpr: p.dpr, uOutline: rgbaUniform(p.outline) });
  }

  destroy(): void { this.rects.destroy(); }
}
