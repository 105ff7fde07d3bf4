// The viewer's diff mode ("Compare with…") on large synthetic pairs: a tree and a variant of it
// (strata_synth_profile --variant: one node in ten 1-4 times slower, one function in fifty on a
// moved line), compared as the extension compares them, B's view sent whole ("whole": what the
// diff panel did before) or in parts ("parts": its part wider than half a pixel first, a node's
// part when the page asks, the nodes to a row's frame), alternately, in the same Chromium.
//
//   node bench/viewer/diff_bench.mjs [--sizes 100000,1000000] [--shapes wide,deep] [--rounds N]
//        [--before-addon ADDON] [--record]
//
// Per case: the core's comparison on the addon's worker (open both, diffAgainst), the message
// (encode, bytes), the page's fetch + decode and its first frame with the data (first paint =
// open + diff + encode + fetch + paint), a click on the table's first row with a node (in parts:
// its path asked for and put in place, the graph zoomed to it), the background fill answered as
// the extension answers it (parts, put in place), the host's peak RSS and the page's. With
// --before-addon: that (older) addon's whole diff as well, the host alone (its time and peak RSS).
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
const sizes = opt('--sizes', '100000,1000000').split(',').map(Number);
const shapes = opt('--shapes', 'wide,deep').split(',');
const rounds = Math.max(1, Number(opt('--rounds', '1')));
const beforeAddon = opt('--before-addon', '');
const record = args.includes('--record');
const CHROMIUM = process.env.STRATA_CHROMIUM || '/usr/bin/chromium';
const buildDir = path.resolve(repo, process.env.STRATA_BUILD_DIR || 'build');
const first = (...c) => c.find((p) => p && existsSync(p));
const addon = first(process.env.STRATA_ADDON, path.join(buildDir, 'addon/Release/strata_addon.node'));
const synth = first(process.env.STRATA_SYNTH, path.join(buildDir, 'bin/strata_synth_profile'));
const webviewJs = path.join(repo, 'webview/dist/webview.js');
const missing = [
  [addon, 'the addon: bash native/addon/build.sh'],
  [synth, 'strata_synth_profile: cmake --build build --target strata_synth_profile'],
  [existsSync(webviewJs) && webviewJs, 'the webview bundle: npm run build -w webview'],
  [existsSync(CHROMIUM) && CHROMIUM, 'Chromium (STRATA_CHROMIUM)'],
  [!beforeAddon || existsSync(beforeAddon), `--before-addon ${beforeAddon}: no such file`],
].filter(([p]) => !p).map(([, how]) => how);
if (missing.length) { console.error(`diff_bench: missing:\n  ${missing.join('\n  ')}`); process.exit(2); }

