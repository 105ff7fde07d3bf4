// Frame colours: whose code a frame is picks the base (the user's code and the GPU in their
// kind's chart colour, libraries faded, the interpreter grey, a truncated stack red: the legend),
// varied in hue by the frame's module and in lightness by its name, so neighbouring frames are
// distinguishable and the same function always gets the same colour.
import { FrameFlag, FrameKind, FrameOrigin } from '../protocol';
import type { FlameData } from '../protocol';
import type { RGBA, Theme } from '../ui/theme';

export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193); }
  return h >>> 0;
}

function rgbToHsl(r: number, g: number, b: number): [number, number, number] {
  r /= 255; g /= 255; b /= 255;
  const max = Math.max(r, g, b), min = Math.min(r, g, b);
  const l = (max + min) / 2;
  if (max === min) return [0, 0, l];
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  let h = max === r ? (g - b) / d + (g < b ? 6 : 0) : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  h /= 6;
  return [h, s, l];
}

function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  if (s === 0) { const v = Math.round(l * 255); return [v, v, v]; }
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  const f = (t: number) => {
    if (t < 0) t += 1; if (t > 1) t -= 1;
    if (t < 1 / 6) return p + (q - p) * 6 * t;
    if (t < 1 / 2) return q;
    if (t < 2 / 3) return p + (q - p) * (2 / 3 - t) * 6;
    return p;
  };
  return [Math.round(f(h + 1 / 3) * 255), Math.round(f(h) * 255), Math.round(f(h - 1 / 3) * 255)];
}

function vary(base: RGBA, hueHash: number, lightHash: number, dark: boolean): RGBA {
  const [h, s, l] = rgbToHsl(base[0], base[1], base[2]);
  const dh = (((hueHash % 1000) / 1000) - 0.5) * 0.07              // ±0.035 turn by module
    + ((((lightHash >>> 11) % 991) / 991) - 0.5) * 0.05;            // ±0.025 turn by name
  const dl = (((lightHash % 997) / 997) - 0.5) * 0.26;            // ±0.13 by name
  const targetL = dark ? 0.42 : 0.62;
  const ll = Math.min(0.8, Math.max(0.25, (l + targetL) / 2 + dl));
  const [r, g, b] = hslToRgb((h + dh + 1) % 1, Math.min(1, s * 0.85 + 0.1), ll);
  return [r, g, b, 255];
}

/** The colour legend's entries: whose code a frame is, and truncated stacks. */
export const enum ColorClass { User = 0, Library = 1, Interpreter = 2, Gpu = 3, Truncated = 4, Other = 5 }
export const COLOR_CLASS_NAMES: readonly string[] = ['Your code', 'Libraries', 'Interpreter', 'GPU', 'Truncated stack', 'Other'];

/** The legend entry of frame `f` of the table. */
export function colorClassOf(frames: FlameData['frames'], f: number): ColorClass {
  if (frames.flags && frames.flags[f] & FrameFlag.Truncated) return ColorClass.Truncated;
  // Without origins (a host before protocol v6) every frame keeps its kind's colour.
  if (!frames.origin) return frames.kind[f] === FrameKind.Root ? ColorClass.Other : ColorClass.User;
  switch (frames.origin[f]) {
    case FrameOrigin.User: return ColorClass.User;
    case FrameOrigin.Library: return ColorClass.Library;
    case FrameOrigin.Interpreter: return ColorClass.Interpreter;
    case FrameOrigin.Gpu: return ColorClass.Gpu;
    default: return ColorClass.Other;
  }
}

/** The base colour of a frame: its kind's chart colour for the user's code and the GPU, the same
 *  faded towards grey for libraries, grey for the interpreter, red for a truncated stack. */
function classBase(cls: ColorClass, kind: number, theme: Theme): RGBA {
  const kc = theme.kindColors[kind] ?? theme.kindColors[0];
  const gray = theme.kindColors[0];
  switch (cls) {
    case ColorClass.User: return kc;
    case ColorClass.Gpu: return kc;
    case ColorClass.Library: return [(kc[0] + gray[0] * 4) / 5, (kc[1] + gray[1] * 4) / 5, (kc[2] + gray[2] * 4) / 5, 255];
    case ColorClass.Truncated: return theme.kindColors[FrameKind.Pc];
    default: return gray;
  }
}

/** The legend swatch of a class (the colour its frames vary around). */
export function classColor(cls: ColorClass, theme: Theme): RGBA {
  const kind = cls === ColorClass.Gpu ? FrameKind.Kernel : FrameKind.Python;
  return vary(classBase(cls, kind, theme), 0, 0, theme.kind === 'dark' || theme.kind === 'high-contrast');
}

/** RGBA per frame of the table (frames*4 bytes), by whose code it is (legend), its kind, name and
 *  module. Per frame, not per node: a view's parts share its frame table, so the colours are made
 *  once per view and a node's colour is its frame's. */
export function computeFrameColors(data: Pick<FlameData, 'frames' | 'strings'>, theme: Theme): Uint8Array {
  const { frames, strings } = data;
  const dark = theme.kind === 'dark' || theme.kind === 'high-contrast';
  const hashes = new Map<number, number>();
  const hash = (s: number): number => {
    let h = hashes.get(s);
    if (h === undefined) hashes.set(s, (h = hashString(strings[s] ?? '')));
    return h;
  };
  const cache = new Map<string, RGBA>();
  const nf = frames.kind.length;
  const out = new Uint8Array(nf * 4);
  for (let f = 0; f < nf; f++) {
    const k = frames.kind[f];
    const cls = colorClassOf(frames, f);
    const nm = frames.name[f], md = frames.module[f];
    const key = `${k},${cls},${nm},${md}`;
    let c = cache.get(key);
    if (!c) {
      const base = classBase(cls, k, theme);
      c = cls === ColorClass.Truncated ? base : vary(base, md ? hash(md) : hash(nm) >>> 3, hash(nm), dark);
      cache.set(key, c);
    }
    out[f * 4] = c[0]; out[f * 4 + 1] = c[1]; out[f * 4 + 2] = c[2]; out[f * 4 + 3] = 255;
  }
  return out;
}

/** Mixes a colour towards the background (t = 0: unchanged, 1: background). */
export function mix(c: ArrayLike<number>, off: number, bg: RGBA, t: number, dst: Uint8Array, dOff: number): void {
  dst[dOff] = c[off] + (bg[0] - c[off]) * t;
  dst[dOff + 1] = c[off + 1] + (bg[1] - c[off + 1]) * t;
  dst[dOff + 2] = c[off + 2] + (bg[2] - c[off + 2]) * t;
  dst[dOff + 3] = 255;
}

/** Black or white text, whichever reads better on `c`. */
export function textColorOn(r: number, g: number, b: number): string {
  const lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return lum > 140 ? '#000000' : '#ffffff';
}
