// The viewer at scale, against its goals and against speedscope on the same data, in the same
// Chromium: open → first paint, zoom, view switch and memory, for wide and deep synthetic trees
// of 10k / 100k / 1M nodes (bench/viewer/synth_profile.cpp, written with the project's writer).
//
//   node bench/viewer/viewer_bench.mjs [--sizes 10000,100000,1000000] [--shapes wide,deep] [--metrics K] [--no-speedscope]
//        [--webview-before BUNDLE] [--rounds N] [--record]
//   (--no-speedscope: Strata's side only, for quick runs; its columns read —. --metrics K: K
//   metrics per node instead of cpu_time alone, as a GPU profile has. --webview-before: another
//   webview bundle (an older build) run beside this one on the same profile, alternately, each
//   row twice as "before" and "after"; --rounds N: every case N times)
//
// Strata: the extension host's part runs in its own Node process (strata_host.mjs: the addon on
// its worker thread, the 'profile' message as the extension builds it); the page is the real
// webview bundle (webview/dist/webview.js) under the extension's CSP. First paint = open + view
// + message encoding + fetch/decode + post → the first frame drawn with the data: a view over
// 50,000 nodes is sent as its part wider than half a pixel, as the extension sends it.
// speedscope: its npm package's release build (bench/viewer/.deps, see README.md), the same tree
// as a speedscope "evented" file, loaded by #profileURL=; first paint = navigation → its title
// names the profile → two animation frames.
// Zoom: input → the next drawn frame (Strata: a frame zoomed; speedscope: ctrl+wheel); the parts a
// Strata zoom asked for (requestNodes → the host's 'nodes'): how many, the host's time to build one
// and the webview's to put it in place (medians; the round trips of this driver are left out). View
// switch: Strata top-down → bottom-up (built by the addon); speedscope: Time Order → Left Heavy
// and → Sandwich (keys 2, 3). Memory: the host process's peak RSS and the page's JS heap.
// --record appends the table to docs/benchmarks.md with the command, machine and date.
import { execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const sizes = opt('--sizes', '10000,100000,1000000').split(',').map(Number);
const shapes = opt('--shapes', 'wide,deep').split(',');
const record = args.includes('--record');
const withSpeedscope = !args.includes('--no-speedscope');
const metricCount = Number(opt('--metrics', '1'));
const webviewBefore = opt('--webview-before', '');
const rounds = Math.max(1, Number(opt('--rounds', '1')));
const CHROMIUM = process.env.STRATA_CHROMIUM || '/usr/bin/chromium';
const buildDir = path.resolve(repo, process.env.STRATA_BUILD_DIR || 'build');

const first = (...c) => c.find((p) => p && existsSync(p));
const addon = first(process.env.STRATA_ADDON, path.join(buildDir, 'addon/Release/strata_addon.node'));
const synth = first(process.env.STRATA_SYNTH, path.join(buildDir, 'bin/strata_synth_profile'), path.join(buildDir, 'addon/bin/strata_synth_profile'));
const speedscope = path.join(here, '.deps/node_modules/speedscope/dist/release');
const webviewJs = path.join(repo, 'webview/dist/webview.js');
const missing = [
  [addon, 'the addon: bash native/addon/build.sh'],
  [synth, 'strata_synth_profile: cmake --build build --target strata_synth_profile'],
  [existsSync(webviewJs) && webviewJs, 'the webview bundle: npm run build -w webview'],
  [(!webviewBefore || existsSync(webviewBefore)) && 'ok', `--webview-before ${webviewBefore}: no such file`],
  [(!withSpeedscope || existsSync(path.join(speedscope, 'index.html'))) && speedscope, 'speedscope: npm install --no-save --prefix bench/viewer/.deps speedscope@1.25.0'],
  [existsSync(CHROMIUM) && CHROMIUM, 'Chromium (STRATA_CHROMIUM)'],
].filter(([p]) => !p).map(([, how]) => how);
if (missing.length) { console.error(`viewer_bench: missing:\n  ${missing.join('\n  ')}`); process.exit(2); }

const loadAtStart = os.loadavg();
const work = path.join(os.tmpdir(), `strata-viewer-bench-${process.pid}`);
mkdirSync(work, { recursive: true });

// One static server: the page, the webview bundle, media, speedscope, the profiles' twins.
const nonce = randomBytes(16).toString('base64');
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.wasm': 'application/wasm', '.woff2': 'font/woff2', '.png': 'image/png', '.svg': 'image/svg+xml' };
const server = createServer((req, res) => {
  const u = new URL(req.url, 'http://x');
  const roots = { '/webview/': path.join(repo, 'webview'), '/media/': path.join(repo, 'media'), '/ss/': speedscope, '/data/': work };
  let file;
  if (u.pathname === '/page.html') file = path.join(here, 'page.html');
  else if (u.pathname === '/before/webview.js' && webviewBefore) file = path.resolve(webviewBefore);
  else for (const [pre, root] of Object.entries(roots)) if (u.pathname.startsWith(pre)) file = path.join(root, path.normalize(u.pathname.slice(pre.length)));
  if (!file || !existsSync(file) || !statSync(file).isFile()) { res.writeHead(404).end(); return; }
  let body = readFileSync(file);
  if (u.pathname === '/page.html') {
    const port = u.searchParams.get('host');
    const csp = `default-src 'none'; style-src 'self'; script-src 'nonce-${nonce}' 'unsafe-eval'; connect-src http://127.0.0.1:${port}`;
    const bundle = u.searchParams.get('webview') === 'before' ? '/before/webview.js' : '/webview/dist/webview.js';
    body = body.toString().replace(/\{\{CSP\}\}/g, csp).replace(/\{\{NONCE\}\}/g, nonce).replace(/\{\{WEBVIEW\}\}/g, bundle);
  }
  res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
  res.end(body);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
  executablePath: CHROMIUM, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-first-run', '--disable-background-networking'],
});
const W = 1600, H = 900;
// What the extension asks for first (extension/src/viewParts.ts firstPart) and for a part.
const FIRST = { minShare: 0.5 / W, maxNodes: 100_000, maxDepth: 128, wholeUpTo: 50_000 };
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };

