// The parts of a large view, between the graph and the host: asks for the parts the drawn graph
// needs ('requestNodes'), the ones a zoom into the widest frames would need while nothing else is
// asked for (the background fill), and the nodes on the way to one the user wants to see that
// was not sent ('requestPath'); puts what comes back ('nodes') in place, together, when the page
// is next free. Used by the flame graph of a profile and by the diff's.
import type { HostMessage, NodePart, WebviewMessage } from './protocol';
import { normalizeNodePart } from './model/normalize';
import { LoadedView } from './model/viewParts';
import type { FlameView, NodeNeed } from './view/flameView';

type NodesMessage = Extract<HostMessage, { type: 'nodes' }>;

/** The background fill stops once the webview holds this many nodes (a part costs its own
 *  nodes to put in place, not the nodes held; this bounds the page's memory and the host's work). */
const FILL_MAX_NODES = 100_000;
/** A request the host leaves unanswered (a part of a view it rebuilt) holds the fill this long (ms). */
const FILL_WAIT_MS = 2000;

export interface PartRequestOptions {
  /** Per-node columns a part brings beside the view's (the diff's A value and match). */
  extras?: (part: NodePart) => Record<string, Float64Array | Uint8Array>;
  /** Parts were put in place (the view on screen grew). */
  placed?: () => void;
}

export class PartRequests {
  /** Parts asked for and put in place, and the time the last batch took to put in (tests, bench). */
  readonly stats = { requested: 0, received: 0, lastMs: 0, filled: 0 };
  /** The view on screen as far as the host has sent it. */
  loaded: LoadedView | null = null;
  /** Parts asked for in the view on screen: host id → the bound asked for. */
  private requested = new Map<number, number>();
  /** Parts asked for and not yet in (the background fill waits for none). */
  private inFlight = 0;
  /** Parts that came in, put in place together when the page is next free. */
  private arrived: NodesMessage[] = [];
  private placing = 0;
  private askedAt = 0;
  /** A node asked for with its path, and what to do once it is in. */
  private revealing: { id: number; then: (index: number) => void } | null = null;

  constructor(private view: FlameView, private post: (m: WebviewMessage) => void, private opts: PartRequestOptions = {}) {}

  /** A new view on screen (null: none): nothing asked for yet. */
  reset(loaded: LoadedView | null): void {
    this.loaded = loaded;
    this.requested.clear();
    this.inFlight = 0;
    this.arrived = [];
    this.revealing = null;
  }

  /** Asks for the parts the drawn graph needs, each once per bound (a part comes back with a
   *  lower one; asked again only when zoomed four times further); how many were asked for. */
  need(needs: NodeNeed[]): number {
    const m = this.view.model;
    const viewId = m?.data.viewId;
    if (!m || viewId === undefined) return 0;
    let asked = 0;
    for (const { node, minValue } of needs) {
      const id = m.hostId(node);
      const before = this.requested.get(id);
      if (before !== undefined && minValue >= before / 4) continue;
      this.requested.set(id, minValue);
      this.stats.requested++;
      this.inFlight++;
      this.askedAt = performance.now();
      asked++;
      this.post({ type: 'requestNodes', viewId, view: m.data.view, node: id, minValue });
    }
    return asked;
  }

  /** Background fill: the parts a zoom into the widest drawn frames would need, asked for while
   *  nothing else is (one round at a time), so that the zoom finds them in place. */
  fill(needs: NodeNeed[]): void {
    if ((this.loaded?.size ?? 0) >= FILL_MAX_NODES) return;
    if ((this.inFlight > 0 && performance.now() - this.askedAt < FILL_WAIT_MS) || this.arrived.length) return;
    this.inFlight = 0;
    this.stats.filled += this.need(needs);
  }

  /** Shows the node with host id `id` once held: at once when it is, else after the nodes from
   *  the root to it came in (asked for now). */
  reveal(id: number, then: (index: number) => void): void {
    const loaded = this.loaded;
    const viewId = loaded?.data.viewId;
    if (!loaded) return;
    const i = loaded.indexOf(id);
    if (i >= 0) { then(i); return; }
    if (viewId === undefined) return;
    this.revealing = { id, then };
    this.inFlight++;
    this.askedAt = performance.now();
    this.post({ type: 'requestPath', viewId, node: id });
  }

  /** A 'nodes' message: put in place with the others that came with it, when the page is free. */
  arrive(m: NodesMessage): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.arrived.push(m);
    if (!this.placing) this.placing = window.setTimeout(() => this.place(), 0);
  }

  private place(): void {
    this.placing = 0;
    const batch = this.arrived;
    this.arrived = [];
    const cur = this.loaded;
    const model = this.view.model;
    if (!cur || !model || model.data !== cur.data) return;
    const t0 = performance.now();
    const from = cur.size;
    let placed = 0;
    for (const m of batch) {
      if (m.viewId !== cur.data.viewId) continue;  // of another view
      const part = normalizeNodePart(m.part, cur.data.frames.kind.length);
      if (cur.add(part, this.opts.extras?.(part) ?? {})) placed++;
    }
    if (!placed) return;
    this.stats.received += placed;
    // Nodes keep their indexes: the zoom, outlines, details and search stay; only the new nodes
    // are laid out.
    this.view.extend(cur, { from, to: cur.size });
    this.opts.placed?.();
    this.stats.lastMs = performance.now() - t0;
    const r = this.revealing;
    if (r) {
      const i = cur.indexOf(r.id);
      if (i >= 0) { this.revealing = null; r.then(i); }
    }
  }
}
