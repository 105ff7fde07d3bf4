// End-to-end test of the in-kernel region timeline (issue 7 part 5) in a real VS Code
// (code-server): "Strata: Open Region Trace" on an H100 region buffer decodes it with the addon and
// shows the timeline (every lane a row); hover → a tooltip with the region's replayed and raw
// duration; click → the marker's source line (found in the workspace's kernels, or given as
// `@file:line` in a names file); "Export Chrome Trace" writes the Chrome trace and says where;
// a file that is not a region buffer → one clear notification, no panel. A profile recorded with
// `strata record --regions` (the H100 fixture, 3 captured launches): Open Region Trace asks which
// launch, and the flame graph's "Region timeline" on the kernel does the same. The overlap analysis
// (critical path and bubbles drawn, its verdict, its finding in the Problems view) on CUDA markers
// and on a Triton kernel's Proton trace, whose finding lands on the kernel's `enter_scope` line.
// Run: node --test test/e2e/regions.test.mjs   (see harness.mjs for prerequisites and env)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import {
  S, answerFileDialog, activeTab, cli, clearNotifications, entry, extId, makeFolders, openThroughDialog, repo, runCommand, shot, sleep, timelineTooltipAt,
  startSession, statusLine, stopSession, strataFrame, toasts, waitFor, waitToast,
} from './harness.mjs';

const FIX = path.join(repo, 'test/fixtures/h100/regions');
const KERNELS = path.join(repo, 'test/regions/kernels.cuh');
const GLUON = path.join(repo, 'test/proton/attention_ws_gluon.py');

/** This test needs no runtime or example: the addon, the CLI (expected values), code-server and
 *  the bundles. */
function missing() {
  return [
    [entry, 'code-server: bash scripts/install-code-server.sh'],
    [cli, 'the strata CLI: scripts/build.sh'],
    [path.join(repo, 'extension/dist/native/strata_addon.node'), 'the addon: bash native/addon/build.sh && npm run build -w extension'],
    [path.join(repo, 'extension/dist/extension.js'), 'npm run build -w extension'],
    [path.join(repo, 'extension/dist/webview/webview.js'), 'npm run build -w webview && npm run build -w extension'],
  ].filter(([p]) => !existsSync(p)).map(([p, how]) => `${p} (${how})`);
}

/** Opens `file` through the command and its file dialog (code-server's simple dialog). */
async function openTrace(file) {
  await openThroughDialog('Strata: Open Region Trace', file);
}

/** The timeline webview once it has drawn `intervals` intervals. */
async function timelineFrame(intervals) {
  const frame = await strataFrame(60000, /Strata: .*(not|bad_|cannot|failed)/);
  const stats = await waitFor('the timeline drawn', () => frame.evaluate(() => {
    const s = window.__strata?.timeline?.();
    return s && s.drawn > 0 && s.frames > 0 ? s : null;
  }), 30000).catch(async (e) => { await shot('regions-no-timeline'); throw e; });
  if (intervals !== undefined) assert.equal(stats.intervals, intervals);
  return { frame, stats };
}

/** The overlap analysis drawn on the timeline (critical path and bubble marks) and its verdict. */
async function overlapMarks(frame, name) {
  return waitFor('the overlap marks', () => frame.evaluate(() => {
    const g = document.querySelector('[data-marks]');
    const marks = Number(g?.getAttribute('data-marks') ?? 0);
    return marks > 0 ? { marks, verdict: document.querySelector('.strata-overlap-summary')?.textContent ?? '' } : null;
  }), 15000).catch(async (e) => { await shot(`${name}-no-marks`); throw e; });
}

/** The Problems view's row of the critical-path finding on `region` (its text ends "[Ln N, Col 1]"). */
async function criticalPathProblem(region, name) {
  await runCommand('View: Focus Problems (Errors, Warnings, Infos)');
  const wanted = new RegExp(`\`${region}\`.*critical path`);
  const rows = await waitFor('the critical-path problem', async () => {
    for (const tw of await S.page.locator('.markers-panel .monaco-tl-twistie.collapsible.collapsed').all()) await tw.click().catch(() => {});
    const r = await S.page.locator('.markers-panel .monaco-list-row').allInnerTexts();
    return r.some((x) => wanted.test(x)) ? r : null;
  }, 30000).catch(async (e) => { await shot(`${name}-no-problem`); throw e; });
  return rows.find((x) => wanted.test(x));
}

