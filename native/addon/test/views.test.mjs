// The addon's view options on real H100 profiles (test/fixtures/h100/real_models): the Python
// view by default for a Python program and every frame on request, top-down by function, frame
// origins and truncation flags as columns, metric natures and counts, every metric of one node.
// Run: node --test native/addon/test/views.test.mjs   (after native/addon/build.sh)
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const buildDir = path.resolve(repo, process.env.STRATA_BUILD_DIR || 'build');
const addonPath = path.resolve(repo, process.env.STRATA_ADDON || path.join(buildDir, 'addon/Release/strata_addon.node'));
const RESNET = path.join(repo, 'test/fixtures/h100/real_models/resnet50_train.strata');
const ORIGIN = { none: 0, user: 1, library: 2, interpreter: 3, gpu: 4 };   // webview/src/protocol.ts FrameOrigin
const KERNEL = 5;

let addon;
before(() => {
  assert.ok(existsSync(addonPath), `addon not built: ${addonPath} (bash native/addon/build.sh)`);
  addon = createRequire(import.meta.url)(addonPath);
});

const originsOf = (v) => new Set([...v.frame].map((e) => v.frames.origin[e]));

test('a Python program opens in the Python view; frames "all" shows the interpreter', async () => {
  const p = await addon.open(RESNET);
  const py = await p.view('top-down', 0);
  assert.equal(py.frameFilter, 'python');
  assert.equal(py.byFunction, false);
  assert.ok(py.frames.origin instanceof Uint8Array && py.frames.flags instanceof Uint8Array);
  assert.equal(py.frames.origin.length, py.frames.kind.length);
  assert.ok(!originsOf(py).has(ORIGIN.interpreter), 'no interpreter frame in the Python view');
  for (const o of [ORIGIN.user, ORIGIN.library, ORIGIN.gpu]) assert.ok(originsOf(py).has(o), `origin ${o} present`);
  const all = await p.view('top-down', 0, { frames: 'all' });
  assert.equal(all.frameFilter, 'all');
  assert.ok(originsOf(all).has(ORIGIN.interpreter));
  assert.ok(all.parent.length > 2 * py.parent.length, `${all.parent.length} vs ${py.parent.length} nodes`);
  assert.ok(Math.abs(all.total - py.total) <= 1e-6 * all.total, 'same total');
  // Kernels are GPU frames.
  for (let e = 0; e < py.frames.kind.length; e++) if (py.frames.kind[e] === KERNEL) assert.equal(py.frames.origin[e], ORIGIN.gpu);
  // By function: fewer nodes, same total.
  const fn = await p.view('top-down', 0, { frames: 'python', byFunction: true });
  assert.equal(fn.byFunction, true);
  assert.ok(fn.parent.length < py.parent.length);
  // Its nodes list the lines merged into them (the details pane's lines).
  let merged = null;
  for (let i = 1; i < fn.parent.length && !merged; i++) {
    const d = await p.nodeMetrics('top-down', i);
    if (d.lines.length > 1) merged = { i, d };
    if (i > 400) break;
  }
  assert.ok(merged, 'a node with several lines');
  const sum = merged.d.lines.reduce((a, l) => a + l.value, 0);
  assert.ok(Math.abs(sum - fn.inclusive[merged.i]) <= 1e-6 * sum, `lines add up: ${sum} vs ${fn.inclusive[merged.i]}`);
  assert.ok(merged.d.lines.every((l) => typeof l.file === 'string' && l.line >= 0));
  // Node ids of later calls name nodes of the view last asked for (here: by function).
  const module = [...fn.frame].findIndex((e, i) => i > 0 && fn.parent[i] === 0 && fn.strings[fn.frames.name[e]] === '<module>');
  assert.ok(module > 0);
  const loc = await p.sourceLocation('top-down', module, 0);
  assert.equal(loc.name, '<module>');
  assert.match(loc.file, /models\.py$/);
  p.close();
});

test('metrics: nature and count; nodeMetrics has every metric of a node', async () => {
  const p = await addon.open(RESNET);
  const ms = p.metrics();
  const by = Object.fromEntries(ms.map((m) => [m.name, m]));
  assert.equal(by.cpu_time.nature, 'additive');
  assert.equal(by.gpu_time.nature, 'additive');
  for (const a of ['grid_size', 'block_size', 'registers_per_thread', 'static_shared_bytes', 'dynamic_shared_bytes', 'theoretical_occupancy'])
    assert.equal(by[a].nature, 'attribute', a);
  assert.ok(by.gpu_time.count > 0 && by.cpu_time.count > 0);
  const gpu = ms.findIndex((m) => m.name === 'gpu_time');
  const v = await p.view('top-down', gpu);
  // The heaviest kernel launch by GPU time (memcpy / memset frames are kernel-kind too: no grid).
  let k = -1;
  for (let i = 1; i < v.parent.length; i++) {
    const name = v.strings[v.frames.name[v.frame[i]]];
    if (v.frames.kind[v.frame[i]] === KERNEL && !/^mem(cpy|set)/.test(name) && (k < 0 || v.inclusive[i] > v.inclusive[k])) k = i;
  }
  assert.ok(k > 0);
  const { metrics: d, lines } = await p.nodeMetrics('top-down', k);
  assert.deepEqual(lines, [], 'lines apart: no merged lines');
  assert.equal(d.length, ms.length);
  const g = d.find((x) => x.name === 'gpu_time');
  assert.equal(g.inclusive, v.inclusive[k]);
  assert.ok(g.count >= 1 && g.min <= g.mean && g.mean <= g.max);
  const grid = d.find((x) => x.name === 'grid_size');
  assert.equal(grid.nature, 'attribute');
  assert.equal(grid.count, g.count, 'one grid per launch');
  assert.ok(grid.min >= 1 && grid.min <= grid.max);
  const occ = d.find((x) => x.name === 'theoretical_occupancy');
  assert.equal(occ.nature, 'attribute');
  assert.ok(occ.min >= 0 && occ.max <= 1, `occupancy ${occ.min}..${occ.max}`);
  assert.equal(await p.nodeMetrics('top-down', 1e7), null, 'unknown node');
  assert.throws(() => p.view('top-down', 0, { frames: 'some' }), TypeError);
  assert.throws(() => p.view('top-down', 0, { byFunction: 'yes' }), TypeError);
  p.close();
});
