// Chromium tests of rank timeline mode (protocol v11): the real bundle in the harness page. A
// distributed job's ranks on one timeline is posted (plain arrays, as the host sends them); the
// rank groups and lanes are laid out, a collective's tooltip names its op and issuing line, a
// click posts 'openRankSlice', an incomplete timeline says why in a banner; the ranks panel's
// Timeline button posts 'showRankTimeline'.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { HarnessPage, openHarness } from './harnessPage';
import { WEBVIEW_DIR } from './server';
import { sampleData } from './fixtures';
import { PROTOCOL_VERSION, type RankTimelineData, type RanksData } from '../src/protocol';

let harness: HarnessPage;
let page: Page;
const errors: string[] = [];
const post = (m: unknown) => page.evaluate((msg) => (window as any).postToWebview(msg), m as any);
const posted = (): Promise<any[]> => page.evaluate(() => (window as any).__posted.slice());

/** Four ranks on one host: per rank 3 steps of 100 ms and an all_reduce at each step's end (rank
 *  2 issues it late: the others wait); rank 0 has a GPU stream with one kernel. */
function fourRanks(): RankTimelineData {
  const d: RankTimelineData = {
    originUnixNs: 1.7e18, spanNs: 300e6, hosts: [0, 1, 2, 3].map((rank) => ({ rank, host: 'vm' })),
    lanes: [], names: ['step 0', 'step 1', 'step 2', 'all_reduce', 'volta_sgemm'],
    sources: [{ file: '/w/test/rankview/gloo_steps.py', line: 57 }],
    lane: [], start: [], end: [], kind: [], name: [], source: [], bytes: [],
    truncated: 0, gpuDropped: 0, ranksWithoutClock: [],
  };
  const add = (lane: number, s: number, e: number, kind: number, name: number, source = -1, bytes = 0) => {
    d.lane.push(lane); d.start.push(s); d.end.push(e); d.kind.push(kind); d.name.push(name); d.source.push(source); d.bytes.push(bytes);
  };
  for (let rank = 0; rank < 4; rank++) {
    const steps = d.lanes.length;
    d.lanes.push({ rank, kind: 'steps', device: 0, stream: 0 }, { rank, kind: 'collectives', device: 0, stream: 0 });
    if (rank === 0) d.lanes.push({ rank, kind: 'gpu', device: 0, stream: 7 });
    for (let k = 0; k < 3; k++) add(steps, k * 100e6, (k + 1) * 100e6, 0, k);
    for (let k = 0; k < 3; k++) add(steps + 1, k * 100e6 + (rank === 2 ? 90e6 : 40e6), k * 100e6 + 98e6, 1, 3, 0, 4 << 20);
    if (rank === 0) add(steps + 2, 10e6, 30e6, 2, 4);
  }
  return d;
}

before(async () => { harness = await openHarness(900, 600, errors); page = harness.page; });
after(async () => { await harness?.close(); });

test('the ranks panel\'s Timeline button asks the host for the rank timeline', async () => {
  await post({ type: 'profile', version: PROTOCOL_VERSION, title: 't', metrics: ['cpu_time'], data: sampleData() });
  await page.waitForFunction(() => ((window as any).__strata.stats().nodes ?? 0) > 0);
  const ranks: RanksData = { metric: 'wall_time', missing: [], stragglers: [2], selected: null,
    ranks: [0, 1].map((rank) => ({ rank, host: 'vm', ended: '', windowNs: 1e9, computeNs: 5e8, communicationNs: 1e8, startupNs: 1e8, idleNs: 3e8, overlapShare: null })) };
  await post({ type: 'ranks', data: ranks });
  await page.locator('button.strata-ranks-timeline').click();
  assert.deepEqual((await posted()).at(-1), { type: 'showRankTimeline' });
});

