// Entry point (bundled to dist/webview.js): connect to the host, build the UI, forward host
// messages, and announce readiness with {type:'ready', version}.
import { FrameKind, PROTOCOL_VERSION } from './protocol';
import { connectHost } from './host';
import { App } from './app';

function start(): void {
  const host = connectHost();
  let app: App | null = null;
  const early: unknown[] = [];
  window.addEventListener('message', (e: MessageEvent) => { if (app) app.handle(e.data); else early.push(e.data); });
  const container = document.getElementById('strata-root') ?? document.body;
  try {
    app = new App(container, host);
  } catch (e) {
    const div = document.createElement('div');
    div.className = 'strata-message';
    div.setAttribute('role', 'alert');
    div.textContent = `Strata could not start: ${(e as Error)?.message ?? String(e)}`;
    container.append(div);
    console.error(e);
  }
  if (app) { for (const m of early) app.handle(m); }
  (window as unknown as { __strata?: unknown }).__strata = app && {
    stats: () => ({ ...app!.view.stats }),
    redraw: () => app!.view.frame(),
    message: () => app!.message.text,
    // The outlined nodes, by the host's ids.
    highlighted: () => app!.view.highlightedNodes.map((i) => app!.view.model!.hostId(i)),
    // Parts of a large view asked for and put in place; the progress line.
    parts: () => ({ ...app!.partStats }),
    progress: () => ({ visible: app!.progress.visible, text: app!.progress.text, shown: app!.progress.shown }),
    // v10 (tests): the ranks panel of a distributed job's run, or null.
    ranks: () => app!.ranks.state(),
    // v3 timeline mode (tests): stats of the timeline view, where an interval is drawn.
    timeline: () => (app!.timeline ? { ...app!.timeline.view.stats } : null),
    locate: (name: string) => app!.timeline?.locate(name) ?? null,
    // v11 rank timeline mode (tests): rank groups, rows and slices shown, the view's stats; where
    // the first slice named `name` (of RankSliceKind `kind`) is drawn, zoomed to it.
    rankTimeline: () => app!.rankTimeline?.state() ?? null,
    locateRankSlice: (name: string, kind?: number) => app!.rankTimeline?.locate(name, kind) ?? null,
    // v8 diff mode (tests): the table's rows in order, and the graph's stats; v9: the view's
    // size and whether this holds part of it, parts asked for and put in place, the focused frame.
    diff: () => {
      const d = app!.diff;
      if (!d) return null;
      const m = d.view.model;
      return { rows: d.shownRows.map((r) => ({ ...r })), nodes: m?.n ?? 0, firstNodes: d.firstNodes, instances: d.view.stats.instances, frames: d.view.stats.frames,
        viewNodes: m?.data.nodes ?? m?.n ?? 0, part: !!m?.data.node, parts: { ...d.partStats },
        focused: m ? { node: m.hostId(m.focus), name: m.fullName(m.focus) } : null };
    },
    // The view on screen (tests): which frames, grouping, node count, the root's children by
    // value (labels) and the legend's classes.
    view: () => {
      const m = app!.view.model;
      if (!m) return null;
      const kids: number[] = [];
      for (let c = m.firstChild[0]; c >= 0; c = m.nextSibling[c]) kids.push(c);
      return {
        view: m.data.view, metric: m.data.metric, frameFilter: m.data.frameFilter ?? 'all', byFunction: !!m.data.byFunction, nodes: m.n,
        maxDepth: m.maxDepth, rootChildren: kids.slice(0, 5).map((c) => m.label(c)),
        // The host's view: its size, and whether this holds only part of it.
        viewNodes: m.data.nodes ?? m.n, part: !!m.data.node, viewId: m.data.viewId ?? null,
      };
    },
    // The sandwich on screen (tests): its title and node counts, or null.
    sandwich: () => {
      const sw = app!.sandwich;
      if (!sw || sw.root.hidden) return null;
      return { title: sw.title.textContent, callers: sw.callers.model?.n ?? 0, callees: sw.callees.model?.n ?? 0,
        callerLabels: sw.callers.model ? Array.from({ length: sw.callers.model.n }, (_, i) => sw.callers.model!.label(i)) : [] };
    },
    // Zoom the flame graph to the widest kernel launch (tests; copies and sets are kernel-kind
    // frames too: left out); its index or -1.
    zoomToKernel: () => {
      const m = app!.view.model;
      if (!m) return -1;
      let best = -1;
      for (let i = 1; i < m.n; i++) {
        if (m.kind(i) !== FrameKind.Kernel || /^mem(cpy|set)\b/.test(m.fullName(i))) continue;
        if (best < 0 || m.data.inclusive[i] > m.data.inclusive[best]) best = i;
      }
      if (best >= 0) app!.view.zoom(best);
      return best;
    },
    // Zoom the flame graph to the widest truncated stack's marker (tests); its index or -1.
    zoomToTruncated: () => {
      const m = app!.view.model;
      if (!m) return -1;
      let best = -1;
      for (let i = 1; i < m.n; i++) if (m.truncated(i) && (best < 0 || m.data.inclusive[i] > m.data.inclusive[best])) best = i;
      if (best >= 0) app!.view.zoom(best);
      return best;
    },
    // Zoom the flame graph to the widest frame of at most `maxShare` of the total whose children
    // the host left out (tests; a small frame: zoomed into, its left-out children are wide): its
    // host id and how many nodes its subtree has here, or null when there is none.
    zoomToLeftOut: (maxShare: number) => {
      const m = app!.view.model;
      if (!m) return null;
      let best = -1;
      const most = maxShare * m.total;
      for (let i = 1; i < m.n; i++) {
        if (m.limit[i] > 0 && m.data.inclusive[i] <= most && (best < 0 || m.data.inclusive[i] > m.data.inclusive[best])) best = i;
      }
      if (best < 0) return null;
      app!.view.zoom(best);
      return { node: m.hostId(best), subtree: m.subtreeSize(best) };
    },
    // The focused frame (tests): its host id and how many nodes its subtree has here.
    focused: () => {
      const m = app!.view.model;
      return m ? { node: m.hostId(m.focus), subtree: m.subtreeSize(m.focus), name: m.fullName(m.focus) } : null;
    },
    // Zoom the flame graph to the first frame whose name starts with `prefix` (tests); its index or -1.
    zoomTo: (prefix: string) => {
      const m = app!.view.model;
      if (!m) return -1;
      for (let i = 1; i < m.n; i++) if (m.label(i).startsWith(prefix)) { app!.view.zoom(i); return i; }
      return -1;
    },
  };
  host.postMessage({ type: 'ready', version: PROTOCOL_VERSION, width: app ? app.graphWidth : undefined });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
else start();
