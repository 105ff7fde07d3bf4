// speedscope itself (its npm package's release build, what speedscope.app serves) loads files
// written by `strata export --format speedscope` in Chromium: the small golden profile shows its
// exact total (its first profile has one root frame holding all of it), and a real H100 profile
// loads with every metric as a profile and the total its heaviest frame implies.
// Run: node --test test/interop/speedscope_chromium.test.mjs   (ctest interop.speedscope_in_chromium)
// Needs Debian's chromium, playwright-core (the workspace's) and speedscope's package in
// bench/viewer/.deps (scripts/install-deps.sh puts it there).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const cli = process.env.STRATA_CLI || path.join(repo, 'build/bin/strata');
const speedscope = path.join(repo, 'bench/viewer/.deps/node_modules/speedscope/dist/release');
const CHROMIUM = process.env.STRATA_CHROMIUM || '/usr/bin/chromium';
const missing = [[speedscope, 'npm install --no-save --prefix bench/viewer/.deps speedscope@1.25.0'], [CHROMIUM, 'apt-get install chromium'], [cli, 'scripts/build.sh']]
  .filter(([p]) => !existsSync(p)).map(([p, how]) => `${p} (${how})`);

/** speedscope's value text ("995.62ms", "1.00s", "12.5µs", "6.05 MB") in the file's unit (ns or bytes). */
function parseValue(text) {
  const m = /^([\d.]+)\s*(ns|µs|us|ms|s|min|h|B|KB|MB|GB)?$/.exec(text.trim());
  if (!m) throw new Error(`not a speedscope value: ${text}`);
  const scale = { ns: 1, 'µs': 1e3, us: 1e3, ms: 1e6, s: 1e9, min: 60e9, h: 3600e9, B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }[m[2] ?? 'ns'];
  return Number(m[1]) * scale;
}

describe('speedscope loads Strata exports (Chromium)', { timeout: 300_000 }, () => {
  const skip = missing.length ? `missing: ${missing.join('; ')}` : false;
  let server, base, browser, work;

  before(async () => {
    if (skip) return;
    work = mkdtempSync(path.join(os.tmpdir(), 'strata-speedscope-'));
    server = createServer((req, res) => {
      const u = new URL(req.url, 'http://x');
      const file = u.pathname.startsWith('/data/') ? path.join(work, path.basename(u.pathname)) : path.join(speedscope, path.normalize(u.pathname));
      if (!existsSync(file) || !statSync(file).isFile()) { res.writeHead(404).end(); return; }
      res.writeHead(200, { 'cache-control': 'no-store' });
      res.end(readFileSync(file));
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${server.address().port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-first-run'] });
  });

  after(async () => {
    await browser?.close();
    server?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** Opens `file` (in the work folder) in speedscope; its title, profile selector and the
   *  sandwich table's rows ({total, percent, self, name}) sorted by total. */
  async function load(file) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/index.html#profileURL=${encodeURIComponent(`${base}/data/${file}`)}`);
    await page.waitForFunction(() => / - speedscope$/.test(document.title), null, { timeout: 60_000 });
    await page.keyboard.press('3');  // the sandwich view: a table of every frame
    await page.getByText('Total', { exact: true }).first().click();  // sort by total
    await page.waitForTimeout(500);
    const text = await page.evaluate(() => document.body.innerText);
    const rows = [];
    const re = /([\d.]+\s?[a-zµA-Z]*) \((<?[\d.]+)%\)\n\t([\d.]+\s?[a-zµA-Z]*) \((<?[\d.]+)%\)\n\t([^\n]+)/g;
    for (let m; (m = re.exec(text));) {
      rows.push({ total: parseValue(m[1]), totalText: m[1], percent: Number(m[2].replace('<', '')), percentText: m[2], self: parseValue(m[3]), name: m[5] });
    }
    const title = await page.title();
    const selector = /\((\d+)\/(\d+)\)/.exec(text);
    await page.close();
    assert.deepEqual(errors, [], 'speedscope reported errors');
    return { title, rows, profiles: selector ? Number(selector[2]) : 1 };
  }

  test('golden: exact total', { skip }, async () => {
    const golden = path.join(repo, 'test/interop/golden/train_step.speedscope.json');
    execFileSync('cp', [golden, path.join(work, 'golden.json')]);
    const file = JSON.parse(readFileSync(golden, 'utf8'));
    const { title, rows, profiles } = await load('golden.json');
    assert.equal(title, `${file.name} - speedscope`);
    assert.equal(profiles, file.profiles.length);
    // wall_time: one thread holds the whole profile.
    const thread = rows.find((r) => r.name === 'thread 100');
    assert.ok(thread, `rows: ${JSON.stringify(rows.slice(0, 3))}`);
    assert.equal(thread.percent, 100);
    assert.equal(thread.total, file.profiles[0].endValue);
    assert.equal(rows[0].total, file.profiles[0].endValue, 'no frame holds more than the total');
  });

  test('a real H100 profile: every metric a profile, the total its heaviest frame implies', { skip }, async () => {
    const out = path.join(work, 'real.json');
    execFileSync(cli, ['export', path.join(repo, 'test/fixtures/h100/gpu_torch_train.strata'), '--format', 'speedscope', '-o', out], { stdio: 'ignore' });
    const file = JSON.parse(readFileSync(out, 'utf8'));
    const { title, rows, profiles } = await load('real.json');
    assert.equal(title, `${file.name} - speedscope`);
    assert.equal(profiles, file.profiles.length);
    const first = file.profiles[0];
    assert.ok(rows.length > 10, `the sandwich lists the frames (${rows.length})`);
    // speedscope's percentages are of its own total: value / share gives it back, to the
    // precision of the shown share (two or three digits).
    const half = (t) => 0.5 * 10 ** -((/\.(\d+)/.exec(t)?.[1].length) ?? 0);  // half the last shown digit
    const top = rows[0];
    const implied = top.total / (top.percent / 100);
    const precision = half(top.percentText) / top.percent + half(top.totalText) / Number.parseFloat(top.totalText);
    assert.ok(Math.abs(implied - first.endValue) <= precision * first.endValue + 1,
      `speedscope's total ${implied} vs the export's ${first.endValue} (${top.name}: ${top.totalText}, ${top.percentText}%)`);
  });
});
