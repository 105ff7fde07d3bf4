// Chromium tests of the flame graph's navigation and reading aids on a Python view (protocol v6):
// legend and colours by whose code, truncated stacks, the Python view / by-function / my-code
// toggles, wheel zoom, drag pan, keys, back / forward, clickable breadcrumbs, the details pane
// (every metric; attributes as mean / min / max), bounded tooltips with short kernel names, the
// sandwich, and the state kept for a reopened webview.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, Browser, BrowserContext, Page } from 'playwright-core';
import { startServer, WEBVIEW_DIR } from './server';
import { decodePng, pixel } from './png';
import { LONG_KERNEL, NAV, navData } from './fixtures';
import { withoutWidth } from './posted';

const OUT = join(WEBVIEW_DIR, 'test', 'output');
const CHROMIUM = process.env.STRATA_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--use-angle=swiftshader', '--enable-unsafe-swiftshader'];
const W = 900, HEIGHT = 600;
type Posted = { type: string; [k: string]: unknown };
const noDetails = (p: Posted[]) => p.filter((m) => m.type !== 'requestDetails');

let browser: Browser;
let server: { url: string; close(): Promise<void> };

/** navData as plain arrays (what a JSON round trip would give: normalisation makes them typed). */
function plain(): Record<string, unknown> {
  const d = navData() as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d)) {
    if (ArrayBuffer.isView(v)) out[k] = Array.from(v as unknown as ArrayLike<number>);
    else if (k === 'frames') out[k] = Object.fromEntries(Object.entries(v as object).map(([a, b]) => [a, Array.from(b as ArrayLike<number>)]));
    else out[k] = v;
  }
  return out;
}

const PROFILE = () => ({ type: 'profile', version: 6, title: 'train', metrics: ['cpu_time', 'gpu_time'], data: plain(),
  metricInfo: [{ name: 'cpu_time', unit: 'ns', nature: 'additive', count: 10 }, { name: 'gpu_time', unit: 'ns', nature: 'additive', count: 3 },
    { name: 'grid_size', unit: 'blocks', nature: 'attribute', count: 3 }] });

/** The host's sandwich of forward in navData (what the core makes): callers forward ← train
 *  (both lines) ← <module>; callees forward (self 200) → kernel 300. */
const SANDWICH = () => {
  const d = navData();
  const tree = (parent: number[], frame: number[], inclusive: number[], exclusive: number[]) => ({
    view: 'top-down', metric: 'cpu_time', unit: 'ns', total: inclusive[0], strings: d.strings,
    frames: Object.fromEntries(Object.entries(d.frames).map(([k, v]) => [k, Array.from(v as ArrayLike<number>)])),
    parent, frame, inclusive, exclusive, frameFilter: 'python', byFunction: true,
  });
  return { type: 'sandwich', view: 'top-down', node: NAV.FORWARD, data: {
    calls: 2, partial: 'partial sandwich: the callees are capped at 1 nodes',
    callers: tree([-1, 0, 1], [3, 2, 1], [500, 500, 500], [0, 0, 500]),
    callees: tree([-1, 0], [3, 4], [500, 300], [200, 300]) } };
};

