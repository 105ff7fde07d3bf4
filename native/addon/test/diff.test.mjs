// Profile.diffAgainst (the viewer's diff mode) on the real H100 pair of one workload before and
// after an optimization: B's view with A's value per node, the changed line's row first, the
// kernels that appeared or vanished; one-line rejections for a bad baseline, a missing metric
// and two unrelated programs.
// Run: node --test native/addon/test/diff.test.mjs   (after native/addon/build.sh)
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
const FIX = path.join(repo, 'test/fixtures/h100');

let addon;
before(() => {
  assert.ok(existsSync(addonPath), `addon not built: ${addonPath} (bash native/addon/build.sh)`);
  addon = createRequire(import.meta.url)(addonPath);
});

test('diffAgainst: B coloured against A, the changed line first', async () => {
  const a = await addon.open(path.join(FIX, 'analyzers/index_backward.strata'));
  const b = await addon.open(path.join(FIX, 'analyzers/index_backward_twin.strata'));
  const d = await b.diffAgainst(a, 'gpu_time');
  assert.equal(d.metric, 'gpu_time');
  assert.ok(d.totalA > d.totalB);
  const n = d.parent.length;
  assert.ok(n > 1);
  for (const col of [d.frame, d.inclusive, d.exclusive, d.baseline, d.match]) assert.equal(col.length, n);
  assert.ok(d.baseline instanceof Float64Array && d.match instanceof Uint8Array);
  assert.equal(d.baseline[0], d.totalA, "the root's baseline is A's total");
  assert.equal(d.inclusive[0], d.totalB);
  const first = d.rows[0];
  assert.equal(first.match, 'only in A');
  assert.equal(first.node, -1);
  assert.match(first.userFrame.file, /index_backward\.py$/);
  assert.equal(first.userFrame.line, 24);
  assert.equal(d.rows[1].userFrame.line, 22);
  assert.ok(d.rows[1].node > 0 && d.match[d.rows[1].node] === 2, 'a path only B has is marked on its node');
  assert.ok(d.vanished.some((k) => k.name.includes('indexing_backward_kernel')));
  a.close();
  b.close();
});

test('diffAgainst: one-line rejections', async () => {
  const a = await addon.open(path.join(FIX, 'analyzers/index_backward.strata'));
  const other = await addon.open(path.join(FIX, 'py312_split.strata'));
  assert.throws(() => a.diffAgainst({}), /baseline must be a Profile/);
  await assert.rejects(a.diffAgainst(a, 'nope'), { message: "profile A has no metric 'nope'" });
  await assert.rejects(other.diffAgainst(a), /^Error: no call path with cpu_time is common to both profiles/);
  a.close();
  other.close();
});
