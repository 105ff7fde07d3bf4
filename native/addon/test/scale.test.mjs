// The addon at scale: a view of a 1M-node profile is built off the JS thread (the event loop
// keeps turning while it builds), a bottom-up view of a deep tree comes back bounded and partial
// with its reason, and line totals carry the backward part of a real training profile (backward
// kernels under their forward's line).
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