async function jsHeapMB(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  await cdp.send('HeapProfiler.collectGarbage').catch(() => undefined);
  const { metrics } = await cdp.send('Performance.getMetrics');
  return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0) / 1e6;
}

/** The largest renderer process's RSS (typed arrays live outside the JS heap). */
async function rendererRssMB() {
  const cdp = await browser.newBrowserCDPSession();
  const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
  await cdp.detach();
  let max = 0;
  for (const p of processInfo.filter((x) => x.type === 'renderer')) {
    try { max = Math.max(max, Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p.id}/status`, 'utf8'))[1]) / 1024); } catch { /* gone */ }
  }
  return max;
}

function startHost() {
  const child = fork(path.join(here, 'strata_host.mjs'), [], { env: { ...process.env, STRATA_ADDON: addon }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const queue = [];
  child.on('message', (m) => queue.shift()?.(m));
  // A host that dies (a crash in the addon) fails the call that waited on it, never a hang.
  child.on('exit', (code, signal) => { for (const r of queue.splice(0)) r({ ok: false, error: `the host exited (code ${code}, signal ${signal})` }); });
  const call = (m) => new Promise((resolve, reject) => {
    queue.push((r) => (r.ok ? resolve(r) : reject(new Error(r.error))));
    child.send(m);
  });
  const ready = new Promise((r) => queue.push(r));
  return { child, call, ready };
}

async function strataCase(profile, which = 'after') {
  const host = startHost();
  await host.ready;
  const t0 = performance.now();
  const opened = await host.call({ cmd: 'open', path: profile });
  const ctx = await browser.newContext({ viewport: { width: W, height: H } });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}/page.html?host=${opened.port}&webview=${which}`);
  await page.waitForFunction(() => window.__posted.length > 0);   // 'ready'
  // Not counted: the page's own start (VS Code shows the panel while the profile opens).
  const t1 = performance.now();
  const show = async (kind) => {
    const built = await host.call({ cmd: 'view', kind, first: FIRST });
    const inPage = await page.evaluate(async ({ url, nodes }) => {
      const l = await window.__load(url);
      const before = window.__strata.stats().frames;
      const t = performance.now();
      l.post();
      await new Promise((resolve) => {
        const tick = () => { const s = window.__strata.stats(); if (s.frames > before && s.nodes === nodes) resolve(); else requestAnimationFrame(tick); };
        requestAnimationFrame(tick);
      });
      return { fetchMs: l.fetchMs, decodeMs: l.decodeMs, paintMs: performance.now() - t, buildMs: window.__strata.stats().buildMs, drawMs: window.__strata.stats().drawMs };
    }, { url: `http://127.0.0.1:${opened.port}/`, nodes: built.nodes });
    return { built, inPage };
  };
  const td = await show('top-down');
  const firstPaint = opened.ms + (performance.now() - t1);
  // The host's requestNodes answers, as the extension gives them: each part built by the host,
  // then posted; the page puts what came in place together. Until the page asks for none.
  const answer = async (from) => {
    const out = { asked: 0, hostMs: [], putMs: [] };
    for (let seen = from; ;) {
      const reqs = await page.evaluate((f) => window.__posted.slice(f).filter((m) => m.type === 'requestNodes'), seen);
      seen = await page.evaluate(() => window.__posted.length);
      if (!reqs.length) break;
      const urls = [];
      for (const r of reqs) {
        out.asked++;
        const part = await host.call({ cmd: 'part', kind: r.view, node: r.node, minValue: r.minValue });
        out.hostMs.push(part.ms);
        urls.push(part.url);
      }
      out.putMs.push(await page.evaluate(async (list) => {
        const loads = [];
        for (const url of list) loads.push(await window.__load(url));
        const before = window.__strata.parts().received;
        for (const l of loads) l.post();
        // Parts of subtrees a part of the same batch left out are dropped: then none comes in.
        const t = performance.now();
        await new Promise((resolve) => { const tick = () => (window.__strata.parts().received > before || performance.now() - t > 2000 ? resolve() : requestAnimationFrame(tick)); requestAnimationFrame(tick); });
        await new Promise((r) => requestAnimationFrame(r));
        return window.__strata.parts().received > before ? window.__strata.parts().lastMs : NaN;
      }, urls));
    }
    return out;
  };
  // Background fill: what the page asks for on its own after the first paint (the widest
  // frames' parts), answered until it asks for none.
  const f0 = performance.now();
  await new Promise((r) => setTimeout(r, 50));
  const fill = await answer(0);
  const fillMs = performance.now() - f0;
  const heldNodes = await page.evaluate(() => window.__strata.view()?.nodes ?? 0);
  // Zoom: five frames, each time to the next drawn frame; then the parts each asked for.
  const zooms = [], zoomsWithParts = [], partHostMs = [], partPutMs = [];
  let partsAsked = 0;
  for (const prefix of ['function_number_1', 'function_number_2', 'function_number_3', 'function_number_4', 'function_number_5']) {
    const asked = await page.evaluate(() => window.__posted.length);
    const ms = await page.evaluate(async (p) => {
      const before = window.__strata.stats().frames;
      const t = performance.now();
      if (window.__strata.zoomTo(p) < 0) return NaN;
      await new Promise((resolve) => { const tick = () => (window.__strata.stats().frames > before ? resolve() : requestAnimationFrame(tick)); requestAnimationFrame(tick); });
      return performance.now() - t;
    }, prefix);
    zooms.push(ms);
    // The parts this zoom needs now (the fill's are asked for once the zoom's are in; they are
    // left out here): the zoom's frame plus the host's time and the page's to put them in place
    // (this driver's round trips left out).
    const needed = await page.evaluate((from) => window.__posted.slice(from).filter((m) => m.type === 'requestNodes').length, asked);
    const got = await answer(asked);
    partsAsked += needed;
    partHostMs.push(...got.hostMs);
    partPutMs.push(...got.putMs.filter(Number.isFinite));
    zoomsWithParts.push(ms + (needed ? got.hostMs.slice(0, needed).reduce((a, b) => a + b, 0) + (got.putMs[0] ?? 0) : 0));
  }
  const s0 = performance.now();
  const bu = await show('bottom-up');
  const switchMs = performance.now() - s0;
  const mem = await host.call({ cmd: 'memory' });
  const heap = await jsHeapMB(page);
  const pageRss = await rendererRssMB();
  await ctx.close();
  await host.call({ cmd: 'close' }).catch(() => undefined);
  return {
    firstPaint, open: opened.ms, view: td.built.viewMs, encode: td.built.encodeMs, fetch: td.inPage.fetchMs + td.inPage.decodeMs,
    paint: td.inPage.paintMs, nodes: td.built.nodes, viewNodes: td.built.viewNodes ?? td.built.nodes, zoom: median(zooms.filter(Number.isFinite)),
    zoomWithParts: Math.max(...zoomsWithParts.filter(Number.isFinite)), fillAsked: fill.asked, fillMs, fillPut: fill.putMs.filter(Number.isFinite), heldNodes,
    partsAsked, partHost: partHostMs.length ? median(partHostMs) : NaN, partPut: partPutMs.length ? median(partPutMs) : NaN, switchMs, buNodes: bu.built.nodes, buViewNodes: bu.built.viewNodes ?? bu.built.nodes,
    buView: bu.built.viewMs, partial: bu.built.partial, hostPeakMB: mem.peakMB, hostRssMB: mem.rssMB, heapMB: heap, pageRssMB: pageRss, pageStart: t1 - t0 - opened.ms, errors,
  };
}

/** speedscope's own start (no profile): navigation → its landing page drawn. */
async function speedscopeBoot() {
  const ctx = await browser.newContext({ viewport: { width: W, height: H } });
  const page = await ctx.newPage();
  const t0 = performance.now();
  await page.goto(`${base}/ss/index.html`);
  await page.waitForFunction(() => /Drag and drop|Browse/.test(document.body.innerText), null, { polling: 20 });
  const ms = performance.now() - t0;
  await ctx.close();
  return ms;
}

async function speedscopeCase(json) {
  const ctx = await browser.newContext({ viewport: { width: W, height: H } });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const t0 = performance.now();
  await page.goto(`${base}/ss/index.html#profileURL=${encodeURIComponent(`${base}/data/${path.basename(json)}`)}`);
  await page.waitForFunction(() => document.title.startsWith('synthetic'), null, { timeout: 600_000, polling: 50 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const firstPaint = performance.now() - t0;
  const frame = (fn) => page.evaluate(async (src) => {
    const t = performance.now();
    (0, eval)(src)();
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    return performance.now() - t;
  }, fn.toString());
  const zooms = [];
  for (let i = 0; i < 5; i++) {
    zooms.push(await frame(() => {
      const c = [...document.querySelectorAll('canvas')].sort((a, b) => b.width * b.height - a.width * a.height)[0];
      const r = c.getBoundingClientRect();
      c.dispatchEvent(new WheelEvent('wheel', { deltaY: -60, ctrlKey: true, clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, bubbles: true, cancelable: true }));
    }));
  }
  const leftHeavy = await frame(() => window.dispatchEvent(new KeyboardEvent('keydown', { key: '2', bubbles: true })));
  const sandwich = await frame(() => window.dispatchEvent(new KeyboardEvent('keydown', { key: '3', bubbles: true })));
  const heap = await jsHeapMB(page);
  const pageRss = await rendererRssMB();
  await ctx.close();
  return { boot: await speedscopeBoot(), pageRssMB: pageRss, firstPaint, zoom: median(zooms), leftHeavy, sandwich, heapMB: heap, errors };
}

const rows = [];
for (const shape of shapes) {
  for (const n of sizes) {
    const prof = path.join(work, `${shape}-${n}.strata`);
    const json = path.join(work, `${shape}-${n}.speedscope.json`);
    execFileSync(synth, ['--shape', shape, '--nodes', String(n), '-o', prof, ...(metricCount > 1 ? ['--metrics', String(metricCount)] : []),
      ...(withSpeedscope ? ['--speedscope', json] : [])], { stdio: 'ignore' });
    for (let r = 0; r < rounds; r++) {
      for (const which of webviewBefore ? ['before', 'after'] : ['after']) {
        const load = os.loadavg()[0];
        const s = await strataCase(prof, which);
        const ss = withSpeedscope && which === 'after' ? await speedscopeCase(json) : { errors: [] };
        const row = { shape, n, s, ss, load, which: webviewBefore ? which : '' };
        rows.push(row);
        console.log(JSON.stringify(row));
      }
    }
  }
}
await browser.close();
server.close();

const f = (x) => (x === undefined || Number.isNaN(x) ? '—' : x >= 100 ? x.toFixed(0) : x.toFixed(1));
const count = (a, b) => (a === b ? a.toLocaleString('en-US') : `${a.toLocaleString('en-US')} of ${b.toLocaleString('en-US')}`);
const lines = [
  `| tree | nodes |${webviewBefore ? ' webview |' : ''} load (1 min) | Strata first paint ms (open / view / encode / fetch / paint) | nodes sent first | speedscope first paint ms (its start) | Strata background fill: parts / ms (put in place: median, slowest ms; nodes held after it) | zoom ms Strata / speedscope | Strata zoom with the parts it needs, slowest of 5, ms | Strata parts asked by 5 zooms: host / put in place ms | Strata → bottom-up ms (nodes sent) | speedscope → left heavy / sandwich ms | Strata host peak RSS MB | page RSS MB Strata / speedscope | JS heap MB Strata / speedscope |`,
  `| --- | --- |${webviewBefore ? ' --- |' : ''} --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |`,
  ...rows.map(({ shape, n, s, ss, load, which }) => `| ${shape} | ${n.toLocaleString('en-US')} |${webviewBefore ? ` ${which} |` : ''} ${load.toFixed(1)} | **${f(s.firstPaint)}** (${f(s.open)} / ${f(s.view)} / ${f(s.encode)} / ${f(s.fetch)} / ${f(s.paint)}) | ${count(s.nodes, s.viewNodes)} | **${f(ss.firstPaint)}** (${f(ss.boot)}) | ${s.fillAsked} / ${f(s.fillMs)} (${s.fillPut.length ? `${f(median(s.fillPut))}, ${f(Math.max(...s.fillPut))}` : '—'}; ${s.heldNodes.toLocaleString('en-US')}) | ${f(s.zoom)} / ${f(ss.zoom)} | ${f(s.zoomWithParts)} | ${s.partsAsked}: ${f(s.partHost)} / ${f(s.partPut)} | ${f(s.switchMs)} (${count(s.buNodes, s.buViewNodes)}${s.partial ? ', partial' : ''}) | ${f(ss.leftHeavy)} / ${f(ss.sandwich)} | ${f(s.hostPeakMB)} | ${f(s.pageRssMB)} / ${f(ss.pageRssMB)} | ${f(s.heapMB)} / ${f(ss.heapMB)} |`),
];
const errors = rows.flatMap(({ shape, n, s, ss }) => [...s.errors.map((e) => `Strata ${shape} ${n}: ${e}`), ...ss.errors.map((e) => `speedscope ${shape} ${n}: ${e}`)]);
console.log(lines.join('\n'));
if (errors.length) console.log(`page errors:\n${errors.join('\n')}`);
if (record) {
  const cpu = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.arch();
  const chromiumVersion = execFileSync(CHROMIUM, ['--version']).toString().trim();
  const partial = rows.find((r) => r.s.partial)?.s.partial;
  appendFileSync(path.join(repo, 'docs/benchmarks.md'), [
    '', `### Viewer at scale vs speedscope (${new Date().toISOString().slice(0, 10)})`, '',
    `\`node bench/viewer/viewer_bench.mjs${args.length ? ` ${args.join(' ')}` : ''}\` on ${cpu}, ${os.cpus().length} cores (shared; load average ` +
    `${loadAtStart.map((x) => x.toFixed(1)).join(' ')} at the start, ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} at the end), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${chromiumVersion} headless ` +
    `(WebGL through SwiftShader), speedscope 1.25.0. Synthetic trees written by \`strata_synth_profile\` (${metricCount > 1 ? `${metricCount} metrics` : 'one cpu_time sample'} per node); ` +
    'speedscope gets the same tree as an evented file.', '',
    ...lines, '',
    ...(partial ? [`A partial bottom-up view says why, e.g. "${partial}".`, ''] : []),
  ].join('\n'));
  console.log('recorded in docs/benchmarks.md');
}
