// A fused kernel's source lines (protocol v8): the frame table's fused columns read and checked
// by the model, and in Chromium the details pane listing them, each opening its source.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, Browser, BrowserContext, Page } from 'playwright-core';
import { startServer } from './server';
import { normalizeFlameData } from '../src/model/normalize';
import { fusedLinesOf } from '../src/model/fusedLines';

const CHROMIUM = process.env.STRATA_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--use-angle=swiftshader', '--enable-unsafe-swiftshader'];

/** root → forward m.py:20 → fused (2 lines) [m.py:20 forward, n.py:7 gelu] → kernel. */
function fusedData(): Record<string, unknown> {
  return {
    view: 'top-down', metric: 'gpu_time', unit: 'ns', total: 1000,
    strings: ['', '<root>', 'forward', '/ws/m.py', 'fused (2 lines)', 'triton_poi_fused_0', '/ws/n.py', 'gelu'],
    frames: {
      kind: [0, 1, 3, 5], name: [1, 2, 4, 5], file: [0, 3, 0, 0], line: [0, 20, 0, 0], module: [0, 0, 0, 0],
      origin: [0, 1, 0, 4], flags: [0, 0, 0, 0],
      fusedOffset: [0, 0, 0, 2, 2], fusedFile: [3, 6], fusedFunction: [2, 7], fusedLine: [20, 7],
    },
    parent: [-1, 0, 1, 2], frame: [0, 1, 2, 3], inclusive: [1000, 1000, 1000, 1000], exclusive: [0, 0, 0, 1000],
    frameFilter: 'python', byFunction: false,
  };
}

test('model: fused columns become typed lines per frame; bad ones are refused', () => {
  const d = normalizeFlameData(fusedData());
  assert.deepEqual(fusedLinesOf(d.frames, d.strings, 2), [
    { file: '/ws/m.py', function: 'forward', line: 20 }, { file: '/ws/n.py', function: 'gelu', line: 7 }]);
  assert.deepEqual(fusedLinesOf(d.frames, d.strings, 1), []);
  // A view without fused frames has no columns at all.
  const plain = fusedData();
  const f = plain.frames as Record<string, unknown>;
  for (const k of ['fusedOffset', 'fusedFile', 'fusedFunction', 'fusedLine']) delete f[k];
  const p = normalizeFlameData(plain);
  assert.equal(p.frames.fusedOffset, undefined);
  assert.deepEqual(fusedLinesOf(p.frames, p.strings, 2), []);
  const broken = (edit: (fr: Record<string, unknown>) => void) => {
    const b = fusedData();
    edit(b.frames as Record<string, unknown>);
    return () => normalizeFlameData(b);
  };
  assert.throws(broken((fr) => { fr.fusedOffset = [0, 0, 2]; }), /"frames.fusedOffset" has 3 entries, expected 5/);
  assert.throws(broken((fr) => { fr.fusedOffset = [0, 0, 2, 1, 2]; }), /descends/);
  assert.throws(broken((fr) => { fr.fusedFile = [3, 99]; }), /string out of range/);
  assert.throws(broken((fr) => { delete fr.fusedLine; }), /incomplete/);
});

let browser: Browser;
let server: { url: string; close(): Promise<void> };
before(async () => {
  server = await startServer();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});
after(async () => { await browser?.close(); await server?.close(); });

describe('details pane of a fused kernel (Chromium)', () => {
  let page: Page;
  let ctx: BrowserContext;
  const errors: string[] = [];
  before(async () => {
    ctx = await browser.newContext({ viewport: { width: 900, height: 600 } });
    page = await ctx.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}/test/harness.html`);
    await page.waitForFunction(() => (window as any).__posted?.length > 0);
    await page.evaluate((m) => (window as any).postToWebview(m), {
      type: 'profile', version: 8, title: 'compiled', metrics: ['gpu_time'], data: fusedData(),
      metricInfo: [{ name: 'gpu_time', unit: 'ns', nature: 'additive', count: 1 }] } as any);
  });
  after(async () => { assert.deepEqual(errors, []); await ctx.close(); });

  test('lists every fused line; a click asks the host to open that line', async () => {
    const stage = (await page.locator('.strata-graph:not([hidden]) .strata-stage').first().boundingBox())!;
    await page.mouse.click(stage.x + stage.width / 2, stage.y + 2 * 18 + 9);   // row 2 (root 0, forward 1): the fused frame
    const list = page.locator('.strata-details-fused .strata-link');
    await list.first().waitFor({ state: 'visible', timeout: 10000 });
    assert.equal(await page.locator('.strata-details-name').innerText(), 'fused (2 lines)');
    assert.deepEqual(await list.allInnerTexts(), ['/ws/m.py:20 forward', '/ws/n.py:7 gelu']);
    assert.match(await page.locator('.strata-details').innerText(), /Source lines this fused kernel computes \(2\)/);
    await page.evaluate(() => { (window as any).__posted.length = 0; });
    await list.nth(1).click();
    const posted = await page.evaluate(() => (window as any).__posted.slice());
    assert.deepEqual(posted.filter((m: any) => m.type === 'openSource'), [{ type: 'openSource', node: 2, view: 'top-down', fusedLine: 1 }]);
  });

  test('the editor\'s cursor on a fused line outlines the fused frame', async () => {
    const highlighted = () => page.evaluate(() => (window as any).__strata.highlighted());
    await page.evaluate((m) => (window as any).postToWebview(m), { type: 'highlightSource', file: '/ws/n.py', line: 7 } as any);
    await page.waitForFunction(() => (window as any).__strata.highlighted().length > 0);
    assert.deepEqual(await highlighted(), [2]);
    // m.py:20: the forward frame's own line and the fused one's.
    await page.evaluate((m) => (window as any).postToWebview(m), { type: 'highlightSource', file: '/ws/m.py', line: 20 } as any);
    await page.waitForFunction(() => (window as any).__strata.highlighted().length === 2);
    assert.deepEqual(await highlighted(), [1, 2]);
  });
});
