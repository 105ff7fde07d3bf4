// End-to-end test of a distributed job's run in a real VS Code (code-server), on the real 4-rank
// gloo job of test/fixtures/ranks/gloo4 (torchrun, CPU only, rank 2 given extra work before its
// all_reduce by test/ranks/gloo_job.py):
//   (k1) "Open Run (all processes)" on the folder (explorer) opens one profile with a rank dimension (no process
//        frames): the tab says 4 ranks, the ranks panel has a bar per rank split into compute /
//        communication / startup / idle, rank 2 marked the straggler, and per rank its median step
//        (rank 2 issues the all_reduce last in every step);
//   (k2) a frame's tooltip shows its spread over the ranks: min / median / max and rank 2 as
//        the heaviest on the planted slow line;
//   (k3) the straggler finding (and exposed communication, when the rule finds it) is on its line
//        in the Problems view;
//   (k4) "Rank 1 alone" shows that rank's own profile, "All ranks" the merged one again;
//   (k5) gloo4_killed (rank 1 killed by SIGKILL mid-run): the ranks panel says which rank ended
//        how.
// Run: node --test test/e2e/ranks.test.mjs   (see harness.mjs for prerequisites and env)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import {
  S, cli, extId, findNode, layoutOf, loadAddon, makeFolders, missingPrerequisites, nodePosition, openRunFromExplorer, repo,
  runCommand, shot, skipReason, sleep, startSession, stopSession, strataFrame, strataTabs, waitFor,
} from './harness.mjs';

const FIXTURE = path.join(repo, 'test/fixtures/ranks/gloo4');

