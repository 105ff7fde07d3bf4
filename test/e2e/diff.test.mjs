// End-to-end test of two runs compared in a real VS Code (code-server): "Strata: Compare with…"
// on the real H100 pair of one workload before and after an optimization (advanced indexing,
// then index_select: test/fixtures/h100/analyzers/index_backward*.strata) opens the diff mode:
// B's flame graph drawn, coloured by change; the table's first row is the changed line (the
// scatter backward of weight[idx], index_backward.py:24, gone), the second index_select's
// (line 22, new); a click on a row opens its line. Two unrelated profiles: one notification, no
// panel.
// Run: node --test test/e2e/diff.test.mjs   (see harness.mjs for prerequisites and env)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import {
  S, answerFileDialog, activeTab, buildDir, cli, clearNotifications, entry, extId, makeFolders, pickQuick, repo, runCommand, shot,
  startSession, statusLine, stopSession, strataTabs, toasts, waitFor, waitToast,
} from './harness.mjs';

const FIX = path.join(repo, 'test/fixtures/h100');
const synth = path.join(buildDir, 'bin/strata_synth_profile');

function missing() {
  return [
    [entry, 'code-server: bash scripts/install-code-server.sh'],
    [path.join(repo, 'extension/dist/native/strata_addon.node'), 'the addon: bash native/addon/build.sh && npm run build -w extension'],
    [path.join(repo, 'extension/dist/extension.js'), 'npm run build -w extension'],
    [path.join(repo, 'extension/dist/webview/webview.js'), 'npm run build -w webview && npm run build -w extension'],
    [synth, 'cmake --build build --target strata_synth_profile'],
  ].filter(([p]) => !existsSync(p)).map(([p, how]) => `${p} (${how})`);
}

/** The frame whose webview is in diff mode, once its table and graph are drawn. */
async function diffFrame() {
  return waitFor('the diff webview', async () => {
    const bad = (await toasts()).find((t) => /Strata: cannot compare/.test(t));
    if (bad) throw Object.assign(new Error(`notification: ${bad}`), { fatal: true });
    for (const f of S.page.frames()) {
      const d = await f.evaluate(() => window.__strata?.diff?.() ?? null).catch(() => null);
      if (d && d.rows.length > 0 && d.instances > 0) return { frame: f, diff: d };
    }
    return null;
  }, 90000, 500).catch(async (e) => { await shot('diff-no-panel'); throw e; });
}

