// The addon at scale: a view of a 1M-node profile is built off the JS thread (the event loop
// keeps turning while it builds), a bottom-up view of a deep tree comes back bounded and partial
// with its reason, and line totals carry the backward part of a real training profile (backward
// kernels under their forward's line). A large view reaches the viewer in parts: view() with
// `first` gives the nodes wider than half a pixel (their ids in the view, what each lacks, the
// bound), viewPart() the part under one node (what zooming in needs); put together they are the
// whole view. sandwich() is the core's, bounded; nodeMetrics() is computed on demand and equals
// what the view holds. Bad arguments throw or come back null, never a crash.
// Run: node --test native/addon/test/     (after native/addon/build.sh and the bench target
// strata_synth_profile)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const buildDir = path.resolve(repo, process.env.STRATA_BUILD_DIR || 'build');
const addonPath = path.resolve(repo, process.env.STRATA_ADDON || path.join(buildDir, 'addon/Release/strata_addon.node'));
const synth = [process.env.STRATA_SYNTH, path.join(buildDir, 'bin/strata_synth_profile'), path.join(buildDir, 'addon/bin/strata_synth_profile')]
  .find((p) => p && existsSync(p));
const RESNET = path.join(repo, 'test/fixtures/h100/real_models/resnet50_train.strata');

let addon, tmp;
before(() => {
  assert.ok(existsSync(addonPath), `addon not built: ${addonPath} (bash native/addon/build.sh)`);
  assert.ok(synth, 'strata_synth_profile not built (cmake --build build --target strata_synth_profile)');
  addon = createRequire(import.meta.url)(addonPath);
  tmp = mkdtempSync(path.join(os.tmpdir(), 'strata-addon-scale-'));
});
after(() => rmSync(tmp, { recursive: true, force: true }));

const synthesize = (shape, nodes) => {
  const out = path.join(tmp, `${shape}-${nodes}.strata`);
  execFileSync(synth, ['--shape', shape, '--nodes', String(nodes), '-o', out]);
  return out;
};

test('a 1M-node view is built off the JS thread: the event loop turns meanwhile', async () => {
  const p = await addon.open(synthesize('wide', 1_000_000));
  let ticks = 0;
  const timer = setInterval(() => { ticks++; }, 5);
  const cols = await p.view('top-down', 0);
  clearInterval(timer);
  assert.equal(cols.parent.length, 1_000_000);
  assert.ok(ticks >= 3, `timer ticks while the view was built: ${ticks}`);
  p.close();
});

test('bottom-up of a deep tree: bounded, partial, and says why; inclusive sums still hold', async () => {
  const p = await addon.open(synthesize('deep', 200_000));
  const cols = await p.view('bottom-up', 0);
  assert.match(cols.partial ?? '', /^bottom-up view of a large profile: frames under [\d.]+% of the time are shown without their callers/);
  assert.ok(cols.parent.length < 2_000_000, `bounded: ${cols.parent.length} nodes`);
  const td = await p.view('top-down', 0);
  assert.equal(cols.total, td.total, 'the root keeps all the time');
  assert.equal(td.partial, undefined, 'the top-down view is complete');
  // inclusive = exclusive + children, everywhere.
  const sum = new Float64Array(cols.parent.length);
  for (let i = 1; i < cols.parent.length; i++) sum[cols.parent[i]] += cols.inclusive[i];
  for (let i = 0; i < cols.parent.length; i++) {
    const want = cols.exclusive[i] + sum[i];
    assert.ok(Math.abs(cols.inclusive[i] - want) <= 1e-6 * Math.max(1, want), `node ${i}: ${cols.inclusive[i]} vs ${want}`);
  }
  p.close();
});

test('small trees: bottom-up is exact (no partial)', async () => {
  const p = await addon.open(synthesize('wide', 10_000));
  const cols = await p.view('bottom-up', 0);
  assert.equal(cols.partial, undefined);
  p.close();
});

test('lineTotals: the backward part of ResNet-50\'s GPU time sits on its forward lines', async () => {
  const p = await addon.open(RESNET);
  const metrics = p.metrics();
  const gpu = metrics.findIndex((m) => m.name === 'gpu_time');
  const t = await p.lineTotals([gpu]);
  assert.equal(t.backward.length, 1);
  let best = -1;
  for (let i = 0; i < t.line.length; i++) {
    assert.ok(t.backward[0][i] <= t.values[0][i] * (1 + 1e-9), 'backward is a part of the line');
    const file = t.strings[t.file[i]];
    if (/models\.py$/.test(file) && t.backward[0][i] > 0 && (best < 0 || t.values[0][i] > t.values[0][best])) best = i;
  }
  assert.ok(best >= 0, 'a line of models.py holds backward GPU time');
  // The model's forward line: most of the GPU time, more than half of it backward.
  assert.ok(t.values[0][best] / t.totals[0] > 0.9, `share ${t.values[0][best] / t.totals[0]}`);
  assert.ok(t.backward[0][best] / t.values[0][best] > 0.5, `backward share ${t.backward[0][best] / t.values[0][best]}`);
  p.close();
});

