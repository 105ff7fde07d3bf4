// The colour legend: what the frames' colours mean (whose code, GPU, truncated stacks), for
// the classes present in the view.
import { COLOR_CLASS_NAMES, ColorClass, classColor } from '../render/colors';
import type { Theme } from './theme';
import { toCss } from './theme';
import { el } from './dom';

const TIPS: readonly string[] = [
  'Source files outside the libraries, and program binaries',
  'site-packages, the standard library, system and package shared objects, PyTorch operators',
  'The Python interpreter\'s own frames (eval loop, call machinery, start-up)',
  'CUDA API calls, kernels, instructions and regions',
  'Where a call stack was cut (depth limit, unwind failure): its callers are unknown',
  'The root and thread frames',
];

export class Legend {
  readonly root: HTMLElement;

  constructor() {
    this.root = el('div', { className: 'strata-legend', attrs: { role: 'list', 'aria-label': 'Colour legend' } });
  }

  /** Shows the classes with `present[c]` set. */
  set(present: boolean[], theme: Theme): void {
    const items: Node[] = [];
    for (let c = 0; c < COLOR_CLASS_NAMES.length; c++) {
      if (!present[c] || c === ColorClass.Other) continue;
      const sw = el('span', { className: 'strata-swatch' });
      sw.style.background = toCss(classColor(c as ColorClass, theme));
      items.push(el('span', { className: 'strata-legend-item', title: TIPS[c], attrs: { role: 'listitem', 'data-class': String(c) } }, sw, COLOR_CLASS_NAMES[c]));
    }
    this.root.replaceChildren(...items);
  }
}
