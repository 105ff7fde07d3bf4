// Chromium tests of timeline mode (protocol v3): the real bundle in the harness page (fake
// acquireVsCodeApi, VS Code-like CSP, WebGL through SwiftShader). A small region trace is posted;
// pixels of a real screenshot show the intervals where the layout puts them; hover, click,
// export and switching back to a profile are checked through what the webview posts and shows.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, Browser, Page } from 'playwright-core';
import { startServer, WEBVIEW_DIR } from './server';
import { decodePng, pixel } from './png';
import type { RegionTraceData } from '../src/protocol';

const CHROMIUM = process.env.STRATA_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'];
const BG = [0x1e, 0x1e, 0x1e];
// Must match src/view/timelineView.ts.
const GUTTER = 190, AXIS = 22, LEVEL = 16;

let browser: Browser;
let server: { url: string; close(): Promise<void> };
let page: Page;

const trace: RegionTraceData = {
  lanes: [
    { block: 0, group: 0, smid: 3, grouping: 'warp-group', start_ns: 0, end_ns: 1000 },
    { block: 1, group: 0, smid: 1, grouping: 'warp-group', start_ns: 0, end_ns: 1000 },
  ],
  intervals: [
    { lane: 0, region: 1, name: 'kernel', depth: 0, start_ns: 0, end_ns: 1000, raw_start_ns: 0, raw_end_ns: 1000 },
    { lane: 0, region: 2, name: 'mma', depth: 1, start_ns: 500, end_ns: 750, raw_start_ns: 490, raw_end_ns: 760, iteration: 3 },
    { lane: 1, region: 3, name: 'load', depth: 0, start_ns: 0, end_ns: 250, raw_start_ns: 0, raw_end_ns: 260, wait_ns: 100 },
  ],
  issues: [{ kind: 'overflow', count: 3, message: 'lane 0 overwrote 3 records' }],
};

async function settle(): Promise<void> {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null)))));
}

before(async () => {
  server = await startServer();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const ctx = await browser.newContext({ viewport: { width: 800, height: 400 }, deviceScaleFactor: 1 });
  page = await ctx.newPage();
  await page.goto(`${server.url}/test/harness.html`);
  await page.waitForFunction(() => (window as any).__posted?.length > 0);
  await page.evaluate((d) => (window as any).postToWebview({ type: 'timeline', version: 3, title: 'k.bin', data: d, sources: { 2: 'k.cu:42' }, canExport: true }), trace as any);
  await page.waitForFunction(() => ((window as any).__strata.timeline()?.drawn ?? 0) > 0);
  await settle();
});

after(async () => { await browser?.close(); await server?.close(); });

test('rows in SM order, intervals drawn where the layout puts them, issues in a banner', async () => {
  const s = await page.evaluate(() => (window as any).__strata.timeline());
  assert.equal(s.rows, 2);
  assert.equal(s.intervals, 3);
  assert.equal(s.drawn, 3);
  const png = await page.screenshot();
  mkdirSync(join(WEBVIEW_DIR, 'test/output'), { recursive: true });
  writeFileSync(join(WEBVIEW_DIR, 'test/output/timeline.png'), png);
  const img = decodePng(png);
  const box = (await page.locator('.strata-timeline-stage').boundingBox())!;
  const plotW = box.width - GUTTER;
  const x = (t: number) => box.x + GUTTER + (t / 1000) * plotW;
  const rowY = (row: number, level: number) => box.y + AXIS + row * (LEVEL + 9) + level * LEVEL + LEVEL / 2;
  const far = (p: number[]) => Math.max(...p.map((v, i) => Math.abs(v - BG[i]))) > 20;
  // Row 0 is the SM 1 lane: "load" over the first quarter only.
  assert.ok(far(pixel(img, Math.round(x(120)), Math.round(rowY(0, 0)))), 'load drawn');
  assert.ok(!far(pixel(img, Math.round(x(600)), Math.round(rowY(0, 0)))), 'nothing after load');
  // Row 1 (SM 3): kernel across, mma on level 1 between 500 and 750 only.
  assert.ok(far(pixel(img, Math.round(x(100)), Math.round(rowY(1, 0)))), 'kernel drawn');
  assert.ok(far(pixel(img, Math.round(x(620)), Math.round(rowY(1, 1)))), 'mma drawn');
  assert.ok(!far(pixel(img, Math.round(x(300)), Math.round(rowY(1, 1)))), 'level 1 empty before mma');
  assert.match(await page.evaluate(() => (window as any).__strata.message()), /overflow: lane 0 overwrote 3 records/);
  const labels = await page.evaluate(() => document.querySelector('.strata-timeline-summary')?.textContent);
  assert.equal(labels, '2 lanes · 3 intervals · 1 issue');
});

