// The extension host's part of the viewer benchmark, in its own Node process (so its memory is
// its own): the addon opens the profile and builds views on its worker thread, exactly as
// extension/src/profileViewer.ts asks for them; each view becomes the webview's 'profile'
// message (extension/src/profileMessage.ts's shape), served over HTTP as one binary body (typed
// arrays as raw bytes, as VS Code hands ArrayBuffers to a webview) for the page to fetch.
// Driven by the benchmark over IPC: {cmd:'open', path} / {cmd:'view', kind, first} / {cmd:'part',
// kind, node, minValue} (the 'nodes' message a zoom asks for) / {cmd:'memory'}. `first`: the part
// of a large view to send first, as extension/src/viewParts.ts asks for it. Two runs compared
// (extension/src/diffPanel.ts's messages): {cmd:'diff', a, b, first} (the 'diff' message; no
// `first`: B's whole view) / {cmd:'diffPart', node, minValue} / {cmd:'diffPath', node}.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const addon = require(process.env.STRATA_ADDON);
const PROTOCOL_VERSION = Number(/PROTOCOL_VERSION = (\d+)/.exec(readFileSync(new URL('../../webview/src/protocol.ts', import.meta.url), 'utf8'))[1]);

let profile;
let viewId = 0;
let diff;
// The last view's message at /, each part's at /part/N (several can wait to be fetched).
let body = Buffer.alloc(0);
const partBodies = new Map();
let partSeq = 0;
const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'access-control-allow-origin': '*', 'cache-control': 'no-store' });
  const part = /^\/part\/(\d+)$/.exec(req.url ?? '');
  if (part) { res.end(partBodies.get(part[1]) ?? Buffer.alloc(0)); partBodies.delete(part[1]); return; }
  res.end(body);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));

/** message → [u32 header length][header JSON][pad to 8][typed arrays' bytes]. */
function encode(msg) {
  const parts = [];
  let offset = 0;
  const header = JSON.stringify(msg, (_k, v) => {
    if (ArrayBuffer.isView(v)) {
      offset = Math.ceil(offset / 8) * 8;
      const ref = { $ta: v.constructor.name, o: offset, n: v.length };
      parts.push({ offset, bytes: Buffer.from(v.buffer, v.byteOffset, v.byteLength) });
      offset += v.byteLength;
      return ref;
    }
    return v;
  });
  const h = Buffer.from(header, 'utf8');
  const start = Math.ceil((4 + h.length) / 8) * 8;
  const out = Buffer.alloc(start + offset);
  out.writeUInt32LE(h.length, 0);
  h.copy(out, 4);
  for (const p of parts) p.bytes.copy(out, start + p.offset);
  return out;
}

function memory() {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMB: kb('VmRSS') / 1024, peakMB: kb('VmHWM') / 1024 };
}

process.on('message', async (m) => {
  try {
    if (m.cmd === 'open') {
      const t0 = performance.now();
      profile = await addon.open(m.path);
      process.send({ ok: true, ms: performance.now() - t0, port: server.address().port });
    } else if (m.cmd === 'view') {
      const t0 = performance.now();
      const cols = await profile.view(m.kind, 0, {}, m.first);
      const t1 = performance.now();
      const metrics = profile.metrics();
      const msg = {
        type: 'profile', version: PROTOCOL_VERSION, title: 'benchmark', metrics: metrics.map((x) => x.name),
        metricInfo: metrics.map((x) => ({ name: x.name, unit: x.unit, nature: x.nature === 'attribute' ? 'attribute' : 'additive', count: x.count ?? 0 })),
        data: {
          view: cols.view, metric: cols.metric, unit: cols.unit, total: cols.total, strings: cols.strings, frames: cols.frames,
          parent: cols.parent, frame: cols.frame, inclusive: cols.inclusive, exclusive: cols.exclusive,
          frameFilter: cols.frameFilter === 'python' ? 'python' : 'all', byFunction: cols.byFunction === true,
          ...(cols.node ? { node: cols.node, more: cols.more, minValue: cols.minValue } : {}),
          nodes: cols.nodes ?? cols.parent.length, viewId: ++viewId,
        },
      };
      body = encode(msg);
      process.send({ ok: true, viewMs: t1 - t0, encodeMs: performance.now() - t1, nodes: cols.parent.length, viewNodes: cols.nodes ?? cols.parent.length,
        bytes: body.length, partial: cols.partial ?? '', ...memory() });
    } else if (m.cmd === 'part') {
      const t0 = performance.now();
      const part = await profile.viewPart(m.kind, m.node, { minValue: m.minValue, maxNodes: 100_000, maxDepth: 128 });
      const id = String(++partSeq);
      partBodies.set(id, encode({ type: 'nodes', viewId, root: m.node, part: {
        parent: part.parent, frame: part.frame, inclusive: part.inclusive, exclusive: part.exclusive, node: part.node, more: part.more, minValue: part.minValue } }));
      process.send({ ok: true, ms: performance.now() - t0, nodes: part.parent.length, url: `http://127.0.0.1:${server.address().port}/part/${id}` });
    } else if (m.cmd === 'diff') {
      const t0 = performance.now();
      const [a, b] = await Promise.all([addon.open(m.a), addon.open(m.b)]);
      const t1 = performance.now();
      diff = await b.diffAgainst(a, undefined, m.first);
      const t2 = performance.now();
      a.close();
      b.close();
      const d = diff;
      body = encode({ type: 'diff', version: PROTOCOL_VERSION, title: 'benchmark', nameA: 'a', nameB: 'b', data: {
        metric: d.metric, unit: d.unit, totalA: d.totalA, totalB: d.totalB, commonPaths: d.commonPaths, fuzzyPaths: d.fuzzyPaths,
        frameFilter: d.frameFilter, strings: d.strings, frames: d.frames, parent: d.parent, frame: d.frame, inclusive: d.inclusive,
        exclusive: d.exclusive, baseline: d.baseline, match: d.match, rows: d.rows, appeared: d.appeared, vanished: d.vanished,
        nodes: d.nodes, viewId: ++viewId, largestChange: d.largestChange, ...(d.node ? { node: d.node, more: d.more, minValue: d.minValue } : {}) } });
      process.send({ ok: true, openMs: t1 - t0, diffMs: t2 - t1, encodeMs: performance.now() - t2, nodes: d.parent.length, viewNodes: d.nodes ?? d.parent.length,
        bytes: body.length, rows: d.rows.map((r) => r.node), port: server.address().port, ...memory() });
    } else if (m.cmd === 'diffPart' || m.cmd === 'diffPath') {
      const t0 = performance.now();
      const part = m.cmd === 'diffPath' ? await diff.path(m.node) : await diff.part(m.node, { minValue: m.minValue, maxNodes: 100_000, maxDepth: 128 });
      const id = String(++partSeq);
      partBodies.set(id, encode({ type: 'nodes', viewId, root: m.cmd === 'diffPath' ? 0 : m.node, part: {
        parent: part.parent, frame: part.frame, inclusive: part.inclusive, exclusive: part.exclusive, node: part.node, more: part.more,
        minValue: part.minValue, baseline: part.baseline, match: part.match } }));
      process.send({ ok: true, ms: performance.now() - t0, nodes: part.parent.length, url: `http://127.0.0.1:${server.address().port}/part/${id}` });
    } else if (m.cmd === 'memory') {
      process.send({ ok: true, ...memory() });
    } else if (m.cmd === 'close') {
      profile?.close();
      server.close();
      process.send({ ok: true });
      process.exit(0);
    }
  } catch (e) {
    process.send({ ok: false, error: e.message });
  }
});
process.send({ ready: true });