class H {
  errors: string[] = [];
  constructor(readonly page: Page, readonly ctx: BrowserContext) {
    page.on('pageerror', (e) => this.errors.push(`pageerror: ${e.message}`));
  }
  static async open(state?: unknown): Promise<H> {
    const ctx = await browser.newContext({ viewport: { width: W, height: HEIGHT } });
    const page = await ctx.newPage();
    const h = new H(page, ctx);
    const q = state ? `?state=${encodeURIComponent(JSON.stringify(state))}` : '';
    await page.goto(`${server.url}/test/harness.html${q}`);
    await page.waitForFunction(() => (window as any).__posted?.length > 0);
    return h;
  }
  async settle(): Promise<void> {
    await this.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null)))));
  }
  async post(msg: unknown): Promise<void> { await this.page.evaluate((m) => (window as any).postToWebview(m), msg as any); await this.settle(); }
  posted(): Promise<Posted[]> { return this.page.evaluate(() => (window as any).__posted.slice()); }
  async clearPosted(): Promise<void> { await this.page.evaluate(() => { (window as any).__posted.length = 0; }); }
  stats(): Promise<any> { return this.page.evaluate(() => (window as any).__strata.stats()); }
  state(): Promise<any> { return this.page.evaluate(() => (window as any).__state); }
  async box(): Promise<{ x: number; y: number; width: number; height: number }> { return (await this.page.locator('.strata-graph:not([hidden]) .strata-stage').first().boundingBox())!; }
  /** Screen point of a fraction of the width on a row. */
  async at(fx: number, row: number): Promise<{ x: number; y: number }> {
    const b = await this.box();
    return { x: b.x + b.width * fx, y: b.y + row * 18 + 9 };
  }
  async shot(name: string) {
    const png = await this.page.screenshot();
    mkdirSync(OUT, { recursive: true });
    writeFileSync(join(OUT, `${name}.png`), png);
    return decodePng(png);
  }
}

before(async () => {
  server = await startServer();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});
after(async () => { await browser?.close(); await server?.close(); });