test('rank groups with their lanes; the flame graph\'s parts hidden', async () => {
  await post({ type: 'rankTimeline', version: PROTOCOL_VERSION, title: 'slow_rank2: ranks timeline', data: fourRanks() });
  await page.waitForFunction(() => ((window as any).__strata.rankTimeline()?.stats.drawn ?? 0) > 0);
  const st = await page.evaluate(() => (window as any).__strata.rankTimeline());
  assert.deepEqual(st.groups, ['rank 0 · vm', 'rank 1 · vm', 'rank 2 · vm', 'rank 3 · vm']);
  assert.deepEqual(st.rows.slice(0, 4), ['rank 0 · vm / steps', 'rank 0 · vm / collectives', 'rank 0 · vm / GPU d0 s7', 'rank 1 · vm / steps']);
  assert.equal(st.slices, 25);
  assert.equal(st.collectives, 12);
  assert.equal(await page.locator('.strata-rank-timeline-toolbar .strata-timeline-summary').textContent(), '4 ranks · 9 lanes · 25 slices');
  assert.equal(await page.locator('.strata-ranks').isHidden(), true, 'the ranks panel hides');
  assert.equal(await page.evaluate(() => (window as any).__strata.message()), '', 'a whole timeline: no banner');
  mkdirSync(join(WEBVIEW_DIR, 'test/output'), { recursive: true });
  writeFileSync(join(WEBVIEW_DIR, 'test/output/rank-timeline.png'), await page.screenshot());
});

test('hover a collective: its op, rank, lane, bytes and issuing line; a click posts openRankSlice', async () => {
  const at = await page.evaluate(() => (window as any).__strata.locateRankSlice('all_reduce', 1));
  assert.ok(at, 'an all_reduce drawn');
  await page.locator('.strata-rank-timeline .strata-timeline-stage').hover({ position: { x: at.x, y: at.y } });
  const tip = await page.evaluate(() => document.querySelector('.strata-tooltip')?.textContent ?? '');
  assert.match(tip, /all_reduce/);
  assert.match(tip, /gloo_steps\.py:57/);
  assert.match(tip, /Rankrank 0 · vm/);
  assert.match(tip, /Lanecollectives/);
  assert.match(tip, /Duration58(\.0)? ms/);
  assert.match(tip, /Bytes4\.00 MiB/);
  assert.match(tip, /collective call/);
  await page.locator('.strata-rank-timeline .strata-timeline-stage').click({ position: { x: at.x, y: at.y } });
  assert.deepEqual((await posted()).at(-1), { type: 'openRankSlice', slice: at.index });
  // A step has no source: a click posts nothing.
  const n = (await posted()).length;
  const step = await page.evaluate(() => (window as any).__strata.locateRankSlice('step 1', 0));
  await page.locator('.strata-rank-timeline .strata-timeline-stage').click({ position: { x: step.x, y: step.y } });
  assert.equal((await posted()).length, n);
});

test('an incomplete timeline says why; bad data is one line; a profile brings the flame graph back', async () => {
  await post({ type: 'rankTimeline', version: PROTOCOL_VERSION, title: 't', data: { ...fourRanks(), truncated: 40, ranksWithoutClock: [3] } });
  // postToWebview is window.postMessage: the webview takes the message in a later task (a CI run
  // read the banner before it had).
  await page.waitForFunction(() => /slices are left out/.test((window as any).__strata.message()));
  const msg = await page.evaluate(() => (window as any).__strata.message());
  assert.match(msg, /^40 slices are left out/);
  assert.match(msg, /Rank 3 recorded no start clock/);
  await post({ type: 'rankTimeline', version: PROTOCOL_VERSION, title: 't', data: { lanes: 3 } });
  await page.waitForFunction(() => /not a rank timeline/.test((window as any).__strata.message()));
  await post({ type: 'profile', version: PROTOCOL_VERSION, title: 't', metrics: ['cpu_time'], data: sampleData() });
  await page.waitForFunction(() => !(document.querySelector('.strata-rank-timeline') as HTMLElement).hidden === false);
  assert.equal(await page.locator('.strata-rank-timeline').isHidden(), true);
  assert.deepEqual(errors, []);
});
