// Shared harness of the end-to-end tests: a real code-server (VS Code 1.100) with a temporary
// user-data folder, extensions folder and workspace, driven through Debian's Chromium with
// playwright-core; plus helpers that act like a user (command palette, quick open, go to line)
// and read what VS Code shows (tabs, notifications, status bar, the Strata webview).
// One session per test file: node --test runs each file in its own process.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, '../..');
export const buildDir = path.resolve(repo, process.env.STRATA_BUILD_DIR || 'build');
export const codeServerDir = path.resolve(repo, process.env.STRATA_CODE_SERVER || '.tools/code-server');
export const entry = path.join(codeServerDir, 'node_modules/code-server/out/node/entry.js');
export const outDir = path.join(here, 'output');
export const CHROMIUM = process.env.STRATA_CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const extPkg = JSON.parse(readFileSync(path.join(repo, 'extension/package.json'), 'utf8'));
export const extId = `${extPkg.publisher}.${extPkg.name}-${extPkg.version}`;
export const cli = path.join(buildDir, 'bin/strata');
export const exampleLib = path.join(buildDir, 'lib/libstrata_example.so');
export const ROW = 18;   // webview/src/view/flameView.ts ROW_HEIGHT

/** What the tests need that a build makes; [] when everything is there. */
export function missingPrerequisites() {
  const need = [
    [entry, 'code-server: bash scripts/install-code-server.sh'],
    [cli, `the strata CLI: scripts/build.sh (STRATA_BUILD_DIR=${path.relative(repo, buildDir)})`],
    [path.join(buildDir, 'lib/libstrata_runtime.so'), 'the runtime: scripts/build.sh'],
    [exampleLib, 'the example library: scripts/build.sh'],
    [path.join(repo, 'extension/dist/extension.js'), 'the extension bundle: npm run build -w extension'],
    [path.join(repo, 'extension/dist/webview/webview.js'), 'the webview bundle: npm run build -w webview && npm run build -w extension'],
  ];
  const addons = [path.join(repo, 'extension/dist/native/strata_addon.node'), path.join(buildDir, 'addon/Release/strata_addon.node')];
  const out = need.filter(([p]) => !existsSync(p)).map(([p, how]) => `${p} (${how})`);
  if (!addons.some((p) => existsSync(p))) out.push(`${addons[1]} (the addon: bash native/addon/build.sh)`);
  return out;
}

/** Missing parts fail the suite (scripts/test.sh builds them first); STRATA_E2E_ALLOW_SKIP=1 skips instead. */
export function skipReason(missing = missingPrerequisites()) {
  return missing.length > 0 && process.env.STRATA_E2E_ALLOW_SKIP === '1' ? `missing: ${missing.join('; ')}` : false;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function waitFor(what, fn, timeoutMs, intervalMs = 250) {
  const end = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      if (e.fatal) throw e;
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last.message}` : ''}`);
    await sleep(intervalMs);
  }
}

/** The session of this test file: S.page, S.ws (workspace folder), S.tmp, S.log. */
export const S = { tmp: '', ws: '', ud: '', ext: '', page: null, browser: null, server: null, log: '', prefix: '' };

/** User settings every session starts with (quiet, deterministic workbench). */
export function baseSettings(extra = {}) {
  return {
    'security.workspace.trust.enabled': false,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'extensions.ignoreRecommendations': true,
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'update.mode': 'none',
    'telemetry.telemetryLevel': 'off',
    'git.enabled': false,
    'editor.minimap.enabled': false,
    // The DOM renderer: terminal text is in the page (the GPU renderers draw it on a canvas).
    'terminal.integrated.gpuAcceleration': 'off',
    ...extra,
  };
}

/** Makes the temporary folders: S.tmp, S.ud (user data), S.ext (extensions), S.ws (workspace). */
export function makeFolders(prefix) {
  S.prefix = prefix;
  S.tmp = mkdtempSync(path.join(os.tmpdir(), `strata-${prefix}-`));
  S.ud = path.join(S.tmp, 'user-data');
  S.ext = path.join(S.tmp, 'extensions');
  S.ws = path.join(S.tmp, 'workspace');
  mkdirSync(path.join(S.ud, 'User'), { recursive: true });
  mkdirSync(S.ext, { recursive: true });
  mkdirSync(S.ws, { recursive: true });
}