describe('flame graph navigation (Chromium)', () => {
  let h: H;
  before(async () => { h = await H.open(); await h.post(PROFILE()); });
  after(async () => { assert.deepEqual(h.errors, []); await h.ctx.close(); });

  test('legend names whose code each colour is, truncated stacks included', async () => {
    const items = await h.page.locator('.strata-legend-item').allInnerTexts();
    assert.deepEqual(items.map((s) => s.trim()), ['Your code', 'Libraries', 'GPU', 'Truncated stack']);
    const img = await h.shot('nav-python-view');
    const b = await h.box();
    const px = (fx: number, row: number) => pixel(img, Math.round(b.x + b.width * fx), Math.round(b.y + row * 18 + 3));
    // Row 1: <module> (user, 1000/1300) then the truncated marker (300/1300) at the right.
    const trunc = px(0.95, 1);
    assert.ok(trunc[0] > 180 && trunc[1] < 110 && trunc[2] < 110, `truncated stack is red: ${trunc}`);
    const user = px(0.3, 2), lib = px(0.2, 3);
    const sat = (c: number[]) => Math.max(...c) - Math.min(...c);
    assert.ok(user[2] > user[0], `your code (Python) is blue: ${user}`);
    assert.ok(sat(lib) < sat(user), `libraries are faded: ${lib} vs ${user}`);
  });

  test('tooltip: a truncated stack says so; a kernel shows its short name, bounded', async () => {
    const p = await h.at(0.95, 1);
    await h.page.mouse.move(p.x, p.y);
    const tip = h.page.locator('.strata-tooltip');
    await tip.waitFor({ state: 'visible' });
    assert.match(await tip.innerText(), /truncated here: its callers are unknown/);
    const k = await h.at(0.15, 4);
    await h.page.mouse.move(k.x, k.y);
    await h.page.waitForFunction(() => /elementwise_kernel/.test(document.querySelector('.strata-tt-name')?.textContent ?? ''));
    const name = await h.page.locator('.strata-tt-name').innerText();
    assert.equal(name, 'at::native::elementwise_kernel<…>(…)');
    const tb = (await tip.boundingBox())!;
    assert.ok(tb.height < HEIGHT * 0.45 && tb.width < W * 0.95, `tooltip bounded: ${tb.width}x${tb.height}`);
    // It asked for the kernel's details; with them the tooltip shows launches and the attributes.
    await h.page.waitForFunction(() => (window as any).__posted.some((m: any) => m.type === 'requestDetails' && m.node === 4));
    await h.post({ type: 'details', node: NAV.KERNEL, view: 'top-down', metrics: [
      { name: 'cpu_time', unit: 'ns', nature: 'additive', inclusive: 300, exclusive: 300, count: 3, min: 50, max: 150, mean: 100, std: 40 },
      { name: 'gpu_time', unit: 'ns', nature: 'additive', inclusive: 3000, exclusive: 3000, count: 3, min: 500, max: 1500, mean: 1000, std: 400 },
      { name: 'grid_size', unit: 'blocks', nature: 'attribute', inclusive: 120, exclusive: 120, count: 3, min: 8, max: 64, mean: 40, std: 23 },
    ] });
    await h.page.mouse.move(k.x + 1, k.y);
    await h.page.waitForFunction(() => /Launches/.test(document.querySelector('.strata-tooltip')?.textContent ?? ''));
    const t = await tip.innerText();
    assert.match(t, /Launches\s+3/);
    assert.match(t, /grid_size\s+40 blocks \(8 blocks–64 blocks\)/);
    assert.doesNotMatch(t, /120 blocks/, 'attributes are never summed');
  });

  test('wheel zooms at the pointer, drag pans, neither clicks', async () => {
    await h.clearPosted();
    const p = await h.at(0.25, 2);
    await h.page.mouse.move(p.x, p.y);
    await h.page.mouse.wheel(0, -600);
    await h.settle();
    let s = await h.stats();
    assert.ok(s.v1 - s.v0 < 0.5, `zoomed in: ${s.v0}..${s.v1}`);
    assert.ok(s.v0 < 0.25 && s.v1 > 0.25, 'the point under the pointer stays visible');
    assert.equal(s.focus, 0, 'wheel does not change the focused frame');
    const before = s.v0;
    await h.page.mouse.move(p.x, p.y);
    await h.page.mouse.down();
    await h.page.mouse.move(p.x - 200, p.y, { steps: 5 });
    await h.page.mouse.up();
    await h.settle();
    s = await h.stats();
    assert.ok(s.v0 > before, `dragging left pans right: ${before} → ${s.v0}`);
    assert.equal(s.focus, 0, 'a drag is not a click');
    assert.equal((await h.posted()).filter((m: Posted) => m.type === 'openSource').length, 0);
    await h.page.keyboard.press('0');
    await h.settle();
    s = await h.stats();
    assert.equal(s.v1 - s.v0, 1, '0 shows the whole focused frame');
    assert.ok(!(await h.page.locator('.strata-back').isDisabled()), 'back is possible');
  });

  test('click, breadcrumbs, back and forward; the details pane with every metric', async () => {
    await h.page.keyboard.press('Escape');
    const k = await h.at(0.15, 4);
    await h.page.mouse.click(k.x, k.y);
    await h.settle();
    assert.equal((await h.stats()).focus, NAV.KERNEL);
    const crumbs = await h.page.locator('.strata-crumb-step').allInnerTexts();
    assert.deepEqual(crumbs, ['all', '<module>', 'train', 'forward', 'at::native::elementwise_kernel<…>(…)']);
    // Details: the full name, whose code, the call path, every metric (from 'details').
    const details = h.page.locator('.strata-details');
    await details.waitFor({ state: 'visible' });
    assert.equal(await h.page.locator('.strata-details-name').innerText(), LONG_KERNEL);
    assert.match(await details.innerText(), /GPU kernel/);
    assert.deepEqual(await h.page.locator('.strata-details-path .strata-link').allInnerTexts(),
      ['<module>', 'train', 'forward', 'at::native::elementwise_kernel<…>(…)']);
    const grid = await h.page.locator('.strata-details-metrics tr[data-metric="grid_size"] td').allInnerTexts();
    assert.deepEqual(grid.slice(0, 7), ['grid_size', '', '', '3', '40 blocks', '8 blocks', '64 blocks']);
    const gpu = await h.page.locator('.strata-details-metrics tr[data-metric="gpu_time"] td').allInnerTexts();
    assert.deepEqual(gpu.slice(0, 4), ['gpu_time', '3 µs', '3 µs', '3']);
    // A breadcrumb step zooms there.
    await h.page.locator('.strata-crumb-step', { hasText: /^train$/ }).click();
    await h.settle();
    assert.equal((await h.stats()).focus, NAV.TRAIN);
    // In a view by function the details list the lines merged into the frame (from 'details').
    await h.post({ type: 'details', node: NAV.TRAIN, view: 'top-down', metrics: [], lines: [
      { file: '/ws/train.py', line: 10, value: 500 }, { file: '/ws/train.py', line: 12, value: 200 }] });
    const lines = await h.page.locator('.strata-details-lines tr').allInnerTexts();
    assert.equal(lines.length, 2);
    assert.match(lines[0], /\/ws\/train\.py:10\s+500 ns \(71\.4%\)/);
    // Back, back, forward.
    await h.page.keyboard.press('[');
    await h.settle();
    assert.equal((await h.stats()).focus, NAV.KERNEL);
    await h.page.locator('.strata-back').click();
    await h.settle();
    assert.equal((await h.stats()).focus, NAV.ROOT);
    await h.page.keyboard.press(']');
    await h.settle();
    assert.equal((await h.stats()).focus, NAV.KERNEL);
    await h.page.keyboard.press('Escape');
  });

  test('toggles: Python view (pressed) and by function ask the host; my code dims the rest', async () => {
    await h.clearPosted();
    const py = h.page.locator('.strata-python-toggle');
    assert.equal(await py.getAttribute('aria-pressed'), 'true');
    await py.click();
    assert.deepEqual(withoutWidth((await h.posted()).at(-1)), { type: 'requestView', view: 'top-down', metric: 'cpu_time', frames: 'all', byFunction: false });
    await h.page.locator('.strata-function-toggle').click();
    assert.deepEqual(withoutWidth((await h.posted()).at(-1)), { type: 'requestView', view: 'top-down', metric: 'cpu_time', frames: 'python', byFunction: true });
    const b = await h.box();
    const before = await h.shot('nav-before-mycode');
    await h.page.locator('.strata-mycode-toggle').click();
    await h.settle();
    await h.page.mouse.move(b.x + 5, b.y + b.height - 5);
    await h.settle();
    const after = await h.shot('nav-mycode');
    const at = (img: any, fx: number, row: number) => pixel(img, Math.round(b.x + b.width * fx), Math.round(b.y + row * 18 + 3));
    const diff = (a: number[], c: number[]) => Math.abs(a[0] - c[0]) + Math.abs(a[1] - c[1]) + Math.abs(a[2] - c[2]);
    assert.ok(diff(at(before, 0.3, 2), at(after, 0.3, 2)) < 12, 'your code keeps its colour');
    assert.ok(diff(at(before, 0.15, 4), at(after, 0.15, 4)) > 40, 'the GPU kernel is dimmed');
    assert.equal((await h.state()).myCode, true);
    await h.page.locator('.strata-mycode-toggle').click();
  });

  test('sandwich: asked of the host for the frame\'s function; callers and callees shown', async () => {
    await h.clearPosted();
    const f = await h.at(0.15, 3);
    await h.page.mouse.move(f.x, f.y);
    await h.page.keyboard.press('s');
    await h.settle();
    assert.deepEqual(noDetails(await h.posted()).at(-1), { type: 'requestSandwich', view: 'top-down', node: NAV.FORWARD });
    assert.equal(await h.page.evaluate(() => (window as any).__strata.sandwich()), null, 'shown when it comes');
    await h.post(SANDWICH());
    const sw = await h.page.evaluate(() => (window as any).__strata.sandwich());
    assert.ok(sw, 'the sandwich is shown');
    assert.match(sw.title, /^Sandwich of forward — 2 call sites/);
    assert.deepEqual(sw.callerLabels, ['forward', 'train', '<module>']);
    assert.equal(sw.callees, 2);
    assert.equal(await h.page.locator('.strata-seg[data-view="sandwich"]').getAttribute('aria-pressed'), 'true');
    assert.match(await h.page.locator('.strata-message').innerText(), /partial sandwich: the callees are capped/, 'a bound says so');
    await h.shot('nav-sandwich');
    await h.page.keyboard.press('Escape');
    await h.settle();
    assert.equal(await h.page.evaluate(() => (window as any).__strata.sandwich()), null);
  });

  test('sandwich from the bottom-up view: the bottom-up node is asked for; a function gone says so', async () => {
    await h.post({ ...PROFILE(), data: { ...plain(), view: 'bottom-up' } });
    await h.clearPosted();
    const f = await h.at(0.15, 3);
    await h.page.mouse.move(f.x, f.y);
    await h.page.keyboard.press('s');
    assert.deepEqual(noDetails(await h.posted()).at(-1), { type: 'requestSandwich', view: 'bottom-up', node: NAV.FORWARD });
    await h.post({ type: 'sandwich', view: 'bottom-up', node: NAV.FORWARD, data: null });
    assert.equal(await h.page.evaluate(() => (window as any).__strata.sandwich()), null);
    assert.match(await h.page.locator('.strata-message').innerText(), /not in this view any more/);
    assert.equal(await h.page.locator('.strata-seg[data-view="bottom-up"]').getAttribute('aria-pressed'), 'true');
    await h.post(PROFILE());
  });

  test('state is saved for a reopened webview', async () => {
    const k = await h.at(0.15, 4);
    await h.page.mouse.click(k.x, k.y);
    await h.page.mouse.move(k.x, k.y);
    await h.page.mouse.wheel(0, -300);
    await h.settle();
    const st = await h.state();
    assert.deepEqual(st.focusPath.map((x: { name: string }) => x.name), ['all', '<module>', 'train', 'forward', LONG_KERNEL]);
    assert.deepEqual(st.focusPath[2], { name: 'train', file: '/ws/train.py', line: 10 });
    assert.equal(st.view, 'top-down');
    assert.equal(st.frames, 'python');
    assert.ok(st.v1 - st.v0 < 1);
  });
});

