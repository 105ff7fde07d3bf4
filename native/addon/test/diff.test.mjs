// Profile.diffAgainst (the viewer's diff mode) on the real H100 pair of one workload before and
// after an optimization: B's view with A's value per node, the changed line's row first, the
// kernels that appeared or vanished; one-line rejections for a bad baseline, a missing metric
// and two unrelated programs. A large synthetic pair (strata_synth_profile, the same tree and a
// variant of it): B's view in parts, as a view is sent (the first part, a node's part, the path
// to a row's node, a node's frame), each node with the values the whole diff has.
// Run: node --test native/addon/test/diff.test.mjs   (after native/addon/build.sh)
import { test, before } from 'node:test';
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
const FIX = path.join(repo, 'test/fixtures/h100');
const synth = [process.env.STRATA_SYNTH, path.join(buildDir, 'bin/strata_synth_profile'), path.join(buildDir, 'addon/bin/strata_synth_profile')]
  .find((p) => p && existsSync(p));

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

test('diffAgainst with a first part: a large pair in parts, each node as the whole diff has it', async (t) => {
  assert.ok(synth, 'strata_synth_profile not built (cmake --build build --target strata_synth_profile)');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'strata-addon-diff-'));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const files = [0, 1].map((variant) => {
    const out = path.join(tmp, `wide-${variant}.strata`);
    execFileSync(synth, ['--shape', 'wide', '--nodes', '200000', '-o', out, ...(variant ? ['--variant', String(variant)] : [])]);
    return out;
  });
  const [a, b] = await Promise.all(files.map((f) => addon.open(f)));
  const first = { minShare: 0.5 / 1600, maxNodes: 100_000, maxDepth: 128, wholeUpTo: 50_000 };
  const d = await b.diffAgainst(a, undefined, first);
  const whole = await b.diffAgainst(a);
  a.close();
  b.close();
  assert.equal(d.nodes, 200_000);
  assert.equal(whole.parent.length, 200_000);
  assert.equal(whole.node, undefined, 'without `first`: the whole view, ids are indexes');
  const n = d.parent.length;
  assert.ok(n > 100 && n < 20_000, `first part: ${n} nodes`);
  for (const col of [d.frame, d.inclusive, d.baseline, d.match, d.node, d.more]) assert.equal(col.length, n);
  assert.ok(d.minValue > 0);
  // The same comparison: rows, paths, the largest change; a moved line matched fuzzily.
  assert.deepEqual(d.rows, whole.rows);
  assert.ok(d.rows.length > 0 && d.rows.length <= 200);
  assert.ok(d.fuzzyPaths > 0 && d.commonPaths === whole.commonPaths);
  let largest = 0;
  for (let i = 1; i < whole.parent.length; i++) largest = Math.max(largest, Math.abs(whole.inclusive[i] - whole.baseline[i]));
  assert.equal(d.largestChange, largest);
  const same = (part) => {
    for (let j = 0; j < part.node.length; j++) {
      const i = part.node[j];
      assert.equal(part.inclusive[j], whole.inclusive[i]);
      assert.equal(part.baseline[j], whole.baseline[i]);
      assert.equal(part.match[j], whole.match[i]);
      assert.equal(part.frame[j], whole.frame[i]);
    }
  };
  same(d);
  // A node's part: down to its bound.
  const left = d.node[[...d.more].findIndex((m) => m === 1)];
  const part = await d.part(left, { minValue: 0, maxNodes: 100_000, maxDepth: 128 });
  assert.equal(part.node[0], left);
  assert.ok(part.node.length > 1);
  same(part);
  // A row's node that was not sent: the nodes from the root to it.
  const row = d.rows.find((r) => r.node > 0 && !d.node.includes(r.node));
  assert.ok(row, 'a row whose node is not in the first part');
  const p = await d.path(row.node);
  assert.equal(p.node[0], 0);
  assert.equal(p.node[p.node.length - 1], row.node);
  for (let j = 1; j < p.node.length; j++) {
    assert.equal(p.parent[j], j - 1);
    assert.equal(whole.parent[p.node[j]], p.node[j - 1]);
  }
  same(p);
  assert.deepEqual(d.frameOf(row.node), row.frame);
  assert.equal(d.frameOf(200_000), null);
  assert.equal(await d.part(200_000, { minValue: 0 }), null);
  assert.throws(() => d.part(-1, { minValue: 0 }), /node must be a non-negative integer/);
});
