// Chromium tests: the real bundle (dist/webview.js + media/strata.css) in a harness page with a
// fake acquireVsCodeApi and a VS Code-like CSP, WebGL through SwiftShader. Pixels are read from
// real screenshots, so wrong drawing or wrong attribution fails the tests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, Browser, BrowserContext, Page } from 'playwright-core';
import { startServer, WEBVIEW_DIR } from './server';
import { decodePng, Image, pixel } from './png';
import { COLD, HOT, MAIN, ROOT, sampleData } from './fixtures';
import { PROTOCOL_VERSION } from '../src/protocol';
import { withoutWidth } from './posted';

const OUT = join(WEBVIEW_DIR, 'test', 'output');
const CHROMIUM = process.env.STRATA_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
];
const BG: [number, number, number] = [0x1e, 0x1e, 0x1e];
const OUTLINE: [number, number, number] = [0xcc, 0xcc, 0xcc]; // --vscode-editor-foreground
const W = 800, H = 420;

let browser: Browser;
let server: { url: string; close(): Promise<void> };

type Posted = { type: string; [k: string]: unknown };

interface Harness {
  page: Page;
  ctx: BrowserContext;
  errors: string[];
  posted(): Promise<Posted[]>;
  post(msg: unknown): Promise<void>;
  settle(): Promise<void>;
  box(): Promise<{ x: number; y: number; width: number; height: number }>;
  shot(name: string): Promise<Image>;
  rowY(row: number, box: { y: number }): number;
  rowHeight: number;
}

async function open(query = '', scale = 1): Promise<Harness> {
  const ctx = await browser.newContext({ viewport: { width: W, height: H }, deviceScaleFactor: scale });
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  await page.goto(`${server.url}/test/harness.html${query}`);
  await page.waitForFunction(() => (window as any).__posted?.length > 0);
  const settle = async () => {
    const before = await page.evaluate(() => (window as any).__strata?.stats().frames ?? 0);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null)))));
    await page.waitForFunction((n) => ((window as any).__strata?.stats().frames ?? 0) >= n, before);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null)))));
  };
  const rowHeight = await page.evaluate(() => (window as any).__strata?.stats().rowHeight ?? 18);
  const h: Harness = {
    page, ctx, errors, rowHeight, settle,
    posted: () => page.evaluate(() => (window as any).__posted.slice()),
    post: async (msg) => { await page.evaluate((m) => (window as any).postToWebview(m), msg as any); await settle(); },
    box: async () => (await page.locator('.strata-stage').boundingBox())!,
    shot: async (name) => {
      const png = await page.screenshot({ scale: 'device' });
      mkdirSync(OUT, { recursive: true });
      writeFileSync(join(OUT, `${name}.png`), png);
      return decodePng(png);
    },
    rowY: (row, box) => box.y + row * rowHeight,
  };
  return h;
}

/** Posts the sample profile; typed arrays go through structured clone like in VS Code. */
async function postSample(h: Harness, view: 'top-down' | 'bottom-up' = 'top-down'): Promise<void> {
  await h.page.evaluate((v) => {
    const d = {
      view: v, metric: 'cpu_time', unit: 'ns', total: 1e9,
      strings: ['', 'all', 'main', 'hot', 'cold', 'train.py', 'kernels/hot.py', 'util/cold.py', 'python3.11'],
      frames: {
        kind: Uint8Array.from([0, 1, 1, 2]), name: Uint32Array.from([1, 2, 3, 4]), file: Uint32Array.from([0, 5, 6, 7]),
        line: Uint32Array.from([0, 10, 20, 30]), module: Uint32Array.from([0, 8, 8, 0]),
      },
      parent: Int32Array.from([-1, 0, 1, 1]), frame: Uint32Array.from([0, 1, 2, 3]),
      inclusive: Float64Array.from([1e9, 1e9, 7.5e8, 2.5e8]), exclusive: Float64Array.from([0, 0, 7.5e8, 2.5e8]),
    };
    (window as any).postToWebview({ type: 'profile', version: 1, title: 'sample', metrics: ['cpu_time', 'wall_time'], data: d });
  }, view);
  await h.settle();
}

/** Without the details the webview asks for on hover and zoom (protocol v6). */
const noDetails = (p: Posted[]) => p.filter((m) => m.type !== 'requestDetails');