/** Starts code-server on S.ws with `settings` and opens it in Chromium. */
export async function startSession(settings, env = {}) {
  writeFileSync(path.join(S.ud, 'User/settings.json'), JSON.stringify(baseSettings(settings), null, 2));
  const port = await freePort();
  S.server = spawn(process.execPath, [entry, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
    '--user-data-dir', S.ud, '--extensions-dir', S.ext, S.ws], {
    env: { ...process.env, STRATA_EXAMPLE_LIB: exampleLib, STRATA_BUILD_DIR: buildDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  S.server.stdout.on('data', (d) => { S.log += d; });
  S.server.stderr.on('data', (d) => { S.log += d; });
  await waitFor('code-server to listen', async () => {
    const r = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
    return r && r.ok;
  }, 60000, 300);
  S.browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const context = await S.browser.newContext({ viewport: { width: 1500, height: 950 } });
  S.page = await context.newPage();
  S.page.setDefaultTimeout(20000);
  await S.page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(S.ws)}`);
  await S.page.locator('.monaco-workbench').waitFor({ timeout: 60000 });
  // Let the workbench settle (extension host start, explorer).
  await S.page.locator('.explorer-folders-view, .monaco-workbench .part.sidebar').first().waitFor({ timeout: 30000 }).catch(() => {});
  await sleep(1500);
}

export async function stopSession() {
  await S.browser?.close().catch(() => {});
  const server = S.server;
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await Promise.race([new Promise((r) => server.once('exit', r)), sleep(5000)]);
    if (server.exitCode === null) server.kill('SIGKILL');
  }
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, `${S.prefix || 'code-server'}.log`), S.log);
  // code-server's helpers (the extension host, the file watcher) can outlive the server by a
  // moment and still write workspace storage: retried, then left in /tmp with a word rather than
  // failing a suite whose tests passed.
  if (S.tmp && process.env.STRATA_E2E_KEEP !== '1') {
    try {
      rmSync(S.tmp, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    } catch (e) {
      console.error(`# could not remove ${S.tmp}: ${e.message}`);
    }
  }
}

export async function shot(name) {
  mkdirSync(outDir, { recursive: true });
  try { await S.page.screenshot({ path: path.join(outDir, `${name}.png`) }); } catch { /* best effort */ }
}

/** Runs a command through the command palette (F1). */
export async function runCommand(title) {
  const page = S.page;
  const input = page.locator('.quick-input-widget .quick-input-box input');
  // The palette can close right after it opens when focus was inside a webview (a click in the
  // timeline or flame graph just before), and on a loaded machine the first palette of a session
  // can list the extensions' commands only after a while: open it again, a few times, before
  // giving up.
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
  for (let attempt = 1; ; attempt++) {
    try {
      await page.keyboard.press('Escape');
      await page.keyboard.press(attempt % 2 ? 'F1' : 'Control+Shift+P');
      await input.waitFor({ state: 'visible', timeout: 15000 });
      await input.fill(`>${title}`, { timeout: 5000 });
      await row.waitFor({ state: 'visible', timeout: 15000 });
      break;
    } catch (e) {
      if (attempt >= 4) throw e;
      await page.waitForTimeout(500);
    }
  }
  await page.keyboard.press('Enter');
}

/** Picks the row of an open quick pick whose text contains `text`. */
export async function pickQuick(text) {
  const page = S.page;
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: text }).first();
  await row.waitFor({ state: 'visible', timeout: 15000 });
  await row.click();
}

/**
 * Answers code-server's simple file dialog with `file`. The dialog reuses the palette's quick
 * input, and the palette stays on screen until the command has run (the first command of a
 * session waits for the extension to activate): the dialog is there once the input holds a path.
 * It then fills in its folder a moment later, which can overwrite what was typed: type until the
 * input keeps the path.
 */