test('the first part: nodes wider than the bound, ids in the view; parts fill in the whole view', async () => {
  const p = await addon.open(synthesize('wide', 200_000));
  const whole = await p.view('top-down', 0);
  assert.equal(whole.node, undefined, 'the whole view has no ids: they are the indexes');
  assert.equal(whole.nodes, whole.parent.length);
  const share = 0.5 / 1600;
  const first = await p.view('top-down', 0, {}, { minShare: share, maxNodes: 100_000, wholeUpTo: 1000 });
  assert.equal(first.nodes, whole.parent.length, 'the size of the whole view');
  assert.ok(first.parent.length < whole.parent.length / 4, `${first.parent.length} of ${whole.parent.length} nodes`);
  assert.ok(first.minValue > 0 && first.minValue <= share * first.total * (1 + 1e-12));
  assert.equal(first.frames.kind.length, whole.frames.kind.length, 'the frame table is the view\'s');
  let withMore = 0;
  for (let j = 0; j < first.parent.length; j++) {
    const id = first.node[j];
    assert.equal(first.inclusive[j], whole.inclusive[id]);
    assert.equal(first.frame[j], whole.frame[id]);
    if (j > 0) {
      assert.ok(first.inclusive[j] >= first.minValue);
      assert.equal(first.node[first.parent[j]], whole.parent[id], 'the parent is kept');
    }
    if (first.more[j]) withMore++;
  }
  assert.ok(withMore > 0, 'some nodes have children left out');
  // Every node with children left out: its part down to 0 is its whole subtree.
  const got = new Set(first.node);
  for (let j = 0; j < first.parent.length; j++) {
    if (!first.more[j]) continue;
    const part = await p.viewPart('top-down', first.node[j], { minValue: 0 });
    assert.equal(part.root, first.node[j]);
    assert.equal(part.node[0], part.root);
    assert.equal(part.minValue, 0, 'nothing left out');
    for (const id of part.node) got.add(id);
  }
  assert.equal(got.size, whole.parent.length, 'the first part and the parts are the whole view');
  // A part with a bound: only what reaches it, and a node whose children are all there has none left out.
  const root = first.node[first.more.indexOf(1)];
  const half = await p.viewPart('top-down', root, { minValue: first.minValue / 8, maxNodes: 50 });
  assert.ok(half.parent.length <= 50);
  for (let j = 1; j < half.parent.length; j++) assert.ok(half.inclusive[j] >= first.minValue / 8);
  p.close();
});

test('a top-down view sent in parts before it is whole: the same first part, parts, frame table and view', async () => {
  const file = synthesize('wide', 200_000);
  const FIRST = { minShare: 0.5 / 1600, maxNodes: 100_000, maxDepth: 128, wholeUpTo: 1000 };
  const cols = (c) => ({ ...c, parent: [...c.parent], frame: [...c.frame], inclusive: [...c.inclusive], exclusive: [...c.exclusive],
    count: [...c.count], node: c.node && [...c.node], more: c.more && [...c.more],
    frames: c.frames && Object.fromEntries(Object.entries(c.frames).map(([k, v]) => [k, [...v]])) });
  // Reference: the whole view built first, its parts cut from it.
  const ref = await addon.open(file);
  const whole = await ref.view('top-down', 0);
  const want = await ref.view('top-down', 0, {}, FIRST);
  // In parts: the first part before the view is whole, parts asked for at once (the fill runs).
  const p = await addon.open(file);
  const first = await p.view('top-down', 0, {}, FIRST);
  assert.deepEqual(cols(first), cols(want));
  const asked = [];
  for (let j = 0; j < first.parent.length && asked.length < 20; j++) if (first.more[j]) asked.push(first.node[j]);
  assert.ok(asked.length > 0);
  const parts = await Promise.all(asked.map((id) => p.viewPart('top-down', id, { minValue: first.minValue / 16, maxNodes: 100_000, maxDepth: 128 })));
  for (let i = 0; i < asked.length; i++)
    assert.deepEqual(cols(parts[i]), cols(await ref.viewPart('top-down', asked[i], { minValue: first.minValue / 16, maxNodes: 100_000, maxDepth: 128 })));
  // The whole view, once filled (or built now), is the reference's.
  assert.deepEqual(cols(await p.view('top-down', 0)), cols(whole));
  // Details need the whole view: they wait for it and are the reference's.
  assert.deepEqual(await p.nodeMetrics('top-down', asked[0]), await ref.nodeMetrics('top-down', asked[0]));
  p.close();
  ref.close();
});

