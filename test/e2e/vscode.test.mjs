// End-to-end tests of the Strata extension in a real VS Code (code-server 4.100 = VS Code
// 1.100) driven through Chromium with playwright-core:
//   (a) "Strata: Run and Profile" on examples/train_loop.py → the flame graph webview appears,
//       its WebGL canvas is drawn, and the example's frames (train, forward, matmul) are in it;
//   (b) Ctrl+click on a Python frame and on a C++ frame → the editor shows that file with the
//       cursor on the frame's line (tab title and "Ln N" in the status bar);
//   (0) the `strata.openOnStartup` setting (what scripts/demo.sh uses) opens a recorded profile
//       in the viewer as VS Code starts;
//   (c) "Strata: Open Profile" on a file that is not a profile → a notification with the
//       core's one-line error.
// Env: STRATA_BUILD_DIR (default build), STRATA_E2E_KEEP=1 keeps the temp folder, STRATA_E2E_ALLOW_SKIP=1.
// Needs: scripts/install-code-server.sh (→ .tools/code-server), the native build (CLI, runtime,
// example library: STRATA_BUILD_DIR, default build/), the addon (native/addon/build.sh), the
// webview and extension bundles. Screenshots: test/e2e/output/. Shared helpers: harness.mjs.
// Run: node --test test/e2e/
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  S, answerFileDialog, activeTab, clearNotifications, cli, extId, findNode, frameOf, layoutOf, loadAddon, makeFolders, missingPrerequisites,
  nodePosition, openFileQuick, record, repo, runCommand, shot, skipReason, sleep, startSession, statusLine, stopSession,
  strataFrame, strataTabs, toasts, tooltipAt, waitFor, workspaceSettings,
} from './harness.mjs';

let startupProfile, page, ws;