export async function answerFileDialog(file) {
  const input = S.page.locator('.quick-input-widget .quick-input-box input');
  const title = S.page.locator('.quick-input-widget .quick-input-title');
  await waitFor('the file dialog', async () => (await input.inputValue({ timeout: 1000 })).startsWith('/'), 60000);
  // The dialog is recognised by its title: a dialog that follows (as in a diff) has another one.
  const dialogTitle = await title.innerText({ timeout: 2000 }).catch(() => '');
  const sameDialog = async () => (await input.isVisible().catch(() => false))
    && (await title.innerText({ timeout: 1000 }).catch(() => '')) === dialogTitle;
  for (let round = 1; ; round++) {
    for (let attempt = 1; ; attempt++) {
      await input.fill(file);
      await sleep(500);
      const value = await input.inputValue({ timeout: 2000 }).catch(() => '');
      if (value === file) break;
      if (attempt >= 6) throw new Error(`the file dialog does not keep ${file}: it shows ${value}`);
    }
    await S.page.keyboard.press('Enter');
    // On a loaded machine the Enter can land while the dialog is still refreshing its list: it is
    // lost (the dialog keeps the path) or the refresh puts the folder back in place of the path.
    // Either way the same dialog is still open: type the path again and press Enter again.
    const gone = await waitFor('the file dialog to take the path', async () => !(await sameDialog()), 10000)
      .then(() => true, () => false);
    if (gone) return;
    if (round >= 4) {
      const value = await input.inputValue({ timeout: 1000 }).catch(() => '?');
      throw new Error(`the file dialog "${dialogTitle}" does not take ${file}: it still shows ${value}`);
    }
  }
}

/** Runs `command` and answers its file dialog with `file`. */
export async function openThroughDialog(command, file) {
  await runCommand(command);
  await answerFileDialog(file);
}

export async function openFileQuick(name) {
  const page = S.page;
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15000 });
  await input.fill(name);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 15000 });
  await page.keyboard.press('Enter');
  await activeTab(name, 15000);
}

/** Moves the cursor of the active editor to `line` (Ctrl+G). */
export async function goToLine(line) {
  const page = S.page;
  await page.keyboard.press('Control+g');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15000 });
  await input.fill(`:${line}`);
  await sleep(200);
  await page.keyboard.press('Enter');
  await waitFor(`cursor at line ${line}`, async () => (await statusLine()) === line, 10000);
}

/** Waits until the active editor tab (of the active group) shows `name`. */
export async function activeTab(name, timeoutMs = 20000) {
  return waitFor(`active tab "${name}"`, async () => {
    const t = await S.page.locator('.editor-group-container.active .tab.active').first().textContent({ timeout: 1000 });
    return t && t.includes(name) ? t : null;
  }, timeoutMs);
}

export async function statusLine() {
  const t = await S.page.locator('[id="status.editor.selection"]').first().textContent({ timeout: 2000 });
  const m = /Ln (\d+)/.exec(t ?? '');
  return m ? Number(m[1]) : undefined;
}

/** The frame running the Strata webview app (code-server nests it: iframe → active-frame). */
export async function strataFrame(timeoutMs, failOn) {
  return waitFor('the Strata webview', async () => {
    if (failOn) {
      const bad = (await toasts()).find((t) => failOn.test(t));
      if (bad) throw Object.assign(new Error(`notification: ${bad}`), { fatal: true });
    }
    for (const f of S.page.frames()) {
      const ok = await f.evaluate(() => !!document.getElementById('strata-root')).catch(() => false);
      if (ok) return f;
    }
    return null;
  }, timeoutMs, 500).catch(async (e) => {
    // Say what the window showed instead, so a failure on another machine can be read from the log.
    const input = S.page.locator('.quick-input-widget .quick-input-box input');
    const dialog = await input.isVisible().catch(() => false) ? await input.inputValue({ timeout: 1000 }).catch(() => '?') : null;
    await shot(`${S.prefix}-no-webview`);
    throw new Error(`${e.message}; quick input: ${dialog === null ? 'closed' : JSON.stringify(dialog)}; notifications: ${JSON.stringify(await toasts())}`);
  });
}

