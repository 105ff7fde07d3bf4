// End-to-end test of the flame graph's reading aids in a real VS Code (code-server), on a real
// profile from the H100 (test/fixtures/h100/real_models/resnet50_train.strata):
//   (v1) a Python program opens in the Python view (the interpreter's frames folded): the script's
//        <module> is the root's heaviest child, not _start; the legend names whose code each
//        colour is; "Python view" off asks the extension for every frame (_start is back, the
//        graph is deeper), on again for the Python view;
//   (v2) the wheel zooms at the pointer and a drag pans; the details pane (i) gets every metric of
//        the frame from the extension (addon nodeMetrics), attributes as mean / min / max;
//   (v3) the zoom and toggles come back when the tab is hidden and shown again;
//   (v4) on GPT-2 training (test/fixtures/h100/real_models/gpt2_train.strata, whose runtime marked
//        its cut stacks) truncated stacks are in the legend, red, and say so in the details;
//   (v5) a million-node profile (strata_synth_profile): the first paint holds only the part wider
//        than half a pixel, and its top frames are the whole view's; zooming into a frame whose
//        children were left out asks for them and draws them; a progress line while the bottom-up
//        view and a sandwich are built, gone after; the sandwich comes from the core; with no zoom,
//        the background fill asks for the widest frames' parts and puts them in place.
// Run: node --test test/e2e/viewer.test.mjs   (see harness.mjs for prerequisites and env)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import {
  S, buildDir, cli, extId, loadAddon, makeFolders, missingPrerequisites, openFileQuick, openThroughDialog, repo, runCommand, shot,
  skipReason, sleep, startSession, stopSession, strataFrame, waitFor,
} from './harness.mjs';

const FIXTURE = path.join(repo, 'test/fixtures/h100/real_models/resnet50_train.strata');
const TRUNCATED = path.join(repo, 'test/fixtures/h100/real_models/gpt2_train.strata');
const SYNTH = path.join(buildDir, 'bin/strata_synth_profile');
const BIG = 1_000_000;

