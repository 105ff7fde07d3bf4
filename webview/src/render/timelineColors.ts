// Timeline colours: one colour per colour key (a region id), from the theme's chart colours, so
// the same region has the same colour in every lane and after a theme change; neighbouring ids
// get different chart colours. Shade 1 (e.g. odd loop iterations) is a lighter or darker
// variant, so consecutive iterations stay distinguishable.
import type { RGBA, Theme } from '../ui/theme';

function mixTo(c: RGBA, to: RGBA, t: number): RGBA {
  return [
    Math.round(c[0] + (to[0] - c[0]) * t), Math.round(c[1] + (to[1] - c[1]) * t),
    Math.round(c[2] + (to[2] - c[2]) * t), 255,
  ];
}

export class TimelineColors {
  private palette: RGBA[];
  private dark: boolean;
  private cache = new Map<number, RGBA>();

  constructor(theme: Theme) {
    const k = theme.kindColors;
    // Index = FrameKind in the theme: Python blue, Native orange, Operator purple, Kernel green,
    // GpuApi yellow, Pc red: six distinct chart colours.
    this.palette = [k[1], k[2], k[3], k[5], k[4], k[6]].map((c) => c ?? k[0]);
    this.dark = theme.kind === 'dark' || theme.kind === 'high-contrast';
  }

  /** RGBA of `key` in `shade` (0 or 1). */
  color(key: number, shade: number): RGBA {
    const id = (key * 2 + (shade ? 1 : 0)) | 0;
    let c = this.cache.get(id);
    if (c) return c;
    const p = this.palette.length;
    const k = Math.abs(key | 0);
    const base = this.palette[k % p];
    // Keys beyond the palette: a lighter, then a darker variant of the same six colours.
    const round = Math.floor(k / p) % 3;
    const white: RGBA = [255, 255, 255, 255], black: RGBA = [0, 0, 0, 255];
    c = round === 1 ? mixTo(base, white, 0.3) : round === 2 ? mixTo(base, black, 0.3) : base;
    if (shade) c = mixTo(c, this.dark ? white : black, 0.2);
    this.cache.set(id, c);
    return c;
  }
}
