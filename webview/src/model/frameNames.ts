// Short display names for C++ and kernel frames: template arguments and argument lists folded
// ("void at::native::elementwise_kernel<128, 4, …>(int, …)" → "at::native::elementwise_kernel<…>(…)"),
// a leading "void " dropped, and any name capped. The full name stays in the details pane.
import { FrameKind } from '../protocol';

/** Longest name a label, breadcrumb or tooltip shows (characters). */
export const MAX_NAME = 160;

/** Caps `s` at `max` characters with an ellipsis in the middle (both ends stay readable). */
export function capText(s: string, max = MAX_NAME): string {
  if (s.length <= max) return s;
  const head = Math.ceil((max - 1) * 0.6);
  return `${s.slice(0, head)}…${s.slice(s.length - (max - 1 - head))}`;
}

/** Folds every top-level <…> and (…) of a C++ name; "operator<", "operator()" and the like stay. */
export function foldCxxName(name: string): string {
  let out = '';
  let depth = 0;
  let open = '';
  for (let i = 0; i < name.length; i++) {
    const c = name[i];
    if (depth === 0) {
      if ((c === '<' || c === '(') && !/operator\s*$/.test(out)) {
        // "operator()" keeps its own parentheses: they name the operator, not its arguments.
        depth = 1;
        open = c;
        out += c === '<' ? '<…' : '(…';
        continue;
      }
      out += c;
      continue;
    }
    const close = open === '<' ? '>' : ')';
    if (c === open) depth++;
    else if (c === close && --depth === 0) out += close;
    else if (open === '<' && c === '(' ) {
      // "(" inside a template argument ("decltype(...)", "(anonymous namespace)"): skip it whole.
      let d = 1;
      while (d > 0 && ++i < name.length) { if (name[i] === '(') d++; else if (name[i] === ')') d--; }
    }
  }
  if (depth > 0) out += open === '<' ? '>' : ')';
  return out;
}

/** What labels, breadcrumbs and tooltips show for a frame of `kind` named `name`. */
export function displayName(name: string, kind: number): string {
  if (kind === FrameKind.Kernel || kind === FrameKind.Native || kind === FrameKind.Operator || kind === FrameKind.GpuApi) {
    let s = name.startsWith('void ') && kind === FrameKind.Kernel ? name.slice(5) : name;
    if (s.length > 40 && (s.includes('<') || s.includes('('))) s = foldCxxName(s);
    return capText(s);
  }
  return capText(name);
}