export async function toasts() {
  return S.page.locator('.notifications-toasts .notification-list-item-message').allInnerTexts().catch(() => []);
}

/** Waits for a notification matching `re`; a notification matching `failRe` fails at once. */
export async function waitToast(what, re, timeoutMs = 30000, failRe) {
  return waitFor(what, async () => {
    const all = await toasts();
    if (failRe) {
      const bad = all.find((t) => failRe.test(t));
      if (bad) throw Object.assign(new Error(`notification: ${bad}`), { fatal: true });
    }
    return all.find((t) => re.test(t));
  }, timeoutMs).catch(async (e) => {
    await shot(`${S.prefix}-toast-missing`);
    throw new Error(`${e.message}; notifications: ${JSON.stringify(await toasts())}`);
  });
}

export async function clearNotifications() {
  await runCommand('Notifications: Clear All Notifications');
  await waitFor('no notifications', async () => (await toasts()).length === 0, 5000).catch(() => {});
}

export async function strataTabs() {
  return S.page.locator('.tabs-container .tab', { hasText: 'Strata:' }).allInnerTexts().catch(() => []);
}

/** Sets workspace settings (.vscode/settings.json) and waits for VS Code to read them. */
export async function workspaceSettings(obj) {
  mkdirSync(path.join(S.ws, '.vscode'), { recursive: true });
  writeFileSync(path.join(S.ws, '.vscode/settings.json'), JSON.stringify(obj, null, 2));
  await sleep(3000);
}

export function loadAddon() {
  const addonPath = [path.join(repo, 'extension/dist/native/strata_addon.node'),
    path.join(buildDir, 'addon/Release/strata_addon.node')].find((p) => existsSync(p));
  return createRequire(import.meta.url)(addonPath);
}

/** Records `args` with the CLI into `out` (for profiles the tests open). */
export function record(out, args, opts = {}) {
  execFileSync(cli, ['record', '-o', out, '--', ...args], { stdio: 'ignore', timeout: 60000, ...opts });
  assert.ok(existsSync(out), `recorded ${out}`);
}

/** The flame graph's layout of a top-down view, as webview/src/model/flameModel.ts computes it
 *  (unzoomed): x0/x1 as fractions of the root, depth = row. */
export function layoutOf(cols) {
  const n = cols.parent.length;
  const x0 = new Float64Array(n), x1 = new Float64Array(n), depth = new Int32Array(n), cur = new Float64Array(n);
  x1[0] = 1;
  const scale = cols.inclusive[0] > 0 ? 1 / cols.inclusive[0] : 0;
  for (let i = 1; i < n; i++) {
    const p = cols.parent[i];
    depth[i] = depth[p] + 1;
    const start = cur[p] || x0[p];
    const stop = Math.min(start + Math.max(0, cols.inclusive[i]) * scale, x1[p]);
    x0[i] = start; x1[i] = Math.max(stop, start);
    cur[p] = x1[i];
  }
  return { x0, x1, depth };
}

/** Node i's frame as strings and numbers (the view's frame table entry). */
export function frameOf(cols, i) {
  const f = cols.frame[i], t = cols.frames;
  return { kind: t.kind[f], name: cols.strings[t.name[f]], file: cols.strings[t.file[f]], line: t.line[f] };
}

/** The widest node named `name` (optionally of a file), with its layout. */
export function findNode(cols, lay, name, fileRe) {
  let best = -1;
  for (let i = 1; i < cols.parent.length; i++) {
    const f = frameOf(cols, i);
    if (f.name !== name) continue;
    if (fileRe && !fileRe.test(f.file)) continue;
    if (best < 0 || lay.x1[i] - lay.x0[i] > lay.x1[best] - lay.x0[best]) best = i;
  }
  if (best < 0) return null;
  const f = frameOf(cols, best);
  return { id: best, name, file: f.file, line: f.line,
    x0: lay.x0[best], x1: lay.x1[best], depth: lay.depth[best] };
}

