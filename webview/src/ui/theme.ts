// Reads the VS Code theme from the --vscode-* CSS variables the webview host sets on <html>,
// and re-reads it when the theme changes (VS Code swaps body classes such as vscode-dark /
// vscode-light / vscode-high-contrast and rewrites the <html> style attribute).

export type RGBA = [number, number, number, number]; // 0..255

export interface Theme {
  kind: 'dark' | 'light' | 'high-contrast' | 'high-contrast-light';
  background: RGBA;
  foreground: RGBA;
  focusBorder: RGBA;
  /** Base colour per frame kind (index = FrameKind). */
  kindColors: RGBA[];
  fontFamily: string;
  fontSize: number;
}

let probe: CanvasRenderingContext2D | null = null;

/** Parses any CSS colour (#rgb, #rrggbbaa, rgb(), named...) via a 2D canvas. */
export function parseColor(css: string, fallback: RGBA): RGBA {
  const c = css.trim();
  if (!c) return fallback;
  const m = /^#([0-9a-f]{3,8})$/i.exec(c);
  if (m) {
    let h = m[1];
    if (h.length === 3 || h.length === 4) h = h.split('').map((x) => x + x).join('');
    if (h.length === 6 || h.length === 8) {
      const v = (k: number) => parseInt(h.slice(k, k + 2), 16);
      return [v(0), v(2), v(4), h.length === 8 ? v(6) : 255];
    }
  }
  if (!probe) probe = document.createElement('canvas').getContext('2d');
  if (!probe) return fallback;
  probe.fillStyle = '#010203';
  probe.fillStyle = c;
  const s = String(probe.fillStyle);
  if (s === '#010203' && c.toLowerCase() !== '#010203') return fallback;
  const hm = /^#([0-9a-f]{6})$/i.exec(s);
  if (hm) return [parseInt(s.slice(1, 3), 16), parseInt(s.slice(3, 5), 16), parseInt(s.slice(5, 7), 16), 255];
  const rm = /rgba?\(([^)]+)\)/.exec(s);
  if (rm) {
    const p = rm[1].split(',').map((x) => parseFloat(x));
    return [p[0], p[1], p[2], p.length > 3 ? Math.round(p[3] * 255) : 255];
  }
  return fallback;
}

/** Composites a possibly translucent colour over an opaque one. */
export function over(c: RGBA, under: RGBA): RGBA {
  const a = c[3] / 255;
  return [
    Math.round(c[0] * a + under[0] * (1 - a)),
    Math.round(c[1] * a + under[1] * (1 - a)),
    Math.round(c[2] * a + under[2] * (1 - a)),
    255,
  ];
}

export function readTheme(root: HTMLElement = document.documentElement): Theme {
  const cs = getComputedStyle(root);
  const v = (name: string) => cs.getPropertyValue(name);
  const cls = document.body ? document.body.classList : null;
  const kind: Theme['kind'] = cls?.contains('vscode-high-contrast-light')
    ? 'high-contrast-light'
    : cls?.contains('vscode-high-contrast')
      ? 'high-contrast'
      : cls?.contains('vscode-light')
        ? 'light'
        : 'dark';
  const light = kind === 'light' || kind === 'high-contrast-light';
  const bgFallback: RGBA = light ? [255, 255, 255, 255] : [30, 30, 30, 255];
  const background = over(parseColor(v('--vscode-editor-background'), bgFallback), bgFallback);
  const foreground = over(parseColor(v('--vscode-editor-foreground') || v('--vscode-foreground'),
    light ? [51, 51, 51, 255] : [204, 204, 204, 255]), background);
  const focusBorder = over(parseColor(v('--vscode-focusBorder'), light ? [0, 95, 184, 255] : [0, 127, 212, 255]), background);
  const chart = (name: string, dark: RGBA, lite: RGBA) => over(parseColor(v(`--vscode-charts-${name}`), light ? lite : dark), background);
  const red = chart('red', [241, 76, 76, 255], [229, 20, 0, 255]);
  const blue = chart('blue', [55, 148, 255, 255], [26, 133, 255, 255]);
  const yellow = chart('yellow', [204, 167, 0, 255], [191, 136, 3, 255]);
  const orange = chart('orange', [209, 134, 22, 255], [209, 134, 22, 255]);
  const green = chart('green', [137, 209, 133, 255], [56, 138, 52, 255]);
  const purple = chart('purple', [177, 128, 215, 255], [101, 44, 144, 255]);
  const gray = chart('lines', [128, 128, 128, 255], [128, 128, 128, 255]);
  // Index = FrameKind: Root, Python, Native, Operator, GpuApi, Kernel, Pc, Region, Thread
  const kindColors: RGBA[] = [gray, blue, orange, purple, yellow, green, red, red, gray, gray];
  const fontSize = parseFloat(v('--vscode-editor-font-size') || v('--vscode-font-size')) || 12;
  const fontFamily = (v('--vscode-font-family') || 'system-ui, sans-serif').trim();
  return { kind, background, foreground, focusBorder, kindColors, fontFamily, fontSize: Math.min(Math.max(fontSize, 10), 14) };
}

/** Calls `onChange` (debounced to one animation frame) whenever the theme may have changed. */
export function watchTheme(onChange: (t: Theme) => void): () => void {
  let pending = false;
  const fire = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; onChange(readTheme()); });
  };
  const mo = new MutationObserver(fire);
  if (document.body) mo.observe(document.body, { attributes: true, attributeFilter: ['class', 'data-vscode-theme-kind'] });
  mo.observe(document.documentElement, { attributes: true, attributeFilter: ['style', 'class'] });
  return () => mo.disconnect();
}

export function toCss(c: RGBA): string { return `rgba(${c[0]},${c[1]},${c[2]},${(c[3] / 255).toFixed(3)})`; }