describe('Strata in VS Code (code-server)', { timeout: 600_000 }, () => {
  const missing = missingPrerequisites();
  // Missing parts fail the suite (scripts/test.sh builds them first); STRATA_E2E_ALLOW_SKIP=1 skips instead.
  const skip = skipReason(missing);
  let frames;   // scan result of (a)

  before(async () => {
    if (skip) return;
    assert.deepEqual(missing, [], `prerequisites missing:\n  ${missing.join('\n  ')}`);
    makeFolders('vscode');
    ws = S.ws;
    // The demo's path: a profile recorded by the CLI, shown when VS Code starts.
    startupProfile = path.join(S.tmp, 'startup.strata');
    record(startupProfile, ['/usr/bin/python3', '-c',
      'def startup_work(n):\n    return sum(i * i for i in range(n))\nfor _ in range(40): startup_work(100000)']);
    // The unpacked extension, as VS Code finds an installed one: publisher.name-version/.
    symlinkSync(path.join(repo, 'extension'), path.join(S.ext, extId), 'dir');
    // The workspace: a copy of examples/ (the example's native library comes from the build).
    cpSync(path.join(repo, 'examples'), ws, { recursive: true });
    writeFileSync(path.join(ws, 'not-a-profile.strata'), 'this is not a Strata profile\n');
    // Workspace settings exist from the start, so later edits are changes VS Code watches.
    mkdirSync(path.join(ws, '.vscode'), { recursive: true });
    writeFileSync(path.join(ws, '.vscode/settings.json'), '{}\n');
    // Targets of (d) and (e): a long run to cancel, a run that fails with exit code 3.
    const busy = ['def spin(n):', '    s = 0', '    for i in range(n):', '        s += i % 7', '    return s', ''];
    writeFileSync(path.join(ws, 'long_run.py'), [...busy, 'import time', 't0 = time.time()',
      'while time.time() - t0 < 60:', '    spin(100000)', ''].join('\n'));
    writeFileSync(path.join(ws, 'fails.py'), [...busy, 'import sys', 'for _ in range(30):', '    spin(100000)',
      'sys.exit(3)', ''].join('\n'));
    await startSession({ 'strata.cliPath': cli, 'strata.openOnStartup': startupProfile });
    page = S.page;
  });

  after(async () => { if (!skip) await stopSession(); });

  test('(0) strata.openOnStartup opens the profile as VS Code starts', { skip }, async () => {
    const frame = await strataFrame(60000);
    const stats = await waitFor('the startup profile in the webview', () => frame.evaluate(() => {
      const s = window.__strata?.stats();
      return s && s.nodes > 1 && s.instances > 0 ? s : null;
    }), 30000);
    assert.equal(stats.webgl, true);
    assert.ok((await strataTabs()).some((t) => t.includes('startup.strata')), `tabs: ${await strataTabs()}`);
    await shot('0-startup');
    // Later tests look for "the" Strata webview: close this one.
    await runCommand('View: Close All Editors');
    await waitFor('the startup viewer closed', async () => (await strataTabs()).length === 0, 10000);
  });

  test('(a) Run and Profile shows the flame graph of the example', { skip }, async () => {
    try {
      await runA();
    } catch (e) {
      await shot('a-failed');
      throw new Error(`${e.message}\nnotifications: ${JSON.stringify(await toasts())}`);
    }
  });

  async function runA() {
    await openFileQuick('train_loop.py');
    await runCommand('Strata: Run and Profile');
    // The progress notification appears while strata records.
    const frame = await strataFrame(180000, /Strata: (no profile|.*not found|.*could not)/).catch(async (e) => {
      await shot('a-no-webview');
      throw new Error(`${e.message}\nnotifications: ${JSON.stringify(await toasts())}`);
    });
    await waitFor('the profile in the webview', () => frame.evaluate(() => {
      const s = window.__strata?.stats();
      return s && s.nodes > 1 && s.frames > 0 && s.instances > 0 ? s : null;
    }), 60000);
    const failed = (await toasts()).find((t) => /Strata: the program/.test(t));
    assert.ok(!failed, `the example ran to completion (${failed})`);
    const stats = await frame.evaluate(() => window.__strata.stats());
    assert.equal(stats.webgl, true, 'WebGL is available in the webview');
    assert.ok(stats.instances > 1, `rectangles drawn: ${stats.instances}`);
    assert.ok(stats.labels > 0, `labels drawn: ${stats.labels}`);
    assert.equal(await frame.evaluate(() => window.__strata.message()), '', 'no error banner');
    // The WebGL canvas has pixels in it (a screenshot of the canvas is not one flat colour).
    const png = await frame.locator('canvas.strata-gl').screenshot();
    assert.ok(png.length > 2000, `the canvas screenshot has content (${png.length} bytes)`);
    // The panel's tab: "Strata: <profile>".
    const tab = await activeTab('Strata:', 10000);
    assert.match(tab, /\.strata/);
    // 'requestView' round trip: Bottom-up (the host answers with that view), then Top-down.
    for (const view of ['bottom-up', 'top-down']) {
      await frame.locator(`button[data-view="${view}"]`).click();
      await waitFor(`the ${view} view`, async () =>
        (await frame.locator(`button[data-view="${view}"]`).getAttribute('aria-pressed')) === 'true', 20000);
      if (view === 'bottom-up') { await sleep(300); await shot('a-bottom-up'); }
    }
    await sleep(300);
    // Where the example's frames are, from the same profile through the addon (the core),
    // checked against what the webview shows under the mouse.
    const dir = path.join(ws, '.strata');
    const file = readdirSync(dir).filter((f) => /^train_loop-.*\.strata$/.test(f)).sort().pop();
    assert.ok(file, `a profile in ${dir}`);
    const profile = await loadAddon().open(path.join(dir, file));
    const cols = await profile.view('top-down', 0);
    profile.close();
    assert.equal(stats.nodes, cols.parent.length, 'the webview shows every node of the view');
    const lay = layoutOf(cols);
    frames = new Map();
    for (const [name, fileRe] of [['train', /train_loop\.py$/], ['forward', /train_loop\.py$/], ['matmul', /matrix_ops\.cpp$/]]) {
      const node = findNode(cols, lay, name, fileRe);
      const names = [...new Set([...cols.frame.keys()].map((i) => frameOf(cols, i).name))];
      assert.ok(node, `frame "${name}" (${fileRe}) is in the profile (frames: ${names.slice(0, 40).join(', ')})`);
      const pos = await nodePosition(frame, node);
      const tip = await tooltipAt(frame, pos);
      assert.equal(tip.name, name, `the flame graph shows "${name}" at ${JSON.stringify(pos)}`);
      assert.ok(tip.loc.endsWith(`${path.basename(node.file)}:${node.line}`) || tip.loc === `${node.file}:${node.line}`,
        `tooltip location "${tip.loc}" is ${node.file}:${node.line}`);
      frames.set(name, { ...node, pos });
      await shot(`a-hover-${name}`);
    }
    await frame.evaluate(() => { document.querySelector('.strata-graph').scrollTop = 0; });
    await shot('a-flame-graph');
  }

  test('(b) Ctrl+click on a frame opens its source at the line', { skip }, async () => {
    assert.ok(frames, 'test (a) found the frames');
    const cases = [
      { name: 'forward', file: 'train_loop.py' },
      { name: 'matmul', file: 'matrix_ops.cpp' },
    ];
    for (const c of cases) {
      const f = frames.get(c.name);
      const want = f.line;
      assert.ok(want > 0, `${c.name} has a line (${f.file}:${f.line})`);
      const frame = await strataFrame(20000);
      const pos = await nodePosition(frame, f);
      await frame.locator('.strata-stage').click({ position: pos, modifiers: ['Control'] });
      const tab = await activeTab(c.file, 20000).catch(async (e) => {
        await shot(`b-${c.name}-failed`);
        throw new Error(`${e.message}; notifications: ${JSON.stringify(await toasts())}`);
      });
      assert.ok(tab.includes(c.file));
      const line = await waitFor(`cursor at line ${want}`, async () => ((await statusLine()) === want ? want : null), 10000)
        .catch(async (e) => { await shot(`b-${c.name}-line`); throw new Error(`${e.message} (status bar: Ln ${await statusLine()})`); });
      assert.equal(line, want);
      // The line is highlighted (whole-line decoration) for a few seconds: see the screenshot.
      await shot(`b-source-${c.name}`);
    }
  });

  test('(c) Open Profile on a non-profile file shows the one-line error', { skip }, async () => {
    const bad = path.join(ws, 'not-a-profile.strata');
    // The message the core gives for this file (the addon itself, outside VS Code).
    const addon = loadAddon();
    const expected = await addon.open(bad).then(() => null, (e) => e.message);
    assert.ok(expected, 'the core rejects the file');
    assert.ok(!expected.includes('\n'), 'the message is one line');

    await runCommand('Strata: Open Profile');
    await answerFileDialog(bad);
    const toast = await waitFor('the error notification', async () => {
      const all = await toasts();
      return all.find((t) => t.includes(expected)) ?? null;
    }, 20000).catch(async (e) => {
      await shot('c-no-notification');
      throw new Error(`${e.message}; notifications: ${JSON.stringify(await toasts())}`);
    });
    await shot('c-open-error');
    assert.match(toast, /Strata/);
    assert.ok(toast.includes(expected), `notification "${toast}" carries "${expected}"`);
  });
  test('(d) Cancel stops the run and opens the profile so far', { skip }, async () => {
    await clearNotifications();
    await workspaceSettings({ 'strata.command': ['python3', '${workspaceFolder}/long_run.py'] });
    const before = (await strataTabs()).length;
    await runCommand('Strata: Run and Profile');
    const progress = page.locator('.notifications-toasts .notification-toast', { hasText: 'profiling long_run.py' });
    await progress.waitFor({ state: 'visible', timeout: 20000 }).catch(async (e) => {
      await shot('d-no-progress');
      throw new Error(`${e.message}; notifications: ${JSON.stringify(await toasts())}`);
    });
    await sleep(4000);   // let it record for a while
    await shot('d-progress');
    try {
      await progress.hover({ timeout: 5000 });
      await progress.locator('a.monaco-button, .monaco-button', { hasText: 'Cancel' }).first().click({ timeout: 5000 });
    } catch (e) {
      await shot('d-no-cancel');
      throw new Error(`the progress notification's Cancel button: ${e.message.split('\n')[0]}; notifications: ${JSON.stringify(await toasts())}`);
    }
    await waitFor('a viewer for the cancelled run', async () => (await strataTabs()).some((t) => t.includes('long_run')), 30000)
      .catch(async (e) => { await shot('d-failed'); throw new Error(`${e.message}; notifications: ${JSON.stringify(await toasts())}`); });
    assert.ok((await strataTabs()).length > before);
    const note = await waitFor('the "stopped" notification', async () => (await toasts()).find((t) => /profiling was stopped/.test(t)), 15000);
    assert.match(note, /profile covers the run until then/);
    const frame = await strataFrame(20000);
    await waitFor('the cancelled profile drawn', () => frame.evaluate(() => {
      const st = window.__strata?.stats();
      return st && st.nodes > 1 && st.instances > 0;
    }), 30000);
    await shot('d-cancelled');
  });

  test('(e) a failing target: the viewer opens and the exit code is reported', { skip }, async () => {
    await clearNotifications();
    await workspaceSettings({ 'strata.command': 'python3 fails.py' });
    await runCommand('Strata: Run and Profile');
    const note = await waitFor('the exit notification', async () => {
      const all = await toasts();
      const bad = all.find((t) => /no profile was written/.test(t));
      if (bad) throw Object.assign(new Error(`notification: ${bad}`), { fatal: true });
      return all.find((t) => /exited with code 3/.test(t));
    }, 120000)
      .catch(async (e) => { await shot('e-failed'); throw new Error(`${e.message}; notifications: ${JSON.stringify(await toasts())}`); });
    assert.match(note, /Strata: the program exited with code 3\. The profile was opened\./);
    await waitFor('a viewer for fails.py', async () => (await strataTabs()).some((t) => t.includes('fails-')), 20000);
    await shot('e-exit-code');
    await workspaceSettings({});
  });
});
