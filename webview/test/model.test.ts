// Unit tests of the pure logic (layout, zoom, hit testing, search, data normalisation, formatting).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlameModel } from '../src/model/flameModel';
import { normalizeFlameData } from '../src/model/normalize';
import { formatPercent, formatValue } from '../src/model/format';
import { COLD, HOT, MAIN, ROOT, sampleData } from './fixtures';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const close = (a: number, b: number, eps = 1e-9) => assert.ok(Math.abs(a - b) < eps, `${a} ≉ ${b}`);

test('layout: children placed left to right, as fractions of the root', () => {
  const m = new FlameModel(sampleData());
  assert.equal(m.maxDepth, 2);
  assert.deepEqual(Array.from(m.depth), [0, 1, 2, 2]);
  assert.deepEqual([m.subtreeSize(ROOT), m.subtreeSize(MAIN), m.subtreeSize(HOT), m.subtreeSize(COLD)], [4, 3, 1, 1]);
  close(m.x0[ROOT], 0); close(m.x1[ROOT], 1);
  close(m.x0[MAIN], 0); close(m.x1[MAIN], 1);
  close(m.x0[HOT], 0); close(m.x1[HOT], 0.75);
  close(m.x0[COLD], 0.75); close(m.x1[COLD], 1);
});

test('zoom: focused subtree fills the width, ancestors stay full width, others hidden', () => {
  const m = new FlameModel(sampleData());
  m.layout(COLD);
  assert.equal(m.focus, COLD);
  assert.deepEqual(m.ancestors, [ROOT, MAIN, COLD]);
  close(m.x0[COLD], 0); close(m.x1[COLD], 1);
  assert.ok(m.isVisible(ROOT) && m.isVisible(MAIN) && m.isVisible(COLD));
  assert.ok(!m.isVisible(HOT));
  assert.equal(m.hitTest(0.1, 2), COLD);
  assert.equal(m.hitTest(0.9, 0), ROOT);
  m.layout(ROOT);
  close(m.x1[HOT], 0.75);
});

test('hit testing by row and x fraction', () => {
  const m = new FlameModel(sampleData());
  assert.equal(m.hitTest(0.5, 0), ROOT);
  assert.equal(m.hitTest(0.5, 1), MAIN);
  assert.equal(m.hitTest(0.74, 2), HOT);
  assert.equal(m.hitTest(0.76, 2), COLD);
  assert.equal(m.hitTest(0.5, 3), -1);
  assert.equal(m.hitTest(-0.1, 0), -1);
  assert.equal(m.hitTest(0.76, 2, 0.3), -1, 'narrower than minWidth → not hit');
});

test('children with self time leave a gap; bad data is clamped to the parent', () => {
  const d = sampleData();
  d.inclusive = Float64Array.from([100, 80, 30, 70]); // children of main sum to 100 > 80
  const m = new FlameModel(d);
  close(m.x1[MAIN], 0.8);
  close(m.x1[HOT], 0.3);
  close(m.x0[COLD], 0.3);
  close(m.x1[COLD], 0.8); // clamped
});

test('search: case-insensitive on name and file, share without double counting', () => {
  const m = new FlameModel(sampleData());
  const r = m.search('HOT')!;
  assert.equal(r.count, 1);
  assert.equal(r.matches[HOT], 1);
  close(r.share, 0.75);
  const f = m.search('cold.PY')!;
  assert.equal(f.matches[COLD], 1);
  close(f.share, 0.25);
  const all = m.search('.py')!; // main (train.py) contains hot and cold: count once
  assert.equal(all.count, 3);
  close(all.share, 1);
  assert.equal(m.search('  '), null);
  assert.equal(m.search('zzz')!.count, 0);
});

test('frame table: nodes that share a frame share its name, kind and search hits', () => {
  const d = sampleData();
  d.frame = Uint32Array.from([0, 1, 2, 2]);   // cold is drawn as a second 'hot'
  const m = new FlameModel(d);
  assert.equal(m.label(COLD), 'hot');
  assert.equal(m.kind(COLD), m.kind(HOT));
  const r = m.search('hot.py')!;
  assert.equal(r.count, 2);
  close(r.share, 1);
});