describe('Strata region timeline (code-server)', { timeout: 300_000 }, () => {
  const miss = missing();
  const skip = miss.length > 0 && process.env.STRATA_E2E_ALLOW_SKIP === '1' ? `missing: ${miss.join('; ')}` : false;
  let traces, kernels;
  const lineOf = (needle) => readFileSync(KERNELS, 'utf8').split('\n').findIndex((l) => l.includes(needle)) + 1;

  before(async () => {
    if (skip) return;
    assert.deepEqual(miss, [], `prerequisites missing:\n  ${miss.join('\n  ')}`);
    makeFolders('regions');
    symlinkSync(path.join(repo, 'extension'), path.join(S.ext, extId), 'dir');
    // The kernels that recorded the fixtures, as the workspace's source; the buffers beside them.
    mkdirSync(path.join(S.ws, 'src'), { recursive: true });
    kernels = path.join(S.ws, 'src/kernels.cuh');
    copyFileSync(KERNELS, kernels);
    traces = path.join(S.ws, 'traces');
    mkdirSync(traces, { recursive: true });
    // calibration.bin beside the buffers: the CLI replays with the measured cost per record.
    for (const f of ['gemm_nested_loop.bin', 'gemm_nested_loop.json', 'warpspec.bin', 'calibration.bin']) copyFileSync(path.join(FIX, f), path.join(traces, f));
    // warpspec with a names file that places "mma" explicitly (a line the marker is not on).
    writeFileSync(path.join(traces, 'warpspec.names'), '# names of the warp-specialized gemm\n10=producer loop\n13=consumer loop\n14=wait full\n15=mma@../src/kernels.cuh:170\n');
    writeFileSync(path.join(traces, 'notes.bin'), 'not a region buffer\n'.repeat(20));
    copyFileSync(path.join(FIX, 'runtime_capture.strata'), path.join(traces, 'runtime_capture.strata'));
    // Kept gzipped in the repository; opened as Proton writes it.
    writeFileSync(path.join(traces, 'attention_ws_gluon.chrome_trace'), gunzipSync(readFileSync(path.join(FIX, '../proton/attention_ws_gluon.chrome_trace.gz'))));
    // The Gluon kernel that wrote it, as the workspace's source: its Proton scopes are the markers.
    copyFileSync(GLUON, path.join(S.ws, 'src/attention_ws_gluon.py'));
    await startSession({ 'strata.cliPath': cli });
  });

  after(async () => { if (!skip) await stopSession(); });

  test('(r1) Open Region Trace on an H100 buffer: the timeline draws every lane', { skip }, async () => {
    const expected = JSON.parse((await import('node:child_process')).execFileSync(cli,
      ['regions', path.join(traces, 'gemm_nested_loop.bin'), '--names-file', path.join(traces, 'gemm_nested_loop.json'),
        '--calibration', path.join(traces, 'calibration.bin'), '--format', 'json'],
      { maxBuffer: 1 << 28 }).toString());
    await openTrace(path.join(traces, 'gemm_nested_loop.bin'));
    const { frame, stats } = await timelineFrame(expected.intervals.length);
    assert.equal(stats.rows, expected.lanes.length);
    assert.equal(stats.rows, 128);
    const attrs = await frame.evaluate(() => {
      const g = document.querySelector('.strata-timeline');
      return { rows: g?.getAttribute('data-rows'), intervals: g?.getAttribute('data-intervals'), summary: document.querySelector('.strata-timeline-summary')?.textContent };
    });
    assert.equal(attrs.rows, '128');
    assert.equal(attrs.intervals, String(expected.intervals.length));
    assert.match(attrs.summary, /^128 lanes · \d+ intervals/);
    assert.ok((await S.page.locator('.tabs-container .tab', { hasText: 'Strata: gemm_nested_loop.bin' }).count()) > 0, 'the panel tab');
    await shot('r1-timeline');
  });

  test('(r2) hover: region name, replayed and raw duration, lane; click: the marker line', { skip }, async () => {
    const { frame } = await timelineFrame();
    const at = await frame.evaluate(() => window.__strata.locate('compute'));
    assert.ok(at, 'a compute interval is drawn');
    const tip = await timelineTooltipAt(frame, '.strata-timeline-stage', { x: Math.round(at.x), y: Math.round(at.y) });
    assert.equal(tip.name, 'compute');
    assert.match(tip.rows.Duration, /^[\d.]+ (ns|µs) \(replayed\)$/);
    assert.match(tip.rows.Raw, /^[\d.]+ (ns|µs)$/);
    const ns = (s) => { const m = /^([\d.]+) (ns|µs)/.exec(s); return Number(m[1]) * (m[2] === 'µs' ? 1000 : 1); };
    assert.ok(ns(tip.rows.Raw) > ns(tip.rows.Duration), `replay took the marker cost out: raw ${tip.rows.Raw}, replayed ${tip.rows.Duration}`);
    assert.match(tip.lane, /^SM \d+ · block \d+ · wg [01]$/);
    const line = lineOf('STRATA_REGION_START(prof, kCompute)');
    assert.equal(tip.loc, `src/kernels.cuh:${line}`);
    await shot('r2-tooltip');
    // A loop iteration says which.
    const it = await frame.evaluate(() => window.__strata.locate('k-loop #5'));
    const tip2 = await timelineTooltipAt(frame, '.strata-timeline-stage', { x: Math.round(it.x), y: Math.round(it.y) });
    assert.equal(tip2.name, 'k-loop #5');
    assert.equal(tip2.rows.Iteration, '5');
    // Click on compute → kernels.cuh at the STRATA_REGION_START of kCompute.
    const again = await frame.evaluate(() => window.__strata.locate('compute'));
    await frame.locator('.strata-timeline-stage').click({ position: { x: Math.round(again.x), y: Math.round(again.y) } });
    await activeTab('kernels.cuh', 20000);
    await waitFor(`cursor at line ${line}`, async () => (await statusLine()) === line, 10000)
      .catch(async (e) => { await shot('r2-click'); throw e; });
    await shot('r2-marker-line');
  });

  test('(r3) Export Chrome Trace writes the trace next to the buffer and says where', { skip }, async () => {
    await clearNotifications();
    await S.page.locator('.tabs-container .tab', { hasText: 'Strata: gemm_nested_loop.bin' }).first().click();
    const { frame } = await timelineFrame();
    await frame.locator('button.strata-export').click();
    const out = path.join(traces, 'gemm_nested_loop.chrome.json');
    const t = await waitToast('the export notification', /wrote the Chrome trace to /, 30000, /not written/);
    assert.ok(t.includes(out), `"${t}" names ${out}`);
    const chrome = JSON.parse(readFileSync(out, 'utf8'));
    assert.ok(Array.isArray(chrome.traceEvents) && chrome.traceEvents.some((e) => e.ph === 'X' && e.name === 'compute'), 'Chrome events with names');
  });

  test('(r4) a names file with @file:line: the click opens that line', { skip }, async () => {
    await clearNotifications();
    await runCommand('View: Close All Editors');
    await openTrace(path.join(traces, 'warpspec.bin'));
    const { frame } = await timelineFrame();
    const at = await frame.evaluate(() => window.__strata.locate('mma'));
    assert.ok(at, 'an mma interval is drawn');
    const tip = await timelineTooltipAt(frame, '.strata-timeline-stage', { x: Math.round(at.x), y: Math.round(at.y) });
    assert.equal(tip.loc, 'src/kernels.cuh:170');
    await frame.locator('.strata-timeline-stage').click({ position: { x: Math.round(at.x), y: Math.round(at.y) } });
    await activeTab('kernels.cuh', 20000);
    await waitFor('cursor at line 170', async () => (await statusLine()) === 170, 10000);
    // Regions without a location in the names file: found in the sources.
    const wait = await frame.evaluate(() => window.__strata.locate('wait full'));
    const tip2 = await timelineTooltipAt(frame, '.strata-timeline-stage', { x: Math.round(wait.x), y: Math.round(wait.y) });
    assert.equal(tip2.loc, `src/kernels.cuh:${lineOf('STRATA_REGION_START(prof, kFullWait)')}`);
  });

  test('(r5) a file that is not a region buffer: one clear notification, no panel', { skip }, async () => {
    await clearNotifications();
    await runCommand('View: Close All Editors');
    await openTrace(path.join(traces, 'notes.bin'));
    const t = await waitToast('the bad-buffer notification', /Strata: notes\.bin: /, 30000);
    assert.match(t, /bad_header|not a region buffer|empty|truncated/);
    assert.ok(!t.includes('\n'));
    await sleep(1000);
    assert.equal(await S.page.locator('.tabs-container .tab', { hasText: 'Strata: notes.bin' }).count(), 0, 'no panel');
    assert.deepEqual((await toasts()).filter((x) => /decoding/.test(x)), [], 'no progress left behind');
  });

  /** The quick pick of a profile's captured launches: picks `label`. */
  async function pickLaunch(label) {
    const row = S.page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first();
    await row.waitFor({ state: 'visible', timeout: 30000 }).catch(async (e) => { await shot('regions-no-launch-pick'); throw e; });
    const rows = await S.page.locator('.quick-input-widget .monaco-list-row').allInnerTexts();
    assert.equal(rows.filter((r) => /Launch \d/.test(r)).length, 3, `3 captured launches offered: ${rows.join(' | ')}`);
    await row.click();
  }

  /** The frame drawing a timeline (the flame graph's frame may be there too). */
  async function anyTimelineFrame() {
    return waitFor('a timeline drawn', async () => {
      const bad = (await toasts()).find((t) => /Strata: .*(not|bad_|cannot|failed|no launch)/.test(t));
      if (bad) throw Object.assign(new Error(`notification: ${bad}`), { fatal: true });
      for (const f of S.page.frames()) {
        const stats = await f.evaluate(() => {
          const s = window.__strata?.timeline?.();
          return s && s.drawn > 0 && s.frames > 0 ? s : null;
        }).catch(() => null);
        if (stats) return { frame: f, stats };
      }
      return null;
    }, 60000, 500).catch(async (e) => { await shot('regions-no-profile-timeline'); throw e; });
  }

  async function checkProfileTimeline(tab) {
    const { frame, stats } = await anyTimelineFrame();
    assert.equal(stats.rows, 32);   // 16 blocks x 2 warp groups
    const summary = await frame.evaluate(() => document.querySelector('.strata-timeline-summary')?.textContent);
    assert.match(summary, /^32 lanes · \d+ intervals/);
    assert.ok((await S.page.locator('.tabs-container .tab', { hasText: tab }).count()) > 0, `the panel tab ${tab}`);
    const at = await frame.evaluate(() => window.__strata.locate('compute'));
    assert.ok(at, 'a compute interval is drawn (names from the profile)');
    const tip = await timelineTooltipAt(frame, '.strata-timeline-stage', { x: Math.round(at.x), y: Math.round(at.y) });
    assert.equal(tip.name, 'compute');
    assert.match(tip.rows.Duration, /^[\d.]+ (ns|µs)/);
    assert.match(tip.lane, /^SM \d+ · block \d+ · wg [01]$/);
    // The profile's region frames carry the markers' lines from the program's names table
    // (test/regions/plain_app.cu: "4=compute@kernels.cuh:91"); the click finds the file by name.
    const line = lineOf('STRATA_REGION_START(prof, kCompute)');
    assert.equal(tip.loc, `kernels.cuh:${line}`);
    await frame.locator('.strata-timeline-stage').click({ position: { x: Math.round(at.x), y: Math.round(at.y) } });
    await activeTab('kernels.cuh', 20000);
    await waitFor(`cursor at line ${line}`, async () => (await statusLine()) === line, 10000);
    return frame;
  }

  test('(r6) Open Region Trace on a profile recorded with --regions: pick a launch, 32 rows, tooltip', { skip }, async () => {
    await clearNotifications();
    await runCommand('View: Close All Editors');
    await openTrace(path.join(traces, 'runtime_capture.strata'));
    await pickLaunch('Launch 1');
    await checkProfileTimeline('Strata: runtime_capture.strata · launch 1');
    await shot('r6-profile-launch');
  });

  test('(r7) the flame graph: "Region timeline" on the kernel with regions opens its launch', { skip }, async () => {
    await clearNotifications();
    await runCommand('View: Close All Editors');
    await runCommand('Strata: Open Profile');
    await answerFileDialog(path.join(traces, 'runtime_capture.strata'));
    const flame = await strataFrame(60000, /Strata: .*(not|cannot|failed)/);
    await waitFor('the profile drawn', () => flame.evaluate(() => (window.__strata?.stats()?.instances ?? 0) > 0), 30000);
    const button = flame.locator('button.strata-region-timeline');
    assert.equal(await button.isVisible(), false, 'no button at the root');
    const node = await flame.evaluate(() => window.__strata.zoomTo('app::GemmKernel<'));
    assert.ok(node > 0, 'the kernel frame is in the flame graph');
    await button.waitFor({ state: 'visible', timeout: 10000 });
    await button.click();
    await pickLaunch('Launch 2');
    await checkProfileTimeline('Strata: runtime_capture.strata · launch 2');
    await shot('r7-flame-region-timeline');
  });

  test('(r8) a Proton trace of a warp-specialized Gluon kernel: one row per warp, the headline names both partitions', { skip }, async () => {
    await clearNotifications();
    await runCommand('View: Close All Editors');
    await openTrace(path.join(traces, 'attention_ws_gluon.chrome_trace'));
    const { frame, stats } = await timelineFrame();
    assert.equal(stats.rows, 160);  // 32 CTAs x (4 consumer warps + 1 producer warp)
    const summary = await frame.evaluate(() => document.querySelector('.strata-timeline-summary')?.textContent);
    // Issues: Proton's dropped records and no clock rate (Proton's 1 GHz axis: cycles).
    assert.match(summary, /^160 lanes · 9216 intervals · 2 issues · warp 0–3: softmax \d+(–\d+)?% · warp 6: wait_slot 9\d%$/);
    const at = await frame.evaluate(() => window.__strata.locate('wait_slot #3'));
    assert.ok(at, 'a producer wait is drawn');
    const tip = await timelineTooltipAt(frame, '.strata-timeline-stage', { x: Math.round(at.x), y: Math.round(at.y) });
    assert.equal(tip.name, 'wait_slot #3');
    assert.match(tip.lane, /^SM \d+ · block \d+ · warp 6$/);
    assert.equal(tip.rows.Iteration, '3');
    await shot('r8-proton-gluon-ws');
  });

  test('(r9) overlap analysis: the critical path and bubbles drawn, the verdict in the toolbar, the finding on the marker line', { skip }, async () => {
    await clearNotifications();
    await runCommand('View: Close All Editors');
    // Every region named (the analysis reads what a region does from its name: `wait …`, `load …`),
    // mma placed at kernels.cuh:170; the core's analysis names it (consumer-bound).
    writeFileSync(path.join(traces, 'warpspec.names'),
      '10=producer loop\n11=wait empty\n12=load tile\n13=consumer loop\n14=wait full\n15=mma@../src/kernels.cuh:170\n');
    await openTrace(path.join(traces, 'warpspec.bin'));
    const { frame } = await timelineFrame();
    const got = await overlapMarks(frame, 'r9');
    assert.match(got.verdict, /^critical path: mma \d+%.* · warp-specialization, 2 stages: consumer-bound$/);
    await frame.locator('.strata-critical-path').click();
    await waitFor('marks hidden', () => frame.evaluate(() => document.querySelector('[data-marks]')?.getAttribute('data-marks') === '0' || null), 5000);
    await frame.locator('.strata-critical-path').click();
    // The finding as a diagnostic on kernels.cuh:170 in the Problems view.
    const row = await criticalPathProblem('mma', 'r9');
    assert.match(row, /\[Ln 170/, `on the marker line: ${row}`);
    await shot('r9-critical-path');
  });

  test('(r10) overlap analysis of a Proton trace: the critical path and bubbles drawn, the finding on the scope\'s line', { skip }, async () => {
    await clearNotifications();
    await runCommand('View: Close All Editors');
    await openTrace(path.join(traces, 'attention_ws_gluon.chrome_trace'));
    const { frame } = await timelineFrame();
    const got = await overlapMarks(frame, 'r10');
    // The core's analysis of this trace: softmax the largest part of the path, consumer-bound.
    assert.match(got.verdict, /^critical path: softmax \d+%.* · warp-specialization, 2 stages: consumer-bound$/);
    const row = await criticalPathProblem('softmax', 'r10');
    const line = readFileSync(GLUON, 'utf8').split('\n').findIndex((l) => l.includes('pl.enter_scope("softmax")')) + 1;
    assert.ok(line > 0);
    assert.match(row, new RegExp(`\\[Ln ${line}\\b`), `on the scope's line ${line}: ${row}`);
    await shot('r10-proton-critical-path');
  });
});