test('a depth bound: nodes at it lack every child (2), below it parts go on', async () => {
  const p = await addon.open(synthesize('deep', 100_000));
  const first = await p.view('top-down', 0, {}, { minShare: 0, maxDepth: 20, wholeUpTo: 10 });
  const depth = new Int32Array(first.parent.length);
  for (let j = 1; j < first.parent.length; j++) depth[j] = depth[first.parent[j]] + 1;
  assert.ok(Math.max(...depth) <= 20);
  const cut = [...first.more.keys()].filter((j) => first.more[j] === 2);
  assert.ok(cut.length > 0, 'nodes at the depth bound');
  for (const j of cut) assert.equal(depth[j], 20);
  const next = await p.viewPart('top-down', first.node[cut[0]], { minValue: 0, maxDepth: 20 });
  assert.ok(next.parent.length > 1, 'its part goes on below');
  p.close();
});

test('a small view comes whole; unknown nodes are null; bad bounds throw', async () => {
  const p = await addon.open(synthesize('deep', 3000));
  const v = await p.view('top-down', 0, {}, { minShare: 0.01, wholeUpTo: 50_000 });
  assert.equal(v.node, undefined);
  assert.equal(v.parent.length, v.nodes);
  assert.equal(await p.viewPart('top-down', v.nodes + 5, { minValue: 0 }), null);
  assert.equal(await p.sandwich('top-down', v.nodes + 5), null);
  assert.equal(await p.sandwich('top-down', 0), null, 'the root is no function');
  assert.throws(() => p.viewPart('top-down', 1), TypeError);
  assert.throws(() => p.viewPart('top-down', 1, { minValue: -1 }), RangeError);
  assert.throws(() => p.viewPart('top-down', 1, { minValue: Infinity }), RangeError);
  assert.throws(() => p.view('top-down', 0, {}, { minShare: 'x' }), RangeError);
  assert.throws(() => p.view('top-down', 0, {}, { minShare: 0.1, maxNodes: 1.5 }), RangeError);
  p.close();
});

test('sandwich: callers and callees of a function, from a bottom-up node too; bounded', async () => {
  const p = await addon.open(RESNET);
  const td = await p.view('top-down', 0);
  // The heaviest child of <module>.
  let best = -1;
  for (let i = 1; i < td.parent.length; i++) if (td.parent[i] > 0 && (best < 0 || td.inclusive[i] > td.inclusive[best])) best = i;
  const sw = await p.sandwich('top-down', best);
  assert.ok(sw.calls >= 1);
  assert.equal(sw.byFunction, true);
  assert.equal(sw.metric, td.metric);
  const name = (cols, i) => sw.strings[sw.frames.name[cols.frame[i]]];
  assert.equal(name(sw.callers, 0), td.strings[td.frames.name[td.frame[best]]]);
  assert.equal(sw.callers.inclusive[0], sw.callees.inclusive[0], 'both trees hold the function\'s time');
  assert.ok(sw.callees.inclusive[0] >= td.inclusive[best]);
  for (const t of [sw.callers, sw.callees]) {
    const kids = new Float64Array(t.parent.length);
    for (let i = 1; i < t.parent.length; i++) { assert.ok(t.parent[i] < i); kids[t.parent[i]] += t.inclusive[i]; }
    for (let i = 0; i < t.parent.length; i++) assert.ok(Math.abs(t.inclusive[i] - t.exclusive[i] - kids[i]) <= 1e-6 * Math.max(1, t.inclusive[i]));
  }
  // From the bottom-up view: the same function's sandwich (the top-down view built on the side).
  const bu = await p.view('bottom-up', 0);
  const fn = bu.strings[bu.frames.name[bu.frame[1]]];
  const fromBu = await p.sandwich('bottom-up', 1);
  assert.equal(fromBu.strings[fromBu.frames.name[fromBu.callees.frame[0]]], fn);
  // The top-down view's node ids still name the top-down view.
  const again = await p.sourceLocation('top-down', best);
  assert.equal(again?.name ?? td.strings[td.frames.name[td.frame[best]]], td.strings[td.frames.name[td.frame[best]]]);
  p.close();
});

test('nodeMetrics on demand: every metric, the drawn one as the view has it', async () => {
  const p = await addon.open(RESNET);
  const metrics = p.metrics();
  const gpu = metrics.findIndex((m) => m.name === 'gpu_time');
  const v = await p.view('bottom-up', gpu);
  for (const i of [0, 1, 2, Math.floor(v.parent.length / 2)]) {
    const d = await p.nodeMetrics('bottom-up', i);
    assert.equal(d.metrics.length, metrics.length);
    assert.equal(d.metrics[gpu].inclusive, v.inclusive[i]);
    assert.equal(d.metrics[gpu].exclusive, v.exclusive[i]);
    assert.equal(d.metrics[gpu].count, v.count[i]);
  }
  p.close();
});