const dist = (a: number[], b: number[]) => Math.max(Math.abs(a[0] - b[0]), Math.abs(a[1] - b[1]), Math.abs(a[2] - b[2]));

/** Runs of non-background pixels along one screen row, in device pixels relative to x0. */
function runs(img: Image, x0: number, x1: number, y: number): { start: number; len: number; color: number[] }[] {
  const out: { start: number; len: number; color: number[] }[] = [];
  let cur: { start: number; len: number; color: number[] } | null = null;
  for (let x = Math.round(x0); x < Math.round(x1); x++) {
    const p = pixel(img, x, y);
    if (dist(p, BG) > 10) {
      if (!cur) { cur = { start: x - Math.round(x0), len: 0, color: p }; out.push(cur); }
      cur.len++;
    } else cur = null;
  }
  return out;
}

/** Mean distance from the background along [xa, xb) on row y. */
function meanContrast(img: Image, xa: number, xb: number, y: number): number {
  let s = 0, n = 0;
  for (let x = Math.round(xa); x < Math.round(xb); x++) { s += dist(pixel(img, x, y), BG); n++; }
  return s / n;
}

before(async () => {
  server = await startServer();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

describe('webview in Chromium', () => {
  let h: Harness;
  before(async () => {
    h = await open();
    await postSample(h);
  });
  after(async () => { await h.ctx.close(); });

  test('posts ready with the protocol version first', async () => {
    const posted = await h.posted();
    assert.deepEqual(withoutWidth(posted[0]), { type: 'ready', version: PROTOCOL_VERSION });
    const stats = await h.page.evaluate(() => (window as any).__strata.stats());
    assert.equal(stats.webgl, true, 'WebGL must be available (SwiftShader)');
    assert.equal(stats.nodes, 4);
  });

  test('(a) pixels: root and main span the width, hot ~75% and cold ~25% at depth 2', async () => {
    const img = await h.shot('flame-top-down');
    const box = await h.box();
    const y = (row: number) => h.rowY(row, box) + 2; // top of the rect, above the label text
    const width = box.width;
    const r0 = runs(img, box.x, box.x + width, y(0));
    const r1 = runs(img, box.x, box.x + width, y(1));
    const r2 = runs(img, box.x, box.x + width, y(2));
    const r3 = runs(img, box.x, box.x + width, y(3));
    assert.equal(r0.length, 1, `root row runs: ${JSON.stringify(r0)}`);
    assert.ok(r0[0].start <= 1 && Math.abs(r0[0].len - width) <= 3, `root spans the width: ${JSON.stringify(r0)}`);
    assert.equal(r1.length, 1);
    assert.ok(Math.abs(r1[0].len - width) <= 3, 'main spans the width');
    assert.equal(r2.length, 2, `depth 2 has two frames: ${JSON.stringify(r2.map((r) => [r.start, r.len]))}`);
    assert.ok(r2[0].start <= 1, 'hot starts at the left edge');
    assert.ok(Math.abs(r2[0].len / width - 0.75) < 0.01, `hot is 75% wide: ${r2[0].len}/${width}`);
    assert.ok(Math.abs(r2[1].start / width - 0.75) < 0.01, `cold starts at 75%: ${r2[1].start}`);
    assert.ok(Math.abs(r2[1].len / width - 0.25) < 0.01, `cold is 25% wide: ${r2[1].len}`);
    assert.notDeepEqual(r2[0].color, r2[1].color, 'hot and cold have different colours');
    assert.equal(r3.length, 0, 'nothing below the leaves');
    // Frame kind colours: hot is Python (blue-ish), cold is native (orange-ish).
    const [hr, , hb] = r2[0].color, [cr, , cb] = r2[1].color;
    assert.ok(hb > hr, `python frame is blue-ish: ${r2[0].color}`);
    assert.ok(cr > cb, `native frame is orange-ish: ${r2[1].color}`);
  });

  test('(b) hover shows a tooltip with name, location and share', async () => {
    const box = await h.box();
    await h.page.mouse.move(box.x + box.width * 0.375, h.rowY(2, box) + h.rowHeight / 2);
    const tip = h.page.locator('.strata-tooltip');
    await tip.waitFor({ state: 'visible' });
    const text = await tip.innerText();
    assert.match(text, /\bhot\b/);
    assert.match(text, /75(\.0)?%/);
    assert.match(text, /750 ms/);
    assert.match(text, /kernels\/hot\.py:20/);
    assert.match(text, /Python/);
    await h.page.mouse.move(box.x + box.width * 0.9, h.rowY(2, box) + h.rowHeight / 2);
    await h.page.waitForFunction(() => /cold/.test(document.querySelector('.strata-tooltip')!.textContent ?? ''));
    assert.match(await tip.innerText(), /25(\.0)?%/);
    await h.page.mouse.move(box.x + box.width / 2, h.rowY(6, box));
    await tip.waitFor({ state: 'hidden' });
  });

  test('(c) click zooms: cold fills the width, ancestors stay; Escape zooms out', async () => {
    const box = await h.box();
    await h.page.mouse.click(box.x + box.width * 0.9, h.rowY(2, box) + h.rowHeight / 2);
    await h.settle();
    assert.equal((await h.page.evaluate(() => (window as any).__strata.stats())).focus, COLD);
    await h.page.mouse.move(box.x + box.width / 2, h.rowY(8, box)); // away, no hover edge
    await h.settle();
    let img = await h.shot('flame-zoomed-cold');
    const y = (row: number) => h.rowY(row, box) + 2;
    const r2 = runs(img, box.x, box.x + box.width, y(2));
    assert.equal(r2.length, 1, `one frame at depth 2 when zoomed: ${JSON.stringify(r2.map((r) => [r.start, r.len]))}`);
    assert.ok(r2[0].start <= 1 && Math.abs(r2[0].len - box.width) <= 3, `cold fills the width: ${r2[0].len}`);
    assert.equal(runs(img, box.x, box.x + box.width, y(0)).length, 1, 'root still shown');
    assert.equal(runs(img, box.x, box.x + box.width, y(1)).length, 1, 'main still shown');
    assert.ok(!(await h.page.locator('.strata-toolbar button', { hasText: 'Reset zoom' }).isDisabled()));
    await h.page.keyboard.press('Escape');
    await h.settle();
    img = await h.shot('flame-zoomed-out');
    assert.equal(runs(img, box.x, box.x + box.width, y(2)).length, 2, 'Escape restores the full view');
    // Click on hot, then on the root → zoom out.
    await h.page.mouse.click(box.x + box.width * 0.2, h.rowY(2, box) + h.rowHeight / 2);
    await h.settle();
    assert.equal((await h.page.evaluate(() => (window as any).__strata.stats())).focus, HOT);
    await h.page.mouse.click(box.x + box.width * 0.5, h.rowY(0, box) + h.rowHeight / 2);
    await h.settle();
    assert.equal((await h.page.evaluate(() => (window as any).__strata.stats())).focus, ROOT);
  });

  test('(d) source action: Ctrl+click, click on the focused frame, Enter → openSource', async () => {
    const box = await h.box();
    const count = (await h.posted()).length;
    await h.page.keyboard.down('Control');
    await h.page.mouse.click(box.x + box.width * 0.3, h.rowY(2, box) + h.rowHeight / 2);
    await h.page.keyboard.up('Control');
    await h.settle();
    let posted = noDetails((await h.posted()).slice(count));
    assert.deepEqual(posted, [{ type: 'openSource', node: HOT, view: 'top-down' }]);
    assert.equal((await h.page.evaluate(() => (window as any).__strata.stats())).focus, ROOT, 'Ctrl+click does not zoom');
    // Double click on cold = zoom, then the focused frame → source.
    await h.page.mouse.dblclick(box.x + box.width * 0.8, h.rowY(2, box) + h.rowHeight / 2);
    await h.settle();
    posted = noDetails((await h.posted()).slice(count));
    assert.deepEqual(posted.at(-1), { type: 'openSource', node: COLD, view: 'top-down' });
    assert.equal((await h.page.evaluate(() => (window as any).__strata.stats())).focus, COLD);
    // Enter opens the frame under the pointer.
    await h.page.mouse.move(box.x + box.width * 0.5, h.rowY(1, box) + h.rowHeight / 2);
    await h.page.keyboard.press('Enter');
    posted = noDetails((await h.posted()).slice(count));
    assert.deepEqual(posted.at(-1), { type: 'openSource', node: MAIN, view: 'top-down' });
    // The root has no source: clicking it while focused on root sends nothing.
    await h.page.keyboard.press('Escape');
    await h.settle();
    const n = noDetails(await h.posted()).length;
    await h.page.mouse.click(box.x + box.width * 0.5, h.rowY(0, box) + h.rowHeight / 2);
    await h.settle();
    assert.equal(noDetails(await h.posted()).length, n);
  });

  test('(e) search highlights matches, dims the rest, shows the matched share', async () => {
    const box = await h.box();
    await h.page.mouse.move(box.x + box.width / 2, h.rowY(8, box));
    await h.settle();
    const y = h.rowY(2, box) + 2;
    const before = await h.shot('search-before');
    const hotBefore = meanContrast(before, box.x + 10, box.x + box.width * 0.7, y);
    const coldBefore = meanContrast(before, box.x + box.width * 0.8, box.x + box.width - 10, y);
    await h.page.fill('.strata-search', 'HOT');
    await h.page.waitForFunction(() => /75(\.0)?%/.test(document.querySelector('.strata-match')!.textContent ?? ''));
    await h.settle();
    const after = await h.shot('search-hot');
    const hotAfter = meanContrast(after, box.x + 10, box.x + box.width * 0.7, y);
    const coldAfter = meanContrast(after, box.x + box.width * 0.8, box.x + box.width - 10, y);
    assert.ok(Math.abs(hotAfter - hotBefore) < 3, `match keeps its colour: ${hotBefore} → ${hotAfter}`);
    assert.ok(coldAfter < coldBefore * 0.5, `non-match is dimmed: ${coldBefore} → ${coldAfter}`);
    const rootAfter = meanContrast(after, box.x + 10, box.x + box.width - 10, h.rowY(0, box) + 2);
    assert.ok(rootAfter < 40, 'root (no match) dimmed');
    assert.match(await h.page.locator('.strata-match').innerText(), /1 match/);
    // By file, case-insensitive.
    await h.page.fill('.strata-search', 'COLD.py');
    await h.page.waitForFunction(() => /25(\.0)?%/.test(document.querySelector('.strata-match')!.textContent ?? ''));
    await h.page.fill('.strata-search', '');
    await h.page.waitForFunction(() => (document.querySelector('.strata-match')!.textContent ?? '') === '');
    await h.settle();
    const cleared = await h.shot('search-cleared');
    assert.ok(Math.abs(meanContrast(cleared, box.x + box.width * 0.8, box.x + box.width - 10, y) - coldBefore) < 3);
  });

  test('highlight message outlines the given frames', async () => {
    await h.post({ type: 'highlight', nodes: [HOT] });
    const box = await h.box();
    const img = await h.shot('highlight-hot');
    const yMid = h.rowY(2, box) + h.rowHeight / 2;
    const left = pixel(img, box.x + 0.5, yMid);
    assert.ok(dist(left, OUTLINE) < 30, `hot's left edge is outlined: ${left}`);
    const coldLeft = pixel(img, box.x + box.width * 0.75 + 0.5, yMid);
    assert.ok(dist(coldLeft, OUTLINE) > 60, `cold is not outlined: ${coldLeft}`);
    await h.post({ type: 'highlight', nodes: [] });
  });

  test('highlightSource outlines the frames of one file:line, without zooming, and survives a view switch', async () => {
    const box = await h.box();
    const yMid = h.rowY(2, box) + h.rowHeight / 2;
    const highlighted = () => h.page.evaluate(() => (window as unknown as { __strata: { highlighted(): number[] } }).__strata.highlighted());
    // util/cold.py:30 is COLD: outlined, HOT is not.
    await h.post({ type: 'highlightSource', file: 'util/cold.py', line: 30 });
    assert.deepEqual(await highlighted(), [COLD]);
    const img = await h.shot('highlight-source-cold');
    const coldLeft = pixel(img, box.x + box.width * 0.75 + 0.5, yMid);
    assert.ok(dist(coldLeft, OUTLINE) < 30, `cold's left edge is outlined: ${coldLeft}`);
    const hotLeft = pixel(img, box.x + 0.5, yMid);
    assert.ok(dist(hotLeft, OUTLINE) > 60, `hot is not outlined: ${hotLeft}`);
    // Another line of the same file, or a file the profile does not have: nothing outlined.
    await h.post({ type: 'highlightSource', file: 'util/cold.py', line: 31 });
    assert.deepEqual(await highlighted(), []);
    await h.post({ type: 'highlightSource', file: 'nowhere.py', line: 30 });
    assert.deepEqual(await highlighted(), []);
    // Zoomed into HOT, COLD's line (outside the zoomed subtree) does not zoom out: the graph
    // does not move under the user.
    await h.page.mouse.click(box.x + box.width * 0.3, yMid);
    await h.settle();
    const focus = () => h.page.evaluate(() => (window as any).__strata.stats().focus);
    assert.equal(await focus(), HOT);
    await h.post({ type: 'highlightSource', file: 'util/cold.py', line: 30 });
    assert.deepEqual(await highlighted(), [COLD]);
    assert.equal(await focus(), HOT, 'still zoomed into hot');
    await h.page.keyboard.press('Escape');
    await h.post({ type: 'highlightSource', file: 'kernels/hot.py', line: 20 });
    assert.deepEqual(await highlighted(), [HOT]);
    // Re-applied when a new view of the profile arrives.
    await postSample(h);
    assert.deepEqual(await highlighted(), [HOT]);
    await h.post({ type: 'highlightSource', file: '', line: 0 });
    assert.deepEqual(await highlighted(), []);
  });

  test('(f) bottom-up toggle sends requestView; the bottom-up data then drives the view', async () => {
    const n = (await h.posted()).length;
    await h.page.click('button[data-view="bottom-up"]');
    const posted = (await h.posted()).slice(n);
    assert.deepEqual(posted.map(withoutWidth), [{ type: 'requestView', view: 'bottom-up', metric: 'cpu_time', frames: 'all', byFunction: false }]);
    await h.page.selectOption('.strata-metric', 'wall_time');
    assert.deepEqual(withoutWidth((await h.posted()).at(-1)), { type: 'requestView', view: 'top-down', metric: 'wall_time', frames: 'all', byFunction: false });
    await postSample(h, 'bottom-up');
    assert.equal(await h.page.getAttribute('button[data-view="bottom-up"]', 'aria-pressed'), 'true');
    const box = await h.box();
    await h.page.keyboard.down('Meta');
    await h.page.mouse.click(box.x + box.width * 0.3, h.rowY(2, box) + h.rowHeight / 2);
    await h.page.keyboard.up('Meta');
    assert.deepEqual((await h.posted()).at(-1), { type: 'openSource', node: HOT, view: 'bottom-up' });
  });

  test('error message is shown, and cleared by the next profile', async () => {
    await h.post({ type: 'error', message: 'profile is truncated at byte 42' });
    const msg = h.page.locator('.strata-message');
    await msg.waitFor({ state: 'visible' });
    assert.match(await msg.innerText(), /truncated at byte 42/);
    await postSample(h);
    await msg.waitFor({ state: 'hidden' });
    await h.post({ type: 'profile', version: 1, title: 'bad', metrics: [], data: { parent: [-1, 5], inclusive: [1, 1] } });
    assert.match(await msg.innerText(), /preorder/);
  });

  test('theme change (body class + variables) re-renders with the new colours', async () => {
    await h.page.evaluate(() => {
      document.documentElement.style.setProperty('--vscode-editor-background', '#ffffff');
      document.documentElement.style.setProperty('--vscode-editor-foreground', '#333333');
      document.body.classList.replace('vscode-dark', 'vscode-light');
    });
    await h.settle();
    await h.settle();
    const img = await h.shot('theme-light');
    const box = await h.box();
    const bg = pixel(img, box.x + box.width / 2, h.rowY(10, box));
    assert.ok(dist(bg, [255, 255, 255]) < 5, `background follows the theme: ${bg}`);
    await h.page.evaluate(() => {
      document.documentElement.style.setProperty('--vscode-editor-background', '#1e1e1e');
      document.documentElement.style.setProperty('--vscode-editor-foreground', '#cccccc');
      document.body.classList.replace('vscode-light', 'vscode-dark');
    });
    await h.settle();
    await h.settle();
  });

  test('no page errors', () => {
    assert.deepEqual(h.errors, []);
  });
});

describe('robustness', () => {
  test('plain arrays and numeric-key objects are accepted and drawn the same', async () => {
    const h = await open();
    try {
      const d = sampleData();
      const plain = {
        ...d,
        frames: {
          kind: Object.assign({}, Array.from(d.frames.kind)), name: Array.from(d.frames.name),
          file: Array.from(d.frames.file), line: Array.from(d.frames.line), module: Array.from(d.frames.module),
        },
        parent: Array.from(d.parent), frame: Array.from(d.frame),
        inclusive: Object.assign({}, Array.from(d.inclusive)), exclusive: Array.from(d.exclusive),
      };
      await h.post({ type: 'profile', version: 1, title: 'plain', metrics: ['cpu_time'], data: plain });
      const img = await h.shot('plain-arrays');
      const box = await h.box();
      const r2 = runs(img, box.x, box.x + box.width, h.rowY(2, box) + 2);
      assert.equal(r2.length, 2);
      assert.ok(Math.abs(r2[0].len / box.width - 0.75) < 0.01);
      assert.deepEqual(h.errors, []);
    } finally { await h.ctx.close(); }
  });

  test('devicePixelRatio 2: backing store doubled, proportions kept', async () => {
    const h = await open('', 2);
    try {
      await postSample(h);
      const stats = await h.page.evaluate(() => (window as any).__strata.stats());
      assert.equal(stats.dpr, 2);
      const size = await h.page.evaluate(() => { const c = document.querySelector('.strata-gl') as HTMLCanvasElement; return [c.width, c.height, c.clientWidth]; });
      assert.equal(size[0], size[2] * 2);
      const img = await h.shot('flame-dpr2');
      const box = await h.box();
      const r2 = runs(img, box.x * 2, (box.x + box.width) * 2, (h.rowY(2, box) + 2) * 2);
      assert.equal(r2.length, 2);
      assert.ok(Math.abs(r2[0].len / (box.width * 2) - 0.75) < 0.01, `hot 75% at dpr 2: ${r2[0].len}`);
    } finally { await h.ctx.close(); }
  });

  test('resize: the graph follows the window width', async () => {
    const h = await open();
    try {
      await postSample(h);
      await h.page.setViewportSize({ width: 500, height: 300 });
      await h.settle();
      await h.settle();
      const img = await h.shot('flame-resized');
      const box = await h.box();
      assert.ok(Math.abs(box.width - 500) < 20);
      const r2 = runs(img, box.x, box.x + box.width, h.rowY(2, box) + 2);
      assert.equal(r2.length, 2);
      assert.ok(Math.abs(r2[0].len / box.width - 0.75) < 0.01);
    } finally { await h.ctx.close(); }
  });

  test('deep stacks scroll vertically; hover and click follow the scroll', async () => {
    const h = await open();
    try {
      await h.page.evaluate(() => {
        const n = 120;
        const parent = new Int32Array(n), inclusive = new Float64Array(n), name = new Uint32Array(n), frame = new Uint32Array(n);
        const strings = [''];
        for (let i = 0; i < n; i++) { parent[i] = i - 1; inclusive[i] = 1000 - i; name[i] = strings.length; frame[i] = i; strings.push(`depth_${i}`); }
        (window as any).postToWebview({ type: 'profile', version: 1, title: 'deep', metrics: [],
          data: { view: 'top-down', metric: 'm', unit: 'ns', total: 1000, strings, frames: { kind: new Uint8Array(n), name }, parent, frame, inclusive } });
      });
      await h.settle();
      const scrollH = await h.page.evaluate(() => document.querySelector('.strata-graph')!.scrollHeight);
      assert.ok(scrollH >= 120 * h.rowHeight, `content is as tall as the stack: ${scrollH}`);
      await h.page.evaluate(() => { const g = document.querySelector('.strata-graph')!; g.scrollTop = g.scrollHeight; });
      await h.settle();
      const box = await h.box();
      const scrollTop = await h.page.evaluate(() => document.querySelector('.strata-graph')!.scrollTop);
      // The last row (119) is on screen at y = 119 * rowHeight - scrollTop.
      const y = box.y + 119 * h.rowHeight - scrollTop + h.rowHeight / 2;
      assert.ok(y < box.y + box.height);
      const img = await h.shot('deep-scrolled');
      const r = runs(img, box.x, box.x + box.width, y - h.rowHeight / 2 + 2);
      assert.equal(r.length, 1, 'deepest frame drawn after scrolling');
      await h.page.mouse.move(box.x + 20, y);
      await h.page.waitForFunction(() => /depth_119/.test(document.querySelector('.strata-tooltip')?.textContent ?? ''));
      assert.deepEqual(h.errors, []);
    } finally { await h.ctx.close(); }
  });

  test('no WebGL: a clear message, no crash, ready still posted', async () => {
    const h = await open('?nowebgl=1');
    try {
      await postSample(h);
      const text = await h.page.locator('.strata-message').innerText();
      assert.match(text, /WebGL is not available/);
      assert.deepEqual(withoutWidth((await h.posted())[0]), { type: 'ready', version: PROTOCOL_VERSION });
      assert.deepEqual(h.errors, []);
    } finally { await h.ctx.close(); }
  });

  test("CSP without 'unsafe-eval': regl cannot compile, and the page says so", async () => {
    const h = await open('?csp=no-eval');
    try {
      const text = await h.page.locator('.strata-message').innerText();
      assert.match(text, /unsafe-eval/);
      assert.deepEqual(withoutWidth((await h.posted())[0]), { type: 'ready', version: PROTOCOL_VERSION });
    } finally { await h.ctx.close(); }
  });

  test('100k nodes: interactive layout, culling and drawing', async () => {
    const h = await open();
    try {
      const t = await h.page.evaluate(() => {
        const n = 100_000;
        const parent = new Int32Array(n), inclusive = new Float64Array(n), exclusive = new Float64Array(n);
        const name = new Uint32Array(n), kind = new Uint8Array(n), file = new Uint32Array(n), line = new Uint32Array(n);
        let seed = 7;
        const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
        parent[0] = -1;
        // Random preorder tree: each node's parent is a recent node (depth up to 24).
        const stack = [0];
        for (let i = 1; i < n; i++) {
          while (stack.length > 1 && (rnd() < 0.5 || stack.length > 24)) stack.pop();
          parent[i] = stack[stack.length - 1];
          stack.push(i);
          name[i] = 1 + (i % 2000); kind[i] = 1 + (i % 7); file[i] = 2001 + (i % 50); line[i] = i % 400;
        }
        for (let i = n - 1; i >= 0; i--) { exclusive[i] = rnd() * 10; inclusive[i] += exclusive[i]; if (i > 0) inclusive[parent[i]] += inclusive[i]; }
        const strings = [''];
        for (let i = 0; i < 2000; i++) strings.push(`function_${i}`);
        for (let i = 0; i < 50; i++) strings.push(`src/file_${i}.py`);
        const t0 = performance.now();
        (window as any).postToWebview({ type: 'profile', version: 1, title: 'big', metrics: ['cpu_time'],
          data: { view: 'top-down', metric: 'cpu_time', unit: 'ns', total: inclusive[0], strings,
            frames: { kind, name, file, line, module: new Uint32Array(n) }, parent, frame: Uint32Array.from({ length: n }, (_, i) => i), inclusive, exclusive } });
        return t0;
      });
      void t;
      await h.settle();
      const s = await h.page.evaluate(() => {
        const st = (window as any).__strata;
        const times: number[] = [];
        for (let k = 0; k < 5; k++) { const t0 = performance.now(); st.redraw(); times.push(performance.now() - t0); }
        const gl = (document.querySelector('.strata-gl') as HTMLCanvasElement).getContext('webgl')!;
        const t1 = performance.now(); gl.finish(); const finish = performance.now() - t1;
        return { ...st.stats(), redraw: Math.min(...times), finish };
      });
      console.log(`# 100k nodes: load ${s.loadMs.toFixed(1)} ms, ${s.instances} rects drawn after culling, ${s.labels} labels, build ${s.buildMs.toFixed(1)} ms, redraw ${s.redraw.toFixed(1)} ms (+ finish ${s.finish.toFixed(1)} ms)`);
      assert.equal(s.nodes, 100_000);
      assert.ok(s.instances > 100 && s.instances < 100_000, `culled: ${s.instances}`);
      assert.ok(s.redraw < 150, `redraw is interactive: ${s.redraw} ms`);
      assert.ok(s.loadMs < 1000, `loading 100k nodes: ${s.loadMs} ms`);
      // Zoom and search on the big profile.
      const box = await h.box();
      await h.page.mouse.click(box.x + 5, h.rowY(3, box) + h.rowHeight / 2);
      await h.settle();
      assert.ok((await h.page.evaluate(() => (window as any).__strata.stats())).focus > 0);
      const t0 = Date.now();
      await h.page.fill('.strata-search', 'function_42');
      await h.page.waitForFunction(() => /match/.test(document.querySelector('.strata-match')!.textContent ?? ''));
      assert.ok(Date.now() - t0 < 2000);
      await h.shot('flame-100k');
      assert.deepEqual(h.errors, []);
    } finally { await h.ctx.close(); }
  });
});
