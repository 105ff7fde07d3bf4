// The addon's rank calls on real 4-rank gloo jobs (test/fixtures/rankview: torchrun, rank 2
// slowed down in slow_rank2): openRankRun merges the ranks by calling context; ranks() says who
// they are, rankPhases() each rank's compute / communication split, rankSpread() a node's values
// over the ranks, rankTimeline() the ranks on one clock (gloo4 and the constructed GPU run gpu2);
// analyze() runs the rank rules on it.
// Run: node --test native/addon/test/     (after native/addon/build.sh)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const buildDir = path.resolve(repo, process.env.STRATA_BUILD_DIR || 'build');
const addon = createRequire(import.meta.url)(path.resolve(repo, process.env.STRATA_ADDON || path.join(buildDir, 'addon/Release/strata_addon.node')));
const slow = path.join(repo, 'test/fixtures/rankview/slow_rank2');

test('openRankRun: ranks, phases and per-rank spread of the straggler line', async () => {
  const p = await addon.openRankRun(slow);
  try {
    const info = p.ranks();
    assert.deepEqual(info.ranks.map((r) => r.rank), [0, 1, 2, 3]);
    assert.deepEqual(info.missingRanks, []);
    assert.equal(info.leftOut.length, 1, 'torchrun agent');
    for (const r of info.ranks) {
      assert.equal(r.localRank, r.rank);
      assert.ok(r.host.length > 0);
      assert.equal(r.ended, '');
      assert.ok(r.endUnixNs > r.startUnixNs);
    }
    assert.equal(p.meta().ranks, '4');
    const phases = await p.rankPhases();
    assert.equal(phases.length, 4);
    for (const ph of phases) {
      assert.equal(ph.metric, 'wall_time');
      assert.equal(ph.overlapShare, null, 'no GPU');
      if (ph.rank !== 2) assert.ok(phases[2].computeNs > ph.computeNs, `rank ${ph.rank}`);
    }
    const wall = p.metrics().findIndex((m) => m.name === 'wall_time');
    const v = await p.view('top-down', wall, { frames: 'all' });
    let line38 = -1;
    for (let i = 0; i < v.parent.length; i++) {
      if (v.strings[v.frames.name[v.frame[i]]] === 'main' && v.frames.line[v.frame[i]] === 38) line38 = i;
    }
    assert.ok(line38 > 0, 'the extra_work() call line is a node');
    const s = await p.rankSpread('top-down', line38);
    assert.deepEqual(Array.from(s.ranks), [0, 1, 2, 3]);
    assert.ok(s.values instanceof Float64Array);
    assert.equal(s.maxRank, 2);
    assert.equal(s.min, 0);
    assert.ok(s.max > 0 && s.median <= s.max);
    assert.equal(await p.rankSpread('top-down', 1e9), null);
    const findings = (await p.analyze()).findings.filter((f) => f.rule === 'straggler');
    assert.equal(findings.length, 1);
    assert.equal(findings[0].cause, 'rank 2');
    assert.equal(findings[0].location.line, 38);
  } finally {
    p.close();
  }
});

test('rankSteps: the recorded all_reduce calls on one clock; rank 2 issues last', async () => {
  const p = await addon.openRankRun(path.join(repo, 'test/fixtures/ranks/gloo4'));
  try {
    const s = await p.rankSteps();
    assert.equal(s.collective, 'all_reduce');
    assert.ok(s.steps.length >= 10, `${s.steps.length} steps`);
    let last = 0;
    for (const st of s.steps) {
      assert.equal(st.computeNs.length, 4);
      assert.ok(st.arriveUnixNs[0] > 1.7e18, 'realtime ns');
      last += st.lastRank === 2;
    }
    assert.ok(last >= s.steps.length * 0.9, `rank 2 last in ${last} of ${s.steps.length}`);
  } finally {
    p.close();
  }
  const slowRun = await addon.openRankRun(slow);  // recorded before the runtime wrote collectives
  try {
    assert.deepEqual((await slowRun.rankSteps()).steps, []);
  } finally {
    slowRun.close();
  }
});

