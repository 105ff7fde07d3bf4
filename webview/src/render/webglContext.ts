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
