// End-to-end test of a distributed job's ranks on one timeline in a real VS Code (code-server), on
// the real 4-rank gloo job of test/fixtures/ranks/gloo4 (torchrun, CPU only, its collective calls
// recorded; rank 2 given extra work before its all_reduce by test/ranks/gloo_job.py):
//   (t0) test/fixtures/rankview/slow_rank2 (recorded before the runtime recorded collective calls,
//        no GPU): "Strata: Show Rank Timeline" says there is nothing to place, no panel;
//   (t1) "Open Run (all processes)" on gloo4 opens it as a rank run; "Strata: Show Rank Timeline"
//        opens a panel with a group per rank, each with its steps and its collective calls;
//   (t2) hovering a collective: the tooltip names all_reduce and its issuing line;
//   (t3) a click on it opens gloo_job.py at that line;
//   (t4) the ranks panel's Timeline button opens the timeline again once it was closed;
//   (t5) test/fixtures/rankview/gpu2 (two ranks constructed from a real H100 ResNet-18 recording,
//        rank 1 moved 7 ms later: its README): a lane per GPU stream in each rank's group; a
//        kernel's tooltip names its stream and the training script's line that launched it.
// Run: node --test test/e2e/rank_timeline.test.mjs   (see harness.mjs for prerequisites and env)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import {
  S, activeTab, cli, extId, loadAddon, makeFolders, missingPrerequisites, openRunFromExplorer, repo, runCommand, shot, skipReason, sleep,
  timelineTooltipAt,
  startSession, statusLine, stopSession, strataFrame, strataTabs, waitFor, waitToast,
} from './harness.mjs';

const FIXTURE = path.join(repo, 'test/fixtures/ranks/gloo4');
const NO_CALLS = path.join(repo, 'test/fixtures/rankview/slow_rank2');
const GPU_RUN = path.join(repo, 'test/fixtures/rankview/gpu2');
const JOB = path.join(repo, 'test/ranks/gloo_job.py');
const COLLECTIVE = 1;   // RankSliceKind.Collective
const KERNEL = 2;       // RankSliceKind.Kernel

/** The frame of the webview showing the rank timeline, once it is drawn, with its state. */
async function rankTimelineFrame(timeoutMs = 60000) {
  return waitFor('the rank timeline drawn', async () => {
    for (const f of S.page.frames()) {
      const st = await f.evaluate(() => window.__strata?.rankTimeline?.() ?? null).catch(() => null);
      if (st && st.stats.drawn > 0 && st.stats.frames > 0) return { frame: f, st };
    }
    return null;
  }, timeoutMs, 500).catch(async (e) => { await shot('rank-timeline-missing'); throw e; });
}


