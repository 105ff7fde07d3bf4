// Chromium test of the host's lines: 'status' (why a view is partial; any line the host has for
// the user) shows as an info line, a new profile clears it, "" clears it, and a message with
// markup stays text; 'progress' (the host opening a profile, building a view or a sandwich) shows
// while a call is under way, the latest call's label and time, and goes with the last one.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { HarnessPage, openHarness } from './harnessPage';
import { sampleData } from './fixtures';
import { PROTOCOL_VERSION } from '../src/protocol';

let harness: HarnessPage;
let page: Page;
const errors: string[] = [];

const post = (m: unknown) => page.evaluate((msg) => (window as any).postToWebview(msg), m as any);
const banner = () => page.evaluate(() => {
  const el = document.querySelector('.strata-message') as HTMLElement | null;
  return el && !el.hidden ? { text: el.textContent ?? '', level: el.dataset.level ?? '', html: el.innerHTML } : null;
});

before(async () => { harness = await openHarness(800, 400, errors); page = harness.page; });
after(async () => { await harness?.close(); });

test('status: an info line while a view builds; the view clears it; a partial view\'s reason stays; "" clears', async () => {
  await post({ type: 'status', message: 'Building the bottom-up view… 1.5 s' });
  assert.deepEqual(await banner().then((b) => b && { text: b.text, level: b.level }), { text: 'Building the bottom-up view… 1.5 s', level: 'info' });
  await post({ type: 'profile', version: PROTOCOL_VERSION, title: 't', metrics: ['cpu_time'], data: sampleData('bottom-up') });
  await page.waitForFunction(() => ((window as any).__strata.stats().nodes ?? 0) > 0);
  assert.equal(await banner(), null, 'the view replaces the progress line');
  const why = 'bottom-up view of a large profile: frames under 0.01% of the time are shown without their callers <b>x</b>';
  await post({ type: 'status', message: why });
  const b = await banner();
  assert.equal(b?.text, why);
  assert.ok(!b?.html.includes('<b>'), 'markup stays text');
  await post({ type: 'status', message: '' });
  assert.equal(await banner(), null);
});

test('progress: shown while a call is under way, the latest label, hidden after the last', async () => {
  const line = () => page.evaluate(() => { const e = document.querySelector('.strata-progress') as HTMLElement; return e.hidden ? null : e.textContent; });
  assert.equal(await line(), null);
  await post({ type: 'progress', progress: { id: 1, active: true, label: 'Opening big.strata', elapsedMs: 0 } });
  assert.match((await line()) ?? '', /^Opening big\.strata… 0\.0 s/);
  await post({ type: 'progress', progress: { id: 2, active: true, label: 'Building the sandwich', elapsedMs: 250 } });
  await post({ type: 'progress', progress: { id: 1, active: false, label: 'Opening big.strata', elapsedMs: 1500 } });
  assert.match((await line()) ?? '', /^Building the sandwich… 0\.3 s/);
  await post({ type: 'progress', progress: { id: 2, active: false, label: 'Building the sandwich', elapsedMs: 900 } });
  assert.equal(await line(), null);
  const p = await page.evaluate(() => (window as any).__strata.progress());
  assert.equal(p.visible, false);
  assert.equal(p.shown, 1);
  assert.deepEqual(errors, []);
});