describe('Strata flame graph: Python view, navigation, details (code-server)', { timeout: 300_000 }, () => {
  const missing = missingPrerequisites();
  const skip = skipReason(missing);
  let profile;
  let frame;

  before(async () => {
    if (skip) return;
    assert.deepEqual(missing, [], `prerequisites missing:\n  ${missing.join('\n  ')}`);
    makeFolders('viewer');
    symlinkSync(path.join(repo, 'extension'), path.join(S.ext, extId), 'dir');
    profile = path.join(S.ws, 'resnet50_train.strata');
    copyFileSync(FIXTURE, profile);
    copyFileSync(TRUNCATED, path.join(S.ws, 'gpt2_train.strata'));
    copyFileSync(path.join(repo, 'README.md'), path.join(S.ws, 'notes.md'));
    await startSession({ 'strata.cliPath': cli });
  });

  after(async () => { if (!skip) await stopSession(); });

  const viewOf = () => frame.evaluate(() => window.__strata?.view());

  async function openProfile(file) {
    await openThroughDialog('Strata: Open Profile', file);
    const f = await strataFrame(60000, /Strata: .*(not|cannot|failed)/);
    await waitFor('the profile drawn', () => f.evaluate(() => (window.__strata?.stats()?.instances ?? 0) > 0), 60000);
    return f;
  }

  test('(v1) the Python view by default, every frame on request', { skip }, async () => {
    frame = await openProfile(profile);
    const py = await viewOf();
    assert.equal(py.view, 'top-down');
    assert.equal(py.frameFilter, 'python', 'a Python program opens in the Python view');
    assert.equal(py.rootChildren[0], '<module>', `the script's module first: ${JSON.stringify(py.rootChildren)}`);
    assert.ok(!py.rootChildren.includes('_start'));
    assert.equal(await frame.locator('.strata-python-toggle').getAttribute('aria-pressed'), 'true');
    const legend = (await frame.locator('.strata-legend-item').allInnerTexts()).map((s) => s.trim());
    for (const c of ['Your code', 'Libraries', 'GPU']) assert.ok(legend.includes(c), `legend has ${c}: ${legend}`);
    assert.ok(!legend.includes('Interpreter'), 'no interpreter frame in the Python view');
    // Metrics offered as widths: additive ones only.
    const offered = await frame.locator('.strata-metric option').allInnerTexts();
    assert.ok(offered.includes('gpu_time') && offered.includes('cpu_time'), `${offered}`);
    for (const a of ['grid_size', 'registers_per_thread', 'theoretical_occupancy']) assert.ok(!offered.includes(a), `${a} is not a width`);
    await shot('v1-python-view');

    await frame.locator('.strata-python-toggle').click();
    const all = await waitFor('every frame', async () => { const v = await viewOf(); return v?.frameFilter === 'all' ? v : null; }, 60000);
    assert.ok(all.rootChildren.includes('_start'), `_start is back: ${JSON.stringify(all.rootChildren)}`);
    // Sizes of the whole views (a view over 50,000 nodes arrives as its part wider than half a pixel).
    assert.ok(all.viewNodes > 2 * py.viewNodes, `${all.viewNodes} nodes vs ${py.viewNodes}`);
    assert.ok((await frame.locator('.strata-legend-item').allInnerTexts()).some((s) => s.includes('Interpreter')));
    await shot('v1-all-frames');
    await frame.locator('.strata-python-toggle').click();
    await waitFor('the Python view again', async () => (await viewOf())?.frameFilter === 'python', 60000);
  });

  test('(v2) wheel zoom, drag pan, details with every metric', { skip }, async () => {
    const stage = frame.locator('.strata-graph:not([hidden]) .strata-stage').first();
    const box = await stage.boundingBox();
    await S.page.mouse.move(box.x + box.width * 0.3, box.y + 9);
    await S.page.mouse.wheel(0, -800);
    const z = await waitFor('zoomed by the wheel', async () => {
      const s = await frame.evaluate(() => window.__strata.stats());
      return s.v1 - s.v0 < 0.5 ? s : null;
    }, 10000);
    assert.ok(z.v0 < 0.3 && z.v1 > 0.3, `zoomed around the pointer: ${z.v0}..${z.v1}`);
    assert.equal(z.focus, 0);
    await S.page.mouse.move(box.x + box.width * 0.5, box.y + 9);
    await S.page.mouse.down();
    await S.page.mouse.move(box.x + box.width * 0.3, box.y + 9, { steps: 6 });
    await S.page.mouse.up();
    const p = await frame.evaluate(() => window.__strata.stats());
    assert.ok(p.v0 > z.v0, `panned: ${z.v0} → ${p.v0}`);
    await shot('v2-wheel-zoom');
    // The heaviest kernel by GPU time: its details carry launches and the launch configuration.
    await frame.locator('.strata-metric').selectOption('gpu_time');
    await waitFor('the gpu_time view', async () => (await viewOf())?.metric === 'gpu_time', 60000);
    const kernel = await frame.evaluate(() => {
      // Zoom to the widest kernel (kind 5) through the model.
      return window.__strata.zoomToKernel();
    });
    assert.ok(kernel >= 0, 'a kernel node');
    await frame.locator('.strata-details').waitFor({ state: 'visible', timeout: 10000 });
    await waitFor('every metric of the kernel', async () => (await frame.locator('.strata-details-metrics tr[data-metric="grid_size"]').count()) > 0, 30000);
    const grid = await frame.locator('.strata-details-metrics tr[data-metric="grid_size"] td').allInnerTexts();
    assert.equal(grid[1], '', 'grid size has no total');
    assert.match(grid[4], /blocks/);
    const gpu = await frame.locator('.strata-details-metrics tr[data-metric="gpu_time"] td').allInnerTexts();
    assert.match(gpu[1], /s$/);
    assert.ok(Number(gpu[3].replace(/,/g, '')) >= 1, `launches: ${gpu[3]}`);
    await shot('v2-details');
    assert.equal((await frame.evaluate(() => window.__strata.stats())).focus, kernel, 'still on the kernel');
    assert.match(await frame.locator('.strata-details').innerText(), /GPU kernel/);
  });

  test('(v3) zoom and toggles come back when the tab is shown again', { skip }, async () => {
    const before = await frame.evaluate(() => window.__strata.stats());
    assert.ok(before.focus > 0);
    await openFileQuick('notes.md');
    await sleep(1500);
    await runCommand('View: Open Previous Editor');
    frame = await strataFrame(60000);
    const after = await waitFor('the zoom restored', async () => {
      const s = await frame.evaluate(() => window.__strata?.stats()).catch(() => null);
      return s && s.instances > 0 && s.focus > 0 ? s : null;
    }, 60000).catch(async (e) => { await shot('v3-restore'); throw e; });
    const v = await viewOf();
    assert.equal(v.frameFilter, 'python');
    assert.equal(await frame.locator('.strata-metric').inputValue(), 'gpu_time');
    assert.equal(after.nodes, before.nodes);
    await shot('v3-restored');
  });
  test('(v4) truncated stacks are marked: legend, colour, details', { skip }, async () => {
    await runCommand('View: Close All Editors');
    await waitFor('no Strata tabs', async () => (await S.page.locator('.tabs-container .tab', { hasText: 'Strata:' }).count()) === 0, 10000);
    const f = await openProfile(path.join(S.ws, 'gpt2_train.strata'));
    const legend = (await f.locator('.strata-legend-item').allInnerTexts()).map((s) => s.trim());
    assert.ok(legend.includes('Truncated stack'), `legend: ${legend}`);
    const node = await f.evaluate(() => window.__strata.zoomToTruncated());
    assert.ok(node > 0, 'a truncated stack marker in the Python view');
    await f.locator('.strata-details').waitFor({ state: 'visible', timeout: 10000 });
    assert.match(await f.locator('.strata-details-name').innerText(), /^<stack truncated/);
    const crumbs = await f.locator('.strata-crumb-step').allInnerTexts();
    assert.match(crumbs.at(-1), /^<stack truncated: /, `the marker's label is its whole name: ${crumbs.at(-1)}`);
    assert.match(await f.locator('.strata-details-truncated').innerText(), /truncated here: the frames that called it are unknown/);
    await shot('v4-truncated');
  });

  test('(v5) a million nodes: the first part, parts on zoom, progress while views build', { skip }, async () => {
    assert.ok(existsSync(SYNTH), `strata_synth_profile not built (${SYNTH})`);
    const big = path.join(S.ws, 'big.strata');
    execFileSync(SYNTH, ['--shape', 'wide', '--nodes', String(BIG), '-o', big], { stdio: 'ignore' });
    // The whole view's top frames, from the addon (the core).
    const addon = loadAddon();
    const p = await addon.open(big);
    const whole = await p.view('top-down', 0);
    const top = [];
    for (let i = 1; i < whole.parent.length; i++) if (whole.parent[i] === 0) top.push(i);
    top.sort((a, b) => whole.inclusive[b] - whole.inclusive[a]);
    const topNames = top.slice(0, 5).map((i) => whole.strings[whole.frames.name[whole.frame[i]]]);
    p.close();
    await runCommand('View: Close All Editors');
    const f = await openProfile(big);
    const v = await waitFor('the first part', async () => { const x = await f.evaluate(() => window.__strata.view()); return x?.viewNodes === BIG ? x : null; }, 60000);
    assert.equal(v.part, true, 'a part of the view, not all of it');
    assert.ok(v.nodes < 50_000, `${v.nodes} nodes sent first`);
    assert.deepEqual(v.rootChildren, topNames.map((n) => n), 'the top frames are the whole view\'s');
    await shot('v5-first-part');
    // The background fill: with no zoom, the parts of the widest frames are asked for and put in
    // place (the host answers them from the view in parts or, once filled, from the whole view).
    // A part received can hold only nodes already here (its frame's first part came with the
    // view): wait for one that adds.
    await waitFor('the background fill to add nodes', async () => {
      const x = await f.evaluate(() => window.__strata.parts());
      return x.filled > 0 && x.received > 0 && (await f.evaluate(() => window.__strata.view())).nodes > v.nodes;
    }, 60000).catch(async (e) => {
      throw new Error(`${e.message}: parts ${JSON.stringify(await f.evaluate(() => window.__strata.parts()))}, nodes ${(await f.evaluate(() => window.__strata.view())).nodes} (first part ${v.nodes})`);
    });
    assert.deepEqual((await f.evaluate(() => window.__strata.view())).rootChildren, v.rootChildren, 'nothing drawn moved');
    // Zoom into a frame (2% of the time at most: 50 times wider zoomed) whose children were left
    // out: its part is asked for and drawn.
    const before = await f.evaluate(() => window.__strata.parts());
    const z = await f.evaluate(() => window.__strata.zoomToLeftOut(0.02));
    assert.ok(z, 'a frame with children left out');
    const filled = await waitFor('its part drawn', async () => {
      const fo = await f.evaluate(() => window.__strata.focused());
      return fo.node === z.node && fo.subtree > z.subtree ? fo : null;
    }, 30000).catch(async (e) => {
      await shot('v5-zoom');
      throw new Error(`${e.message}: zoomed into ${JSON.stringify(z)}, now ${JSON.stringify(await f.evaluate(() => window.__strata.focused()))}, parts ${JSON.stringify(await f.evaluate(() => window.__strata.parts()))}`);
    });
    const after = await f.evaluate(() => window.__strata.parts());
    assert.ok(after.received > before.received, `parts: ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
    assert.ok((await f.evaluate(() => window.__strata.view())).nodes > v.nodes);
    assert.ok((await f.evaluate(() => window.__strata.stats())).focus > 0, 'still zoomed in');
    await shot('v5-zoomed');
    assert.ok(filled.subtree > z.subtree, `${z.subtree} → ${filled.subtree} nodes under the frame`);
    // Progress while the bottom-up view is built, gone once it is drawn.
    const shown = (await f.evaluate(() => window.__strata.progress())).shown;
    await f.locator('button[data-view="bottom-up"]').click();
    await waitFor('the bottom-up view', async () => (await f.evaluate(() => window.__strata.view()))?.view === 'bottom-up', 60000);
    const pr = await waitFor('progress shown and gone', async () => {
      const x = await f.evaluate(() => window.__strata.progress());
      return x.shown > shown && !x.visible ? x : null;
    }, 30000);
    assert.equal(pr.visible, false);
    // The sandwich of a bottom-up frame, from the core, with progress too.
    await f.evaluate(() => window.__strata.zoomTo('function_number_'));
    await S.page.keyboard.press('s');
    const sw = await waitFor('the sandwich', () => f.evaluate(() => window.__strata.sandwich()), 60000);
    assert.match(sw.title, /^Sandwich of function_number_\d+ — \d+ call sites?/);
    assert.ok(sw.callees > 0 && sw.callers > 0);
    await waitFor('progress gone', async () => !(await f.evaluate(() => window.__strata.progress())).visible, 30000);
    assert.ok((await f.evaluate(() => window.__strata.progress())).shown > pr.shown, 'progress shown for the sandwich');
    await shot('v5-sandwich');
  });
});