describe('a reopened webview (Chromium)', () => {
  test('comes back to the saved zoom when the host shows the same view', async () => {
    const saved = { view: 'top-down', mode: 'top-down', metric: 'cpu_time', frames: 'python', byFunction: false,
      focusPath: [{ name: 'all', file: '', line: 0 }, { name: '<module>', file: '/ws/train.py', line: 3 }, { name: 'train', file: '/ws/train.py', line: 12 }],
      v0: 0.25, v1: 0.5, query: '' };
    const h = await H.open(saved);
    await h.post(PROFILE());
    const s = await h.stats();
    assert.equal(s.focus, NAV.TRAIN12, 'the saved line of train, not its first sibling of that name');
    assert.ok(Math.abs(s.v0 - 0.25) < 1e-9 && Math.abs(s.v1 - 0.5) < 1e-9, `viewport restored: ${s.v0}..${s.v1}`);
    assert.deepEqual(h.errors, []);
    await h.ctx.close();
  });

  test('asks for the saved view, metric and toggles when the host shows others, then restores the zoom', async () => {
    const saved = { view: 'top-down', mode: 'top-down', metric: 'gpu_time', frames: 'all', byFunction: true, focusPath: [{ name: 'all', file: '', line: 0 }, { name: '<module>', file: '/ws/train.py', line: 3 }] };
    const h = await H.open(saved);
    await h.post(PROFILE());
    const req = (await h.posted()).filter((m: Posted) => m.type === "requestView");
    assert.deepEqual(withoutWidth(req.at(-1)), { type: 'requestView', view: 'top-down', metric: 'gpu_time', frames: 'all', byFunction: true });
    const d = plain();
    await h.post({ ...PROFILE(), data: { ...d, metric: 'gpu_time', frameFilter: 'all', byFunction: true } });
    assert.equal((await h.stats()).focus, NAV.MODULE);
    assert.equal(await h.page.locator('.strata-python-toggle').getAttribute('aria-pressed'), 'false');
    assert.equal(await h.page.locator('.strata-function-toggle').getAttribute('aria-pressed'), 'true');
    assert.deepEqual(h.errors, []);
    await h.ctx.close();
  });
});
