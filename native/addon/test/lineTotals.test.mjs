// Tests of the addon's line totals and stall classes on the H100 PC-sampling fixture: each
// stall metric's class comes from the core's one table; lineTotals sums every asked metric in
// one call, equal to what a per-metric top-down walk gives (the outermost frame of each path).
// Run: node --test native/addon/test/     (after native/addon/build.sh)
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
const STALLS = path.join(repo, 'test/fixtures/h100/stalls/stalls_continuous.strata');

let addon;
before(() => {
  assert.ok(existsSync(addonPath), `addon not built: ${addonPath} (bash native/addon/build.sh)`);
  addon = createRequire(import.meta.url)(addonPath);
});

/** Line totals of one metric from its top-down view: the outermost frame of each path. */
function walk(cols) {
  const out = new Map(), open = new Map(), stack = [];
  const { file, line } = cols.frames;
  const key = (i) => {
    const f = cols.frame[i];
    return file[f] > 0 && line[f] > 0 ? `${cols.strings[file[f]]}:${line[f]}` : null;
  };
  for (let i = 1; i < cols.parent.length; i++) {
    while (stack.length && stack[stack.length - 1] !== cols.parent[i]) { const k = key(stack.pop()); if (k) open.set(k, open.get(k) - 1); }
    stack.push(i);
    const k = key(i);
    if (!k) continue;
    const d = open.get(k) ?? 0;
    open.set(k, d + 1);
    if (d === 0) out.set(k, (out.get(k) ?? 0) + cols.inclusive[i]);
  }
  return out;
}

test('metrics(): stall metrics carry the core\'s class; others none', async () => {
  const p = await addon.open(STALLS);
  const cls = Object.fromEntries(p.metrics().map((m) => [m.name, m.stall]));
  assert.equal(cls.stall_long_scoreboard, 'latency');
  assert.equal(cls.stall_selected, 'throughput');
  assert.equal(cls.stall_sample_count, 'not_a_reason');
  assert.equal(cls.stall_samples_data_dropped, 'not_a_reason');
  assert.equal(cls.pc_samples, undefined);
  p.close();
});

test('lineTotals: every metric in one call, as a top-down walk per metric gives', async () => {
  const p = await addon.open(STALLS);
  const metrics = p.metrics();
  const idx = metrics.map((_, i) => i);
  const t = await p.lineTotals(idx);
  assert.equal(t.values.length, idx.length);
  assert.ok(t.file.length > 0 && t.file.length === t.line.length);
  for (const m of idx) {
    const cols = await p.view('top-down', m);
    assert.equal(t.totals[m], cols.total, `${metrics[m].name}: total`);
    const want = walk(cols);
    const got = new Map();
    for (let i = 0; i < t.file.length; i++) got.set(`${t.strings[t.file[i]]}:${t.line[i]}`, t.values[m][i]);
    assert.deepEqual(got, want, metrics[m].name);
  }
  await assert.rejects(p.lineTotals([metrics.length]), /out of range/);
  assert.throws(() => p.lineTotals([-1]), RangeError);
  assert.throws(() => p.lineTotals('cpu'), TypeError);
  p.close();
});