describe('Strata ranks: a distributed job as one profile with a rank dimension (code-server)', { timeout: 300_000 }, () => {
  const missing = missingPrerequisites();
  const skip = skipReason(missing);
  let run, frame, cols, lay, doc;

  before(async () => {
    if (skip) return;
    assert.deepEqual(missing, [], `prerequisites missing:\n  ${missing.join('\n  ')}`);
    makeFolders('ranks');
    symlinkSync(path.join(repo, 'extension'), path.join(S.ext, extId), 'dir');
    run = path.join(S.ws, 'gloo4');
    cpSync(FIXTURE, run, { recursive: true });
    cpSync(`${FIXTURE}_killed`, path.join(S.ws, 'gloo4_killed'), { recursive: true });
    // The job's source, found by name in the workspace when its recorded path is not here.
    mkdirSync(path.join(S.ws, 'ranks'), { recursive: true });
    cpSync(path.join(repo, 'test/ranks/gloo_job.py'), path.join(S.ws, 'ranks/gloo_job.py'));
    // What the viewer's first view is (top-down, the first metric), to find frames on screen.
    const p = await loadAddon().openRankRun(run);
    try {
      cols = await p.view('top-down', 0, {});
      lay = layoutOf(cols);
      doc = await p.analyze();
    } finally {
      p.close();
    }
    await startSession({ 'strata.cliPath': cli });
  });

  after(async () => { if (!skip) await stopSession(); });


  test('(k1) Open Run on the folder: one profile with ranks, the ranks panel, rank 2 the straggler', { skip }, async () => {
    await openRunFromExplorer('gloo4');
    frame = await strataFrame(60000, /Strata: .*(not|cannot|failed)/);
    const v = await waitFor('the merged view drawn', async () => {
      const x = await frame.evaluate(() => window.__strata?.view()).catch(() => null);
      return x && x.nodes > 1 ? x : null;
    }, 60000);
    assert.ok((await strataTabs()).some((t) => t.includes('gloo4 (4 ranks)')), `tab: ${await strataTabs()}`);
    assert.ok(!v.rootChildren.some((l) => /\(pid \d+\)$/.test(l)), `merged by calling context, no process frames: ${JSON.stringify(v.rootChildren)}`);
    assert.equal(v.viewNodes, cols.nodes ?? cols.parent.length);
    const ranks = await waitFor('the ranks panel with rank 2 marked the straggler', async () => {
      const r = await frame.evaluate(() => window.__strata.ranks());
      return r && r.rows.some((x) => x.straggler) ? r : null;
    }, 60000).catch(async (e) => { await shot('k1-ranks'); throw e; });
    assert.deepEqual(ranks.rows.map((r) => r.rank), [0, 1, 2, 3]);
    assert.deepEqual(ranks.rows.filter((r) => r.straggler).map((r) => r.rank), [2]);
    assert.equal(ranks.selected, null);
    for (const r of ranks.rows) {
      assert.ok(r.phases.includes('compute') && r.phases.includes('idle'), `rank ${r.rank}: ${r.phases}`);
      assert.equal(r.ended, '', 'every rank of gloo4 exited normally');
    }
    // The bars are drawn: rank 2's compute segment is the widest of the four.
    const widths = await frame.evaluate(() => [...document.querySelectorAll('.strata-ranks > .strata-ranks-rows > .strata-rank-row')].map((row) =>
      row.querySelector('.strata-phase-compute')?.getBoundingClientRect().width ?? 0));
    assert.equal(widths.indexOf(Math.max(...widths)), 2, `compute widths ${widths}`);
    // Per step (the ranks' recorded all_reduce): rank 2 issues it last in every step; the others
    // wait for it inside the collective.
    assert.deepEqual(ranks.steps.map((r) => r.rank), [0, 1, 2, 3], JSON.stringify(ranks.steps));
    const last = ranks.steps.find((r) => r.rank === 2).last;
    assert.match(last, /^last in (\d+)\/\1$/, last);
    for (const r of ranks.steps) assert.ok(r.phases.includes('compute'), `rank ${r.rank}: ${r.phases}`);
    await shot('k1-ranks-panel');
  });

  test('(k2) a frame\'s tooltip: its spread over the ranks, rank 2 the heaviest', { skip }, async () => {
    // The planted slow line: the `step` call of the module's loop (rank 2 alone runs slow_down).
    const node = findNode(cols, lay, 'slow_down', /gloo_job\.py$/) ?? findNode(cols, lay, 'step', /gloo_job\.py$/);
    assert.ok(node, 'slow_down or step in the merged view');
    let target = node;
    // A frame too narrow to hover: its widest caller on the path that is wide enough.
    for (let i = node.id; i > 0 && lay.x1[i] - lay.x0[i] < 0.01; i = cols.parent[i]) target = { ...node, id: cols.parent[i], x0: lay.x0[cols.parent[i]], x1: lay.x1[cols.parent[i]], depth: lay.depth[cols.parent[i]] };
    const pos = await nodePosition(frame, target);
    const rows = await waitFor('the tooltip with the ranks spread', async () => {
      await frame.locator('.strata-stage').hover({ position: { x: pos.x + 1, y: pos.y }, timeout: 5000 });
      await frame.locator('.strata-stage').hover({ position: pos, timeout: 5000 });
      return frame.evaluate(() => {
        const t = document.querySelector('.strata-tooltip');
        if (!t || t.hidden) return null;
        const rows = [...t.querySelectorAll('tr')].map((tr) => [tr.querySelector('th')?.textContent ?? '', tr.querySelector('td')?.textContent ?? '']);
        return rows.some(([k]) => k === 'Ranks') ? rows : null;
      });
    }, 30000, 500).catch(async (e) => { await shot('k2-tooltip'); throw e; });
    const spread = rows.find(([k]) => k === 'Ranks')[1];
    assert.match(spread, /^min .+ \(rank \d\) · median .+ · max .+ \(rank 2\)$/, spread);
    assert.match(rows.find(([k]) => k === 'Heaviest rank')?.[1] ?? '', /^rank 2/);
    await shot('k2-tooltip-spread');
  });

  test('(k3) the straggler finding on its line in the Problems view', { skip }, async () => {
    const straggler = doc.findings.find((f) => f.rule === 'straggler');
    assert.ok(straggler, `the rule fires on the fixture: ${JSON.stringify(doc.findings.map((f) => f.rule))}`);
    assert.equal(straggler.evidence.find((e) => e.name === 'rank')?.value, 2);
    await runCommand('View: Focus Problems (Errors, Warnings, Infos)');
    const rows = await waitFor('the straggler finding in Problems', async () => {
      const r = await S.page.locator('.markers-panel .monaco-list-row').allInnerTexts();
      return r.some((x) => x.includes('Rank 2 is a straggler')) ? r : null;
    }, 60000).catch(async (e) => { await shot('k3-problems'); throw e; });
    const row = rows.find((x) => x.includes('Rank 2 is a straggler'));
    assert.match(row, new RegExp(`\\[Ln ${straggler.location.line}, Col 1\\]`), row);
    const exposed = doc.findings.find((f) => f.rule === 'exposed-communication');
    if (exposed) {
      // The list is virtual: the Problems filter brings the finding into view.
      await S.page.locator('.markers-panel-action-filter input, .viewpane-filter input').first().fill('exposed-communication');
      const e = await waitFor('the exposed-communication finding in Problems', async () =>
        (await S.page.locator('.markers-panel .monaco-list-row').allInnerTexts()).find((x) => /exposed-communication/.test(x)), 30000)
        .catch(async (err) => { await shot('k3-exposed'); throw err; });
      assert.match(e, new RegExp(`\\[Ln ${exposed.location.line}, Col 1\\]`), e);
      await S.page.locator('.markers-panel-action-filter input, .viewpane-filter input').first().fill('');
    }
    await shot('k3-problems');
  });

  test('(k4) one rank alone, then every rank again', { skip }, async () => {
    await runCommand('View: Focus Active Editor Group');
    frame = await strataFrame(30000);
    await frame.locator('.strata-ranks-select').selectOption('1');
    await waitFor('rank 1 alone', async () => (await frame.evaluate(() => window.__strata.ranks()))?.selected === 1, 60000)
      .catch(async (e) => { await shot('k4-rank1'); throw e; });
    const alone = await frame.evaluate(() => window.__strata.view());
    assert.notEqual(alone.viewNodes, cols.nodes ?? cols.parent.length, 'another view than the merged one');
    await frame.locator('.strata-ranks-select').selectOption('all');
    await waitFor('every rank merged again', async () => {
      const r = await frame.evaluate(() => ({ ranks: window.__strata.ranks(), view: window.__strata.view() }));
      return r.ranks?.selected === null && r.view?.viewNodes === (cols.nodes ?? cols.parent.length);
    }, 60000).catch(async (e) => { await shot('k4-all'); throw e; });
    await shot('k4-all-again');
  });

  test('(k5) a killed rank: the ranks panel says which rank ended how', { skip }, async () => {
    await runCommand('View: Close All Editors');
    await openRunFromExplorer('gloo4_killed');
    await waitFor('the tab of gloo4_killed', async () => (await strataTabs()).some((t) => t.includes('gloo4_killed (4 ranks)')), 60000);
    frame = await strataFrame(60000);
    const ranks = await waitFor('the killed run\'s ranks panel', async () => {
      const r = await frame.evaluate(() => window.__strata?.ranks()).catch(() => null);
      return r && r.rows.length === 4 ? r : null;
    }, 60000).catch(async (e) => { await shot('k5-killed'); throw e; });
    const ended = Object.fromEntries(ranks.rows.map((r) => [r.rank, r.ended]));
    assert.match(ended[1], /^ended: .*SIGKILL/, JSON.stringify(ended));
    // The others end as the job made them (their gloo peers gone): each says how.
    for (const r of [0, 2, 3]) assert.ok(ended[r] === '' || /^ended: /.test(ended[r]), JSON.stringify(ended));
    assert.equal(await frame.locator('.strata-rank-row[data-rank="1"] .strata-rank-mark-ended').isVisible(), true);
    await shot('k5-killed-rank');
  });
});
