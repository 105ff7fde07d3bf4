// The WebGL context both renderers draw with: no depth/stencil/alpha (flat rectangles), instancing
// required (one draw call per frame), and a lost context reported instead of throwing later.
import createREGL from 'regl';

export class WebGLUnavailableError extends Error {}

/** A regl instance on `canvas` with ANGLE_instanced_arrays; `onLost(lost)` follows the context. */
export function createInstancedRegl(canvas: HTMLCanvasElement, onLost: (lost: boolean) => void,
  onRestored: () => void): createREGL.Regl {
  let gl: WebGLRenderingContext | null = null;
  const attrs: WebGLContextAttributes = {
    alpha: false, antialias: false, depth: false, stencil: false,
    premultipliedAlpha: true, preserveDrawingBuffer: false, powerPreference: 'low-power',
  };
  try {
    gl = (canvas.getContext('webgl', attrs) || canvas.getContext('experimental-webgl', attrs)) as WebGLRenderingContext | null;
  } catch (e) {
    throw new WebGLUnavailableError(`WebGL could not be created: ${String(e)}`);
  }
  if (!gl) throw new WebGLUnavailableError('WebGL is not available in this webview.');
  if (!gl.getExtension('ANGLE_instanced_arrays')) throw new WebGLUnavailableError('WebGL instancing (ANGLE_instanced_arrays) is not available.');
  canvas.addEventListener('webglcontextlost', (e) => { e.preventDefault(); onLost(true); });
  canvas.addEventListener('webglcontextrestored', () => { onLost(false); onRestored(); });
  return createREGL({ gl, extensions: ['ANGLE_instanced_arrays'] });
}

/** What a failure while creating a renderer's draw commands means, as one message. */
export function initError(e: unknown, renderer: string): WebGLUnavailableError {
  if (e instanceof WebGLUnavailableError) return e;  // already says what is missing
  const msg = String((e as Error)?.message ?? e);
  if (e instanceof EvalError || /unsafe-eval|Content Security Policy|EvalError/i.test(msg)) {
    return new WebGLUnavailableError(
      `The ${renderer} renderer (regl) compiles its draw commands at run time, which this page's ` +
      "Content-Security-Policy forbids: script-src must allow 'unsafe-eval'.");
  }
  return new WebGLUnavailableError(`WebGL initialisation failed: ${msg}`);
}

/** Sizes the canvas backing store to CSS size × devicePixelRatio (only when it changes). */
export function resizeCanvas(canvas: HTMLCanvasElement, width: number, height: number, dpr: number): void {
  const w = Math.max(1, Math.round(width * dpr)), h = Math.max(1, Math.round(height * dpr));
  if (canvas.width !== w) canvas.width = w;
  if (canvas.height !== h) canvas.height = h;
}
