// Chromium test of a distributed job's run in the webview (protocol v10): 'ranks' shows the ranks
// panel (a bar per rank, the straggler highlighted, a killed rank marked), the rank selector posts
// 'selectRank', and a frame's tooltip carries its spread over the ranks from 'details'.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { HarnessPage, openHarness } from './harnessPage';
import { HOT, sampleData } from './fixtures';
import { PROTOCOL_VERSION, type RanksData } from '../src/protocol';

let harness: HarnessPage;
let page: Page;
const errors: string[] = [];
const post = (m: unknown) => page.evaluate((msg) => (window as any).postToWebview(msg), m as any);
const posted = (): Promise<any[]> => page.evaluate(() => (window as any).__posted.slice());

const ranks: RanksData = {
  metric: 'cpu_time', missing: [], stragglers: [2], selected: null,
  ranks: [0, 1, 2, 3].map((rank) => ({
    rank, host: 'vm', ended: rank === 1 ? 'no end written: killed without a chance to write (its last checkpoint)' : '',
    windowNs: 15e9, computeNs: rank === 2 ? 807e6 : rank === 1 ? 0 : 220e6, communicationNs: 7e6, startupNs: 900e6,
    idleNs: 15e9 - 907e6 - (rank === 2 ? 807e6 : rank === 1 ? 0 : 220e6), overlapShare: null,
  })),
};

before(async () => { harness = await openHarness(900, 500, errors); page = harness.page; });
after(async () => { await harness?.close(); });

test('ranks panel: hidden for a profile without ranks; a bar per rank, straggler and killed rank marked', async () => {
  await post({ type: 'profile', version: PROTOCOL_VERSION, title: 't', metrics: ['cpu_time'], data: sampleData() });
  await page.waitForFunction(() => ((window as any).__strata.stats().nodes ?? 0) > 0);
  assert.equal(await page.evaluate(() => (window as any).__strata.ranks()), null);
  assert.equal(await page.locator('.strata-ranks').isHidden(), true);
  await post({ type: 'ranks', data: ranks });
  const st = await page.evaluate(() => (window as any).__strata.ranks());
  assert.deepEqual(st.rows.map((r: any) => [r.rank, r.straggler]), [[0, false], [1, false], [2, true], [3, false]]);
  assert.match(st.rows[1].ended, /^ended: no end written: killed/);
  assert.deepEqual(st.rows[1].phases, ['communication', 'startup', 'idle'], 'rank 1 never computed');
  assert.equal(await page.locator('.strata-ranks').isVisible(), true);
  // Drawn: rank 2's compute segment is the widest, the straggler's label is marked.
  const widths = await page.$$eval('.strata-ranks > .strata-ranks-rows > .strata-rank-row', (rows) => rows.map((r) => r.querySelector('.strata-phase-compute')?.getBoundingClientRect().width ?? 0));
  assert.equal(widths.indexOf(Math.max(...widths)), 2, String(widths));
  assert.equal(await page.locator('.strata-rank-row[data-rank="2"] .strata-rank-mark-straggler').textContent(), 'straggler');
  assert.deepEqual(st.steps, [], 'no steps recorded: no step rows');
  await post({ type: 'ranks', data: { ...ranks, steps: { collective: 'all_reduce', file: '/w/gloo_job.py', line: 57, count: 19 },
    ranks: ranks.ranks.map((r) => ({ ...r, step: { computeNs: r.rank === 2 ? 50e6 : 24e6, communicationNs: r.rank === 2 ? 10e6 : 41e6, issuedLast: r.rank === 2 ? 19 : 0 } })) } });
  const withSteps = await page.evaluate(() => (window as any).__strata.ranks());
  assert.deepEqual(withSteps.steps.map((r: any) => [r.rank, r.last, r.phases.join('+')]),
    [[0, '', 'compute+communication'], [1, '', 'compute+communication'], [2, 'last in 19/19', 'compute+communication'], [3, '', 'compute+communication']]);
  assert.match(await page.locator('.strata-ranks-steps-head').textContent() ?? '', /^Median step of 19 steps, each ended by all_reduce at gloo_job\.py:57$/);
  // A new view of the same run keeps the panel.
  await post({ type: 'profile', version: PROTOCOL_VERSION, title: 't', metrics: ['cpu_time'], data: sampleData() });
  assert.equal(await page.locator('.strata-ranks').isVisible(), true);
});

test('rank selector: one rank alone, every rank again', async () => {
  await page.locator('.strata-ranks-select').selectOption('3');
  await page.waitForFunction(() => (window as any).__posted.some((m: any) => m.type === 'selectRank'));
  assert.deepEqual((await posted()).filter((m) => m.type === 'selectRank').at(-1), { type: 'selectRank', rank: 3 });
  await post({ type: 'ranks', data: { ...ranks, selected: 3 } });
  assert.equal((await page.evaluate(() => (window as any).__strata.ranks())).selected, 3);
  assert.equal(await page.locator('.strata-ranks-select').inputValue(), '3');
  await page.locator('.strata-ranks-select').selectOption('all');
  await page.waitForFunction(() => (window as any).__posted.filter((m: any) => m.type === 'selectRank').length === 2);
  assert.deepEqual((await posted()).filter((m) => m.type === 'selectRank').at(-1), { type: 'selectRank', rank: null });
});

test('tooltip: a frame\'s spread over the ranks from its details', async () => {
  await post({ type: 'details', node: HOT, view: 'top-down', metrics: [{ name: 'cpu_time', unit: 'ns', nature: 'additive', inclusive: 750e6, exclusive: 750e6, count: 4, min: 1, max: 1, mean: 1, std: 0 }],
    spread: { ranks: [0, 1, 2, 3], values: [100e6, 100e6, 450e6, 100e6], min: 100e6, median: 100e6, max: 450e6, minRank: 0, maxRank: 2 } });
  const box = (await page.locator('.strata-stage').boundingBox())!;
  const rowH = await page.evaluate(() => (window as any).__strata.stats().rowHeight ?? 18);
  await page.mouse.move(box.x + box.width * 0.375, box.y + 2 * rowH + rowH / 2);
  const tip = page.locator('.strata-tooltip');
  await page.waitForFunction(() => /Ranks/.test(document.querySelector('.strata-tooltip')?.textContent ?? ''));
  const text = await tip.innerText();
  assert.match(text, /min 100 ms \(rank 0\) · median 100 ms · max 450 ms \(rank 2\)/);
  assert.match(text, /rank 2: 4\.5× the median/);
  // The details pane lists the value per rank, the heaviest marked.
  await page.keyboard.press('i');
  await page.waitForFunction(() => document.querySelectorAll('.strata-details-ranks tr').length === 4);
  const perRank = await page.$$eval('.strata-details-ranks tr', (rows) => rows.map((r) => r.textContent));
  assert.deepEqual(perRank, ['rank 0100 ms', 'rank 1100 ms', 'rank 2450 msheaviest', 'rank 3100 ms']);
  assert.deepEqual(errors, []);
});