/** Scrolls the graph so the node's row is visible and returns its position in the stage. */
export async function nodePosition(frame, node) {
  const box = await frame.locator('.strata-stage').boundingBox();
  const top = node.depth * ROW;
  const scrollTop = await frame.evaluate(({ top, h, row }) => {
    const g = document.querySelector('.strata-graph');
    if (top + row > g.scrollTop + h || top < g.scrollTop) g.scrollTop = Math.max(0, top - h / 2);
    return g.scrollTop;
  }, { top, h: box.height, row: ROW });
  await sleep(100);
  return { x: Math.round(((node.x0 + node.x1) / 2) * box.width), y: Math.round(top - scrollTop + ROW / 2) };
}

export async function tooltipAt(frame, pos) {
  await frame.locator('.strata-stage').hover({ position: pos, timeout: 5000 });
  return waitFor('the tooltip', () => frame.evaluate(() => {
    const t = document.querySelector('.strata-tooltip');
    if (!t || t.hidden) return null;
    return { name: t.querySelector('.strata-tt-name')?.textContent ?? '', loc: t.querySelector('.strata-tt-loc')?.textContent ?? '' };
  }), 3000, 100);
}

/** Text of the terminal panel (DOM renderer, see baseSettings). */
export async function terminalText() {
  return S.page.locator('.terminal-wrapper.active .xterm-rows, .terminal .xterm-rows').allInnerTexts()
    .then((a) => a.join('\n')).catch(() => '');
}

/** Line-heat texts shown after the lines of the visible editors: VS Code renders a decoration's
 *  `after.contentText` as a CSS ::after `content` of a span in the line. */
export async function lineHeatTexts() {
  return S.page.evaluate(() => {
    const out = [];
    for (const span of document.querySelectorAll('.editor-group-container .view-lines span')) {
      const c = getComputedStyle(span, '::after').content;
      if (c && c !== 'none' && c !== 'normal' && c.includes('▮')) out.push(c.replace(/^"|"$/g, ''));
    }
    return out;
  });
}

/** The explorer's "Open Run (all processes)" on a folder, as a user does: the context menu on the
 *  folder's row. `focusFirst`: focus the Strata Processes view first (the extension's
 *  contributions in before the menu is opened). */
export async function openRunFromExplorer(name, { focusFirst = true } = {}) {
  if (focusFirst) {
    await runCommand('Focus on Strata Processes View');
    await sleep(2000);
  }
  const row = S.page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first();
  await row.waitFor({ timeout: 20000 });
  await row.click({ button: 'right' });
  const item = S.page.locator('.monaco-menu .action-label', { hasText: 'Open Run (all processes)' }).first();
  await item.waitFor({ state: 'visible', timeout: 10000 }).catch(async (e) => { await shot(`menu-${name}`); throw e; });
  await item.hover();
  await item.click();
  // Under load the menu can swallow the click while it is still being laid out: the hovered
  // item then takes Enter.
  await S.page.locator('.context-view .monaco-menu').waitFor({ state: 'detached', timeout: 5000 })
    .catch(() => S.page.keyboard.press('Enter'));
}

/** Hovers a timeline's stage at `pos` (a first move 1 px aside, so the pointer moves onto it)
 *  and reads the tooltip: its name, location, lane line and rows by header. */
export async function timelineTooltipAt(frame, stageSelector, pos) {
  const stage = frame.locator(stageSelector);
  await stage.hover({ position: { x: pos.x + 1, y: pos.y }, timeout: 5000 });
  await stage.hover({ position: pos, timeout: 5000 });
  return waitFor('the tooltip', () => frame.evaluate(() => {
    const t = document.querySelector('.strata-tooltip');
    if (!t || t.hidden) return null;
    const rows = {};
    for (const tr of t.querySelectorAll('tr')) rows[tr.querySelector('th')?.textContent ?? ''] = tr.querySelector('td')?.textContent ?? '';
    return { name: t.querySelector('.strata-tt-name')?.textContent ?? '', loc: t.querySelector('.strata-tt-loc')?.textContent ?? '',
      lane: t.querySelector('.strata-tt-module')?.textContent ?? '', rows };
  }), 5000, 100);
}