test('rank calls on other profiles and bad input', async () => {
  const plain = await addon.openRun(path.join(repo, 'test/fixtures/runs/pipeline'));
  try {
    assert.equal(plain.ranks(), null);
    assert.deepEqual(await plain.rankPhases(), []);
    assert.deepEqual((await plain.rankSteps()).steps, []);
  } finally {
    plain.close();
  }
  await assert.rejects(addon.openRankRun(path.join(repo, 'test/fixtures/runs/pipeline')), /no rank meta/);
  await assert.rejects(addon.openRankRun('/nonexistent/run'), /./);
  assert.throws(() => addon.openRankRun(3), /path must be a string/);
});

test('rankTimeline: steps and collectives per rank on one clock, GPU streams, the slice limit', async () => {
  const p = await addon.openRankRun(path.join(repo, 'test/fixtures/ranks/gloo4'));
  try {
    const t = await p.rankTimeline();
    const info = p.ranks();
    assert.equal(t.originUnixNs, Math.min(...info.ranks.map((r) => r.startUnixNs)));
    assert.deepEqual(t.lanes.map((l) => `${l.rank} ${l.kind}`),
      ['0 steps', '0 collectives', '1 steps', '1 collectives', '2 steps', '2 collectives', '3 steps', '3 collectives']);
    const n = t.lane.length;
    assert.ok(n > 80, `${n} slices`);
    for (const c of [t.start, t.end, t.node, t.bytes]) assert.ok(c instanceof Float64Array && c.length === n);
    assert.ok(t.kind instanceof Uint8Array && t.name instanceof Uint32Array && t.source instanceof Int32Array);
    assert.equal(t.truncated, 0);
    assert.equal(t.gpuDropped, 0);
    assert.deepEqual(t.ranksWithoutClock, []);
    // The steps lanes are rankSteps(): rank 2 issues each step's all_reduce last.
    const steps = await p.rankSteps();
    let stepSlices = 0;
    for (let i = 0; i < n; i++) {
      assert.ok(t.start[i] >= 0 && t.end[i] >= t.start[i] && t.end[i] <= t.spanNs);
      if (i > 0 && t.lane[i] === t.lane[i - 1]) assert.ok(t.start[i] >= t.start[i - 1]);
      if (t.kind[i] === 0) stepSlices++;
      if (t.kind[i] === 1 && t.names[t.name[i]] === 'all_reduce') {
        const src = t.sources[t.source[i]];
        assert.match(src.file, /gloo_job\.py$/);
        assert.equal(src.line, 57);
        assert.ok(t.node[i] > 0);
      }
    }
    assert.equal(stepSlices, 4 * steps.steps.length);
    // Rank 2 reaches the all_reduce last: its calls start latest.
    const starts = [[], [], [], []];
    for (let i = 0; i < n; i++)
      if (t.kind[i] === 1 && t.names[t.name[i]] === 'all_reduce') starts[t.lanes[t.lane[i]].rank].push(t.start[i]);
    const calls = Math.min(...starts.map((s) => s.length));
    let last = 0;
    for (let c = 1; c < calls; c++) last += Math.max(...starts.map((s) => s[c])) === starts[2][c];
    assert.ok(last >= (calls - 1) * 0.8, `rank 2 last in ${last} of ${calls - 1}`);
    const cut = await p.rankTimeline(20);
    assert.equal(cut.lane.length, 20);
    assert.equal(cut.truncated, n - 20);
    await assert.rejects(async () => p.rankTimeline(-1), /non-negative integer/);
  } finally {
    p.close();
  }
  const gpu = await addon.openRankRun(path.join(repo, 'test/fixtures/rankview/gpu2'));
  try {
    const t = await gpu.rankTimeline();
    assert.ok(t.lanes.length >= 2 && t.lanes.every((l) => l.kind === 'gpu'));
    assert.deepEqual([...new Set(t.lanes.map((l) => l.rank))], [0, 1]);
    let kernels = 0, onScript = 0;
    for (let i = 0; i < t.lane.length; i++) {
      if (t.kind[i] !== 2) continue;
      kernels++;
      assert.ok(t.node[i] > 0);
      if (t.source[i] >= 0 && t.sources[t.source[i]].file.endsWith('bench/timeline/workloads.py')) onScript++;
    }
    assert.ok(kernels > 100);
    assert.ok(onScript >= kernels * 0.9, `${onScript} of ${kernels}`);
  } finally {
    gpu.close();
  }
  const plain = await addon.openRun(path.join(repo, 'test/fixtures/runs/pipeline'));
  try {
    assert.equal(await plain.rankTimeline(), null);
  } finally {
    plain.close();
  }
});
