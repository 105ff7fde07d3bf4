// What of a large view goes to the webview first, and how large a part may be. A flame graph of
// a million nodes draws a few thousand at any zoom (a frame under half a pixel is not drawn, a row
// below the screen neither), so a view over WHOLE_VIEW_NODES goes as the part wider than half a
// pixel of the graph and PART_DEPTH rows deep, and the webview asks for a node's part when the
// user zooms into it or scrolls down to it. No vscode import: unit-tested.
import type { FirstPart } from '../../native/addon/index';

export const WHOLE_VIEW_NODES = 50_000;
/** At most this many nodes in one part (its bound rises past it). */
export const PART_NODES = 100_000;
/** Rows of one part below its root: more than a 4K screen shows (18 px a row). */
export const PART_DEPTH = 128;
/** The graph's width until the webview says (CSS px). */
export const DEFAULT_WIDTH = 1600;

/** The part of a view to send first, for a graph `width` CSS pixels wide. */
export function firstPart(width: number): FirstPart {
  const w = Number.isFinite(width) && width >= 100 ? Math.min(width, 16384) : DEFAULT_WIDTH;
  return { minShare: 0.5 / w, maxNodes: PART_NODES, maxDepth: PART_DEPTH, wholeUpTo: WHOLE_VIEW_NODES };
}
