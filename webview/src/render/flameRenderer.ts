// WebGL (regl) flame graph renderer: every visible frame is one instanced rectangle in a row;
// rows scroll by a uniform, so scrolling draws without uploading again. Outlines (host
// 'highlight') and the focus edge are drawn in the fragment shader.
import type { RGBA } from '../ui/theme';
import { InstancedRects, rectFragmentShader, rectVertexShader, rgbaUniform } from './instancedRects';
import { WebGLUnavailableError } from './webglContext';

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
  private rects: InstancedRects<Uniforms>;

  /** `onRestored` is called after a lost WebGL context comes back (regl restores its objects). */
  constructor(readonly canvas: HTMLCanvasElement, onRestored: () => void = () => {}) {
    this.rects = new InstancedRects<Uniforms>(canvas, 'flame graph', {
      vert: rectVertexShader('uniform float uRowH, uScrollY;', `
        vec2 size = vec2(max(w - gap, 1.0 / uDpr), uRowH - 1.0);
        vec2 pos = vec2(aRect.x, aRect.z * uRowH - uScrollY) + aCorner * size;
        vFlags = aRect.w;`),
      frag: rectFragmentShader(`
        if (mod(vFlags, 2.0) >= 1.0 && edge < 2.0) {
          gl_FragColor = uOutline;
        } else if (mod(floor(vFlags / 2.0), 2.0) >= 1.0 && edge < 1.0) {
          gl_FragColor = vec4(mix(vColor.rgb, uOutline.rgb, 0.6), 1.0);
        } else {
          gl_FragColor = vColor;
        }`),
      attributes: [{ name: 'aRect', size: 4, type: 'float' }, { name: 'aColor', size: 4, type: 'uint8' }],
      uniforms: ['uViewport', 'uRowH', 'uScrollY', 'uDpr', 'uOutline'],
    }, onRestored);
  }

  get contextLost(): boolean { return this.rects.contextLost; }

  /** Resizes the backing store to CSS size × devicePixelRatio. */
  resize(width: number, height: number, dpr: number): void { this.rects.resize(width, height, dpr); }

  upload(batch: RectBatch): void {
    this.rects.upload(batch.count, { aRect: batch.rects, aColor: batch.colors });
  }

  render(p: FrameParams): void {
    this.rects.render(p.background, {
      uViewport: [p.width, p.height], uRowH: p.rowHeight, uScrollY: p.scrollY, uDpr: p.dpr, uOutline: rgbaUniform(p.outline),
    });
  }

  destroy(): void { this.rects.destroy(); }
}