describe('Strata rank timeline: a distributed job\'s ranks on one timeline (code-server)', { timeout: 300_000 }, () => {
  const missing = missingPrerequisites();
  const skip = skipReason(missing);
  const line = readFileSync(JOB, 'utf8').split('\n').findIndex((l) => l.includes('dist.all_reduce(')) + 1;
  let run, expected;

  before(async () => {
    if (skip) return;
    assert.deepEqual(missing, [], `prerequisites missing:\n  ${missing.join('\n  ')}`);
    makeFolders('rank-timeline');
    symlinkSync(path.join(repo, 'extension'), path.join(S.ext, extId), 'dir');
    run = path.join(S.ws, 'gloo4');
    cpSync(FIXTURE, run, { recursive: true });
    cpSync(NO_CALLS, path.join(S.ws, 'slow_rank2'), { recursive: true });
    cpSync(GPU_RUN, path.join(S.ws, 'gpu2'), { recursive: true });
    // The job's source, found by name in the workspace when its recorded path is not here.
    mkdirSync(path.join(S.ws, 'ranks'), { recursive: true });
    cpSync(JOB, path.join(S.ws, 'ranks/gloo_job.py'));
    // What the panel should show, from the addon itself: the ranks, the all_reduce's issuing line.
    const p = await loadAddon().openRankRun(run);
    try {
      const t = await p.rankTimeline();
      assert.ok(t, 'a rank run has a timeline');
      const ar = t.names.indexOf('all_reduce');
      const k = Array.from(t.kind).findIndex((x, i) => x === COLLECTIVE && t.name[i] === ar);
      assert.ok(k >= 0, 'the fixture recorded all_reduce calls');
      expected = { ranks: [...new Set(t.lanes.map((l) => l.rank))], source: t.sources[t.source[k]] };
    } finally {
      p.close();
    }
    assert.deepEqual(expected.ranks, [0, 1, 2, 3]);
    assert.match(expected.source.file, /gloo_job\.py$/);
    assert.equal(expected.source.line, line, 'the all_reduce\'s issuing line is the dist.all_reduce call');
    await startSession({ 'strata.cliPath': cli });
  });

  after(async () => { if (!skip) await stopSession(); });


  /** The frame of the viewer whose ranks panel shows `count` ranks. */
  async function viewerFrame(count) {
    return waitFor('the viewer with its ranks panel', async () => {
      for (const f of S.page.frames()) {
        const r = await f.evaluate(() => window.__strata?.ranks?.() ?? null).catch(() => null);
        if (r && r.rows.length === count) return f;
      }
      return null;
    }, 60000).catch(async (e) => { await shot(`${S.prefix}-viewer`); throw e; });
  }

  test('(t0) a rank run without recorded collective calls or GPU work: nothing to place, said so', { skip }, async () => {
    await openRunFromExplorer('slow_rank2');
    await viewerFrame(4);
    await runCommand('Strata: Show Rank Timeline');
    await waitToast('the notification', /slow_rank2: its ranks recorded no collective calls and no GPU activity/, 60000, /timeline failed/);
    assert.ok(!(await strataTabs()).some((t) => t.includes('ranks timeline')), `no panel: ${await strataTabs()}`);
    await runCommand('View: Close All Editors');
  });

  test('(t1) Show Rank Timeline on a rank run: a group per rank with its steps and collectives', { skip }, async () => {
    await openRunFromExplorer('gloo4');
    await viewerFrame(4);
    assert.ok((await strataTabs()).some((t) => t.includes('gloo4 (4 ranks)')), `tabs: ${await strataTabs()}`);
    await runCommand('Strata: Show Rank Timeline');
    const { st } = await rankTimelineFrame();
    assert.equal(st.groups.length, 4, JSON.stringify(st.groups));
    st.groups.forEach((g, r) => assert.match(g, new RegExp(`^rank ${r}( · .+)?$`)));
    for (const g of st.groups) {
      assert.ok(st.rows.includes(`${g} / steps`), `${g} has its steps: ${JSON.stringify(st.rows)}`);
      assert.ok(st.rows.includes(`${g} / collectives`), `${g} has its collectives: ${JSON.stringify(st.rows)}`);
    }
    assert.ok(st.collectives > 0, 'collective calls drawn');
    assert.ok((await strataTabs()).some((t) => t.includes('gloo4 ranks timeline')), `tabs: ${await strataTabs()}`);
    await shot('t1-rank-timeline');
  });

  test('(t2) hover a collective: all_reduce and its issuing line', { skip }, async () => {
    const { frame } = await rankTimelineFrame();
    const at = await frame.evaluate((k) => window.__strata.locateRankSlice('all_reduce', k), COLLECTIVE);
    assert.ok(at, 'an all_reduce slice is drawn');
    const tip = await timelineTooltipAt(frame, '.strata-rank-timeline .strata-timeline-stage', { x: Math.round(at.x), y: Math.round(at.y) })
      .catch(async (e) => { await shot('t2-tooltip'); throw e; });
    assert.equal(tip.name, 'all_reduce');
    assert.match(tip.loc, new RegExp(`gloo_job\\.py:${line}$`), tip.loc);
    assert.match(tip.lane, /^rank \d( · .+)? · collectives$/, tip.lane);
    assert.match(tip.rows.Duration ?? '', /^[\d.]+ (ns|µs|ms|s)$/);
    await shot('t2-tooltip');
  });

  test('(t3) a click on it opens gloo_job.py at that line', { skip }, async () => {
    const { frame } = await rankTimelineFrame();
    const at = await frame.evaluate((k) => window.__strata.locateRankSlice('all_reduce', k), COLLECTIVE);
    await frame.locator('.strata-rank-timeline .strata-timeline-stage').click({ position: { x: Math.round(at.x), y: Math.round(at.y) } });
    await activeTab('gloo_job.py', 20000).catch(async (e) => { await shot('t3-click'); throw e; });
    await waitFor(`cursor at line ${line}`, async () => (await statusLine()) === line, 10000)
      .catch(async (e) => { await shot('t3-line'); throw e; });
    await shot('t3-issuing-line');
  });

  test('(t4) the ranks panel\'s Timeline button opens it again', { skip }, async () => {
    await runCommand('View: Close All Editors');
    await openRunFromExplorer('gloo4');
    const viewer = await viewerFrame(4);
    await viewer.locator('button.strata-ranks-timeline').click();
    const { st } = await rankTimelineFrame();
    assert.equal(st.groups.length, 4);
    await shot('t4-again');
  });

  test('(t5) a GPU run: a lane per stream in each rank, a kernel\'s stream and launching line', { skip }, async () => {
    const p = await loadAddon().openRankRun(path.join(S.ws, 'gpu2'));
    let kernel, source, streams;
    try {
      const t = await p.rankTimeline();
      const k = Array.from(t.kind).findIndex((x) => x === KERNEL);
      assert.ok(k >= 0, 'the constructed run has kernels');
      kernel = t.names[t.name[k]];
      source = t.sources[t.source[k]];
      streams = t.lanes.filter((l) => l.kind === 'gpu').length;
    } finally {
      p.close();
    }
    assert.ok(streams >= 2, `GPU lanes in both ranks: ${streams}`);
    await runCommand('View: Close All Editors');
    await openRunFromExplorer('gpu2');
    const viewer = await viewerFrame(2);
    await viewer.locator('button.strata-ranks-timeline').click();
    const { frame, st } = await waitFor('the gpu2 timeline', async () => {
      const r = await rankTimelineFrame();
      return r.st.groups.length === 2 ? r : null;
    }, 60000);
    for (const g of st.groups) assert.ok(st.rows.some((r) => r.startsWith(`${g} / GPU d`)), `${g} has GPU lanes: ${JSON.stringify(st.rows)}`);
    const at = await frame.evaluate(([n, k]) => window.__strata.locateRankSlice(n, k), [kernel, KERNEL]);
    assert.ok(at, `a ${kernel} slice is drawn`);
    const tip = await timelineTooltipAt(frame, '.strata-rank-timeline .strata-timeline-stage', { x: Math.round(at.x), y: Math.round(at.y) })
      .catch(async (e) => { await shot('t5-tooltip'); throw e; });
    assert.equal(tip.name, kernel);
    assert.match(tip.lane, /^rank [01]( · .+)? · GPU d\d+ s\d+$/, tip.lane);
    assert.ok(tip.loc.endsWith(`${path.basename(source.file)}:${source.line}`), `${tip.loc} vs ${source.file}:${source.line}`);
    await shot('t5-gpu-lanes');
  });
});