test('hover: tooltip with name, source, durations; click posts openRegionSource; export posts', async () => {
  const at = await page.evaluate(() => (window as any).__strata.locate('mma #3'));
  assert.ok(at);
  await page.locator('.strata-timeline-stage').hover({ position: { x: at.x, y: at.y } });
  const tip = await page.evaluate(() => document.querySelector('.strata-tooltip')?.textContent ?? '');
  assert.match(tip, /mma #3/);
  assert.match(tip, /k\.cu:42/);
  assert.match(tip, /Duration250 ns \(replayed\)/);
  assert.match(tip, /Raw270 ns/);
  assert.match(tip, /Iteration3/);
  assert.match(tip, /SM 3 · block 0 · wg 0/);
  await page.locator('.strata-timeline-stage').click({ position: { x: at.x, y: at.y } });
  await page.locator('button.strata-export').click();
  const posted = await page.evaluate(() => (window as any).__posted.slice(-2));
  assert.deepEqual(posted, [{ type: 'openRegionSource', region: 2, lane: 0 }, { type: 'exportChromeTrace' }]);
});

test('wheel zooms at the pointer, drag pans without clicking, Esc resets', async () => {
  const box = (await page.locator('.strata-timeline-stage').boundingBox())!;
  await page.mouse.move(box.x + GUTTER + (box.width - GUTTER) / 2, box.y + 60);
  await page.mouse.wheel(0, -500);
  await settle();
  let s = await page.evaluate(() => (window as any).__strata.timeline());
  assert.ok(s.v1 - s.v0 < 1000 && s.v0 > 0 && s.v1 < 1000, `zoomed around the middle: ${s.v0}..${s.v1}`);
  const before = s.v0;
  const n = (await page.evaluate(() => (window as any).__posted.length)) as number;
  await page.mouse.down();
  await page.mouse.move(box.x + GUTTER + (box.width - GUTTER) / 2 + 100, box.y + 60, { steps: 5 });
  await page.mouse.up();
  await settle();
  s = await page.evaluate(() => (window as any).__strata.timeline());
  assert.ok(s.v0 < before, 'dragging right shows earlier times');
  assert.equal(await page.evaluate(() => (window as any).__posted.length), n, 'a drag is not a click');
  await page.keyboard.press('Escape');
  await settle();
  s = await page.evaluate(() => (window as any).__strata.timeline());
  assert.deepEqual([s.v0, s.v1], [0, 1000]);
});

test('a bad trace is a banner; a profile switches back to the flame graph', async () => {
  await page.evaluate(() => (window as any).postToWebview({ type: 'timeline', version: 3, title: 'x', data: { traceEvents: [] } }));
  await page.waitForFunction(() => /not a decoded region trace/.test((window as any).__strata.message()));
  await page.evaluate(() => (window as any).postToWebview({ type: 'profile', version: 2, title: 'p', metrics: ['cpu_time'], data: {
    view: 'top-down', metric: 'cpu_time', unit: 'ns', total: 10, strings: ['', 'all'],
    frames: { kind: [0], name: [1], file: [0], line: [0], module: [0] }, parent: [-1], frame: [0], inclusive: [10], exclusive: [10],
  } }));
  await page.waitForFunction(() => ((window as any).__strata.stats().nodes ?? 0) === 1);
  const shown = await page.evaluate(() => ({
    flame: !(document.querySelector('.strata-graph:not(.strata-timeline)') as HTMLElement).hidden,
    timeline: !(document.querySelector('.strata-timeline') as HTMLElement).hidden,
  }));
  assert.deepEqual(shown, { flame: true, timeline: false });
});

test('overlap analysis: the critical path at the lane top, bubbles at the bottom, a toggle and the verdict', async () => {
  const withOverlap: RegionTraceData = {
    ...trace,
    issues: [],
    overlap: {
      path: [{ lane: 0, start_ns: 500, end_ns: 750 }, { lane: 1, start_ns: 200, end_ns: 250, sync: true }],
      bubbles: [{ lane: 1, start_ns: 250, end_ns: 1000, idle: true }],
      model: { kind: 'warp-specialization', stages: 2, bottleneck: 'consumer', measured_ns: 1000, predicted_ns: 960 },
      path_regions: [{ region: 2, name: 'mma', activity: 'compute', share: 0.25 }, { region: -1, name: '(no region)', activity: 'idle', share: 0.7 }],
      findings: [],
    },
  };
  await page.evaluate((d) => (window as any).postToWebview({ type: 'timeline', version: 3, title: 'ws.bin', data: d }), withOverlap as any);
  await page.waitForFunction(() => ((window as any).__strata.timeline()?.drawn ?? 0) > 0);
  await settle();
  const marks = () => page.evaluate(() => Number((document.querySelector('.strata-timeline-stage') as HTMLElement | null)?.closest('[data-marks]')?.getAttribute('data-marks') ?? document.querySelector('[data-marks]')?.getAttribute('data-marks') ?? -1));
  assert.equal(await marks(), 3);
  assert.equal(await page.evaluate(() => document.querySelector('.strata-overlap-summary')?.textContent),
    'critical path: mma 25% · warp-specialization, 2 stages: consumer-bound');
  const img = decodePng(await page.screenshot());
  const box = (await page.locator('.strata-timeline-stage').boundingBox())!;
  const x = (t: number) => box.x + GUTTER + (t / 1000) * (box.width - GUTTER);
  // Row 1 is lane 0 (SM 3): the path's bar over mma, at the row's top.
  const top1 = box.y + AXIS + (LEVEL + 9) + 1;
  const red = (p: number[]) => p[0] > 200 && p[1] < 120 && p[2] < 100;
  assert.ok(red(pixel(img, Math.round(x(620)), Math.round(top1))), `path bar drawn: ${pixel(img, Math.round(x(620)), Math.round(top1))}`);
  assert.ok(!red(pixel(img, Math.round(x(300)), Math.round(top1))), 'no path bar before mma');
  // The toggle hides them.
  await page.locator('.strata-critical-path').click();
  await settle();
  assert.equal(await marks(), 0);
  await page.locator('.strata-critical-path').click();
  await settle();
  assert.equal(await marks(), 3);
});