describe('Strata diff mode (code-server)', { timeout: 300_000 }, () => {
  const miss = missing();
  const skip = miss.length > 0 && process.env.STRATA_E2E_ALLOW_SKIP === '1' ? `missing: ${miss.join('; ')}` : false;
  let before_, after_, source;

  before(async () => {
    if (skip) return;
    assert.deepEqual(miss, [], `prerequisites missing:\n  ${miss.join('\n  ')}`);
    makeFolders('diff');
    symlinkSync(path.join(repo, 'extension'), path.join(S.ext, extId), 'dir');
    mkdirSync(path.join(S.ws, 'runs'), { recursive: true });
    before_ = path.join(S.ws, 'runs/index_backward.strata');
    after_ = path.join(S.ws, 'runs/index_backward_twin.strata');
    copyFileSync(path.join(FIX, 'analyzers/index_backward.strata'), before_);
    copyFileSync(path.join(FIX, 'analyzers/index_backward_twin.strata'), after_);
    // The workload's source in the workspace: the recorded path is the H100's.
    source = path.join(S.ws, 'index_backward.py');
    copyFileSync(path.join(repo, 'test/analyzers/workloads/index_backward.py'), source);
    await startSession({ 'strata.cliPath': cli });
  });

  after(async () => { if (!skip) await stopSession(); });

  test('(d1) Compare with…: B coloured by change, the changed line first, a row opens its line', { skip }, async () => {
    await runCommand('Strata: Compare with…');
    await answerFileDialog(after_);    // B: no viewer is open, so the command asks for it first
    await answerFileDialog(before_);   // A: the run before
    await pickQuick('gpu_time');
    const { frame, diff } = await diffFrame();
    assert.ok(diff.nodes > 1, `B's view drawn (${diff.nodes} nodes)`);
    const [first, second] = diff.rows;
    assert.match(first.file, /index_backward\.py$/, JSON.stringify(first));
    assert.equal(first.line, 24, `the changed line first: ${JSON.stringify(first)}`);
    assert.ok(first.change < 0, 'the scatter backward is gone');
    assert.equal(first.match, 'only in A');
    assert.equal(second.line, 22, `index_select's line next: ${JSON.stringify(second)}`);
    assert.ok(second.change > 0);

    // The graph is coloured by change: a frame only B has is drawn in its own hue, not by code.
    const legend = await frame.evaluate(() => [...document.querySelectorAll('.strata-diff-legend')].map((e) => e.textContent).join(' '));
    assert.match(legend, /Grew.*Shrank.*Only in B/);
    const kernels = await frame.evaluate(() => document.querySelector('.strata-diff-kernels')?.textContent ?? '');
    assert.match(kernels, /vanished[^]*indexing_backward_kernel/);

    await frame.locator('.strata-diff-row').first().click();
    await activeTab('index_backward.py', 20000);
    await waitFor('cursor at line 24', async () => (await statusLine()) === 24, 10000);
    assert.ok((await strataTabs()).some((t) => /index_backward_twin\.strata vs index_backward\.strata/.test(t)), `tabs: ${await strataTabs()}`);
  });

  test('(d2) two unrelated profiles: one notification, no panel', { skip }, async () => {
    await runCommand('View: Close All Editors');
    await clearNotifications();
    const other = path.join(S.ws, 'runs/py312_split.strata');
    copyFileSync(path.join(FIX, 'py312_split.strata'), other);
    await runCommand('Strata: Compare with…');
    await answerFileDialog(after_);
    await answerFileDialog(other);
    // A metric pick only when the two share several additive metrics.
    await S.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'cpu_time' }).first().click({ timeout: 5000 }).catch(() => {});
    const t = await waitToast('the refusal', /Strata: cannot compare: no call path with cpu_time is common to both profiles/);
    assert.equal(t.split('\n')[0].includes('not two runs of one program'), true, t);
    assert.equal((await strataTabs()).filter((x) => / vs /.test(x)).length, 0);
  });

  test("(d3) a large pair: B's view in parts, a row's node asked for with its path, parts answered", { skip }, async () => {
    await runCommand('View: Close All Editors');
    await clearNotifications();
    const [a, b] = [0, 1].map((variant) => {
      const out = path.join(S.ws, `runs/large-${variant ? 'after' : 'before'}.strata`);
      execFileSync(synth, ['--shape', 'wide', '--nodes', '300000', '-o', out, ...(variant ? ['--variant', '1'] : [])]);
      return out;
    });
    await runCommand('Strata: Compare with…');
    await answerFileDialog(b);
    await answerFileDialog(a);
    const { frame, diff } = await diffFrame();
    assert.equal(diff.part, true, 'B\'s view in parts');
    assert.equal(diff.viewNodes, 300000);
    // The first part alone: the background fill may already have added parts (up to 100,000 nodes).
    assert.ok(diff.firstNodes > 0 && diff.firstNodes < 20000, `the first part: ${diff.firstNodes} nodes`);
    assert.ok(diff.nodes < diff.viewNodes, `${diff.nodes} of ${diff.viewNodes} nodes held`);
    const row = diff.rows.find((r) => r.node > 0);
    assert.ok(row, JSON.stringify(diff.rows.slice(0, 3)));
    const before = diff.parts.received;
    const index = diff.rows.indexOf(row);
    await frame.locator('.strata-diff-row').nth(index).click();
    const zoomed = await waitFor('the row\'s node zoomed to', async () => {
      const d = await frame.evaluate(() => window.__strata.diff());
      return d.focused?.node === row.node ? d : null;
    }, 30000).catch(async (e) => { await shot('diff-large-row'); throw e; });
    assert.ok(zoomed.parts.received > before, 'its path came in');
    assert.equal(zoomed.focused.name, row.name);
    // The graph's own requests (the fill, zooms) are answered by the extension: it asked for
    // parts, and besides the path at least one came in. (Not "two more after the zoom": on an
    // idle machine the background fill had finished before it, and the zoom needed only the path.)
    await waitFor('parts answered', async () => {
      const p = await frame.evaluate(() => window.__strata.diff().parts);
      return p.requested > 0 && p.received >= 2 ? p : null;
    }, 30000);
  });
});