test('normalize: accepts plain arrays and objects with numeric keys', () => {
  const s = sampleData();
  const raw = {
    ...s,
    frames: {
      kind: Object.fromEntries(Array.from(s.frames.kind).map((v, i) => [String(i), v])),
      name: { length: 4, 0: 1, 1: 2, 2: 3, 3: 4 },
      file: Array.from(s.frames.file), line: Array.from(s.frames.line), module: Array.from(s.frames.module),
    },
    parent: Array.from(s.parent),
    frame: Object.assign({}, Array.from(s.frame)),
    inclusive: Array.from(s.inclusive),
    exclusive: Object.assign({}, Array.from(s.exclusive)),
  };
  const d = normalizeFlameData(raw);
  assert.ok(d.parent instanceof Int32Array && d.frames.kind instanceof Uint8Array && d.frame instanceof Uint32Array && d.inclusive instanceof Float64Array);
  assert.deepEqual(Array.from(d.frames.name), [1, 2, 3, 4]);
  assert.deepEqual(Array.from(d.frames.kind), [0, 1, 1, 2]);
  assert.deepEqual(Array.from(d.frame), [0, 1, 2, 3]);
  assert.deepEqual(Array.from(d.exclusive), [0, 0, 7.5e8, 2.5e8]);
  const m = new FlameModel(d);
  close(m.x1[HOT], 0.75);
});

test('normalize: rejects broken data with a readable message', () => {
  const s = sampleData();
  assert.throws(() => normalizeFlameData({ ...s, parent: [-1, 0, 3, 1] }), /preorder/);
  assert.throws(() => normalizeFlameData({ ...s, inclusive: [1, 2] }), /inclusive.*2 entries/);
  assert.throws(() => normalizeFlameData({ ...s, frame: [0, 1, 2, 4] }), /node 3 names frame 4; the frame table has 4/);
  assert.throws(() => normalizeFlameData({ ...s, frames: { ...s.frames, line: [0] } }), /frames\.line.*1 entries, expected 4/);
  assert.throws(() => normalizeFlameData({ ...s, parent: [] }), /empty/);
  assert.throws(() => normalizeFlameData(null), /missing/);
  assert.throws(() => normalizeFlameData({ ...s, inclusive: undefined }), /inclusive.*missing/);
});

test('100k nodes: layout and search stay fast', () => {
  const n = 100_000;
  const parent = new Int32Array(n), inclusive = new Float64Array(n), frame = new Uint32Array(n);
  parent[0] = -1;
  let seed = 1;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  for (let i = 1; i < n; i++) parent[i] = Math.max(0, i - 1 - Math.floor(rnd() * Math.min(i, 8)));
  for (let i = n - 1; i >= 0; i--) { inclusive[i] += 1 + rnd() * 10; if (i > 0) inclusive[parent[i]] += inclusive[i]; frame[i] = 1 + (i % 500); }
  const strings = [''].concat(Array.from({ length: 500 }, (_, i) => `fn_${i}`));
  // 500 distinct frames shared by 100k nodes (frame f is named strings[f]).
  const frames = { kind: new Uint8Array(501), name: Uint32Array.from({ length: 501 }, (_, f) => f) };
  const d = normalizeFlameData({ view: 'top-down', metric: 'm', unit: 'ns', total: inclusive[0], strings, frames, parent, frame, inclusive });
  let t = performance.now();
  const m = new FlameModel(d);
  const build = performance.now() - t;
  t = performance.now();
  m.layout(1);
  m.layout(0);
  const layout = (performance.now() - t) / 2;
  t = performance.now();
  const r = m.search('fn_42')!;
  const search = performance.now() - t;
  assert.ok(r.count > 0);
  for (let i = 1; i < n; i++) assert.ok(m.x0[i] >= m.x0[parent[i]] - 1e-12 && m.x1[i] <= m.x1[parent[i]] + 1e-12);
  assert.ok(build < 200 && layout < 50 && search < 100, `build ${build} layout ${layout} search ${search} ms`);
});

test('format: units and percentages', () => {
  assert.equal(formatValue(7.5e8, 'ns'), '750 ms');
  assert.equal(formatValue(1500, 'ns'), '1.5 µs');
  assert.equal(formatValue(2048, 'bytes'), '2 KiB');
  assert.equal(formatValue(1234567, 'count'), '1,234,567');
  assert.equal(formatPercent(75, 100), '75.0%');
  assert.equal(formatPercent(1, 300), '0.33%');
});

test('frame kinds: src/frameKinds.generated.ts is what scripts/frameKinds.mjs makes of the format\'s layout.h', () => {
  const script = resolve(__dirname, '../../scripts/frameKinds.mjs');
  execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe' });   // throws when stale
});
