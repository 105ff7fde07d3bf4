// Chromium test of the 'status' line (the host's progress while a view builds, and why a view is
// partial): the real bundle in the harness page. It shows as an info line, a new profile clears
// it, "" clears it, and a message with markup stays text.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, Browser, Page } from 'playwright-core';
import { startServer } from './server';
import { sampleData } from './fixtures';
import { PROTOCOL_VERSION } from '../src/protocol';

const CHROMIUM = process.env.STRATA_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'];

let browser: Browser;
let server: { url: string; close(): Promise<void> };
let page: Page;

const post = (m: unknown) => page.evaluate((msg) => (window as any).postToWebview(msg), m as any);
const banner = () => page.evaluate(() => {
  const el = document.querySelector('.strata-message') as HTMLElement | null;
  return el && !el.hidden ? { text: el.textContent ?? '', level: el.dataset.level ?? '', html: el.innerHTML } : null;
});

before(async () => {
  server = await startServer();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  page = await (await browser.newContext({ viewport: { width: 800, height: 400 } })).newPage();
  await page.goto(`${server.url}/test/harness.html`);
  await page.waitForFunction(() => (window as any).__posted?.length > 0);
});

after(async () => { await browser?.close(); await server?.close(); });

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