const loadAtStart = os.loadavg();
const work = path.join(os.tmpdir(), `strata-diff-bench-${process.pid}`);
mkdirSync(work, { recursive: true });
const nonce = randomBytes(16).toString('base64');
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
const server = createServer((req, res) => {
  const u = new URL(req.url, 'http://x');
  let file;
  if (u.pathname === '/page.html') file = path.join(here, 'page.html');
  else if (u.pathname.startsWith('/webview/')) file = path.join(repo, 'webview', path.normalize(u.pathname.slice(9)));
  else if (u.pathname.startsWith('/media/')) file = path.join(repo, 'media', path.normalize(u.pathname.slice(7)));
  if (!file || !existsSync(file) || !statSync(file).isFile()) { res.writeHead(404).end(); return; }
  let body = readFileSync(file);
  if (u.pathname === '/page.html') {
    const csp = `default-src 'none'; style-src 'self'; script-src 'nonce-${nonce}' 'unsafe-eval'; connect-src http://127.0.0.1:${u.searchParams.get('host')}`;
    body = body.toString().replace(/\{\{CSP\}\}/g, csp).replace(/\{\{NONCE\}\}/g, nonce).replace(/\{\{WEBVIEW\}\}/g, '/webview/dist/webview.js');
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
// What the extension asks for first (extension/src/viewParts.ts firstPart(DEFAULT_WIDTH)).
const FIRST = { minShare: 0.5 / W, maxNodes: 100_000, maxDepth: 128, wholeUpTo: 50_000 };
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };

function startHost(addonPath) {
  const child = fork(path.join(here, 'strata_host.mjs'), [], { env: { ...process.env, STRATA_ADDON: addonPath }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const queue = [];
  child.on('message', (m) => queue.shift()?.(m));
  child.on('exit', (code, signal) => { for (const r of queue.splice(0)) r({ ok: false, error: `the host exited (code ${code}, signal ${signal})` }); });
  const call = (m) => new Promise((resolve, reject) => { queue.push((r) => (r.ok ? resolve(r) : reject(new Error(r.error)))); child.send(m); });
  const ready = new Promise((r) => queue.push(r));
  return { call, ready };
}

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

async function diffCase(a, b, mode) {
  const host = startHost(addon);
  await host.ready;
  const d = await host.call({ cmd: 'diff', a, b, first: mode === 'parts' ? FIRST : undefined });
  const ctx = await browser.newContext({ viewport: { width: W, height: H } });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}/page.html?host=${d.port}`);
  await page.waitForFunction(() => window.__posted.length > 0);
  const inPage = await page.evaluate(async ({ url, nodes }) => {
    const l = await window.__load(url);
    const t = performance.now();
    l.post();
    await new Promise((resolve) => {
      const tick = () => { const s = window.__strata.diff(); if (s && s.nodes === nodes && s.frames > 0) resolve(); else requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
    });
    return { fetchMs: l.fetchMs + l.decodeMs, paintMs: performance.now() - t };
  }, { url: `http://127.0.0.1:${d.port}/`, nodes: d.nodes });
  const firstPaint = d.openMs + d.diffMs + d.encodeMs + inPage.fetchMs + inPage.paintMs;
  // The page's requests (parts, paths), answered as the extension answers them, until none
  // (from its first frame on: the fill asks as soon as it draws).
  let seen = 0;
  const answer = async () => {
    const out = { asked: 0, hostMs: [], putMs: [] };
    for (;;) {
      const reqs = await page.evaluate((f) => window.__posted.slice(f).filter((m) => m.type === 'requestNodes' || m.type === 'requestPath'), seen);
      seen = await page.evaluate(() => window.__posted.length);
      if (!reqs.length) break;
      const urls = [];
      for (const r of reqs) {
        out.asked++;
        const part = await host.call(r.type === 'requestPath' ? { cmd: 'diffPath', node: r.node } : { cmd: 'diffPart', node: r.node, minValue: r.minValue });
        out.hostMs.push(part.ms);
        urls.push(part.url);
      }
      out.putMs.push(await page.evaluate(async (list) => {
        const loads = [];
        for (const url of list) loads.push(await window.__load(url));
        const before = window.__strata.diff().parts.received;
        for (const l of loads) l.post();
        const t = performance.now();
        await new Promise((resolve) => { const tick = () => (window.__strata.diff().parts.received > before || performance.now() - t > 2000 ? resolve() : requestAnimationFrame(tick)); requestAnimationFrame(tick); });
        return window.__strata.diff().parts.received > before ? window.__strata.diff().parts.lastMs : NaN;
      }, urls));
    }
    return out;
  };
  await new Promise((r) => setTimeout(r, 50));
  const fill = await answer();
  // The first row with a node of B: clicked, until the graph is zoomed to it.
  const rowIndex = (await page.evaluate(() => window.__strata.diff().rows)).findIndex((r) => r.node > 0);
  let rowMs = NaN, rowHostMs = 0;
  if (rowIndex >= 0) {
    const target = (await page.evaluate(() => window.__strata.diff().rows))[rowIndex].node;
    seen = await page.evaluate(() => window.__posted.length);
    const t0 = performance.now();
    await page.locator('.strata-diff-row').nth(rowIndex).click();
    for (let tries = 0; tries < 200; tries++) {
      if ((await page.evaluate(() => window.__strata.diff().focused?.node)) === target) break;
      const got = await answer();
      rowHostMs += got.hostMs.reduce((x, y) => x + y, 0);
      await new Promise((r) => setTimeout(r, 10));
    }
    rowMs = performance.now() - t0;
  }
  const mem = await host.call({ cmd: 'memory' });
  const pageRss = await rendererRssMB();
  await ctx.close();
  await host.call({ cmd: 'close' }).catch(() => undefined);
  return {
    mode, firstPaint, open: d.openMs, diff: d.diffMs, encode: d.encodeMs, bytes: d.bytes, fetch: inPage.fetchMs, paint: inPage.paintMs,
    nodes: d.nodes, viewNodes: d.viewNodes, fillAsked: fill.asked, fillPut: fill.putMs.filter(Number.isFinite), rowMs, rowHostMs,
    hostPeakMB: mem.peakMB, pageRssMB: pageRss, errors,
  };
}

async function beforeCase(a, b) {
  const host = startHost(beforeAddon);
  await host.ready;
  try {
    const d = await host.call({ cmd: 'diff', a, b });
    return { diff: d.diffMs, open: d.openMs, bytes: d.bytes, peakMB: d.peakMB };
  } catch (e) {
    return { error: e.message };
  } finally {
    await host.call({ cmd: 'close' }).catch(() => undefined);
  }
}

const rows = [];
for (const shape of shapes) {
  for (const n of sizes) {
    const [a, b] = [0, 1].map((variant) => {
      const out = path.join(work, `${shape}-${n}-${variant}.strata`);
      execFileSync(synth, ['--shape', shape, '--nodes', String(n), '-o', out, ...(variant ? ['--variant', '1'] : [])], { stdio: 'ignore' });
      return out;
    });
    if (beforeAddon) {
      const load = os.loadavg()[0];
      const r = await beforeCase(a, b);
      rows.push({ shape, n, load, before: r });
      console.log(JSON.stringify(rows.at(-1)));
    }
    for (let r = 0; r < rounds; r++) {
      for (const mode of ['whole', 'parts']) {
        const load = os.loadavg()[0];
        const s = await diffCase(a, b, mode);
        rows.push({ shape, n, load, s });
        console.log(JSON.stringify(rows.at(-1)));
      }
    }
  }
}
await browser.close();
server.close();

const f = (x) => (x === undefined || Number.isNaN(x) ? '—' : x >= 100 ? x.toFixed(0) : x.toFixed(1));
const count = (x, y) => (x === y ? x.toLocaleString('en-US') : `${x.toLocaleString('en-US')} of ${y.toLocaleString('en-US')}`);
const lines = [
  '| pair | nodes | load (1 min) | B\'s view sent | first paint ms (open / diff / encode / fetch / paint) | message MB | nodes sent first | row clicked → zoomed to its node ms (host ms) | background fill: parts (put in place median ms) | host peak RSS MB | page RSS MB |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...rows.map(({ shape, n, load, s, before }) => (before
    ? `| ${shape} | ${n.toLocaleString('en-US')} | ${load.toFixed(1)} | whole, older addon (host only) | ${before.error ? `failed: ${before.error}` : `— (${f(before.open)} / **${f(before.diff)}** / — / — / —)`} | ${before.bytes ? f(before.bytes / 1e6) : '—'} | — | — | — | ${f(before.peakMB)} | — |`
    : `| ${shape} | ${n.toLocaleString('en-US')} | ${load.toFixed(1)} | ${s.mode} | **${f(s.firstPaint)}** (${f(s.open)} / ${f(s.diff)} / ${f(s.encode)} / ${f(s.fetch)} / ${f(s.paint)}) | ${f(s.bytes / 1e6)} | ${count(s.nodes, s.viewNodes)} | ${f(s.rowMs)} (${f(s.rowHostMs)}) | ${s.fillAsked} (${s.fillPut.length ? f(median(s.fillPut)) : '—'}) | ${f(s.hostPeakMB)} | ${f(s.pageRssMB)} |`)),
];
console.log(lines.join('\n'));
const errors = rows.flatMap(({ shape, n, s }) => (s?.errors ?? []).map((e) => `${shape} ${n} ${s.mode}: ${e}`));
if (errors.length) console.log(`page errors:\n${errors.join('\n')}`);
if (record) {
  const cpu = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.arch();
  appendFileSync(path.join(repo, 'docs/benchmarks.md'), [
    '', `### Diff mode on large pairs (${new Date().toISOString().slice(0, 10)})`, '',
    `\`node bench/viewer/diff_bench.mjs${args.length ? ` ${args.join(' ')}` : ''}\` on ${cpu}, ${os.cpus().length} cores (shared; load average ` +
    `${loadAtStart.map((x) => x.toFixed(1)).join(' ')} at the start, ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} at the end), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ` +
    `${execFileSync(CHROMIUM, ['--version']).toString().trim()} headless (WebGL through SwiftShader).`, '',
    ...lines, '',
  ].join('\n'));
  console.log('recorded in docs/benchmarks.md');
}
