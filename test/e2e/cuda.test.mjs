// End-to-end test of CUDA kernel lines in a real VS Code (code-server), on the PC-sampling profile
// recorded on the H100 (test/fixtures/h100/stalls/stalls_continuous.strata, issues 5 and 6):
//   (c1) the stall analyzer's findings are diagnostics on the CUDA lines of stall_kernels.cu in
//        the Problems view (mem_chain: long_scoreboard at STALL-mem; math_chain: wait at STALL-math);
//   (c2) line heat on stall_kernels.cu: a kernel line shows its PC samples and top stall reason;
//   (c3) the flame graph on pc_samples: the cursor on a kernel line outlines exactly the frames of
//        that line; Ctrl+click on a pc frame opens stall_kernels.cu at its line.
// The profile names the H100's checkout (/work/main/test/stalls/stall_kernels.cu): the source is
// copied into the workspace under test/stalls/, where the extension finds it by path suffix.
// Lines come from the STALL-* marker comments, never hard-coded.
// Run: node --test test/e2e/cuda.test.mjs   (see harness.mjs for prerequisites and env)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import {
  S, answerFileDialog, activeTab, cli, extId, findNode, frameOf, goToLine, layoutOf, lineHeatTexts, loadAddon, makeFolders,
  missingPrerequisites, nodePosition, openFileQuick, repo, runCommand, shot, skipReason, sleep,
  startSession, statusLine, stopSession, strataFrame, waitFor,
} from './harness.mjs';

const FIXTURE = path.join(repo, 'test/fixtures/h100/stalls/stalls_continuous.strata');
const SOURCE = path.join(repo, 'test/stalls/stall_kernels.cu');
const lineOf = (marker) => readFileSync(SOURCE, 'utf8').split('\n').findIndex((l) => l.includes(marker)) + 1;
const PC = 6;   // frame kind of a GPU instruction (native/format layout.h FrameKind::kPc)
const isKernelSource = (f) => /[\\/]stall_kernels\.cu$/.test(f);

describe('Strata on CUDA kernel lines (code-server)', { timeout: 300_000 }, () => {
  const missing = missingPrerequisites();
  const skip = skipReason(missing);
  const memLine = lineOf('STALL-mem');
  const mathLine = lineOf('STALL-math');
  let profile;

  before(async () => {
    if (skip) return;
    assert.deepEqual(missing, [], `prerequisites missing:\n  ${missing.join('\n  ')}`);
    assert.ok(memLine > 0 && mathLine > 0, 'markers in stall_kernels.cu');
    makeFolders('cuda');
    symlinkSync(path.join(repo, 'extension'), path.join(S.ext, extId), 'dir');
    mkdirSync(path.join(S.ws, 'test/stalls'), { recursive: true });
    copyFileSync(SOURCE, path.join(S.ws, 'test/stalls/stall_kernels.cu'));
    profile = path.join(S.ws, 'stalls_continuous.strata');
    copyFileSync(FIXTURE, profile);
    await startSession({ 'strata.cliPath': cli });
  });

  after(async () => { if (!skip) await stopSession(); });

  async function openProfile() {
    await runCommand('Strata: Open Profile');
    await answerFileDialog(profile);
    const frame = await strataFrame(60000, /Strata: .*(not|cannot|failed)/);
    await waitFor('the profile drawn', () => frame.evaluate(() => (window.__strata?.stats()?.instances ?? 0) > 0), 30000);
    return frame;
  }

  test('(c1) stall findings are diagnostics on the CUDA lines in the Problems view', { skip }, async () => {
    await openProfile();
    await S.page.keyboard.press('Escape');
    await S.page.keyboard.press('Control+Shift+M');
    const rows = await waitFor('the stall findings in the Problems view', async () => {
      const r = await S.page.locator('.markers-panel .monaco-list-row').allInnerTexts();
      return r.some((x) => x.includes('stalls mostly on long_scoreboard')) && r.some((x) => x.includes('stalls mostly on wait')) ? r : null;
    }, 30000).catch(async (e) => { await shot('c1-problems'); throw e; });
    await shot('c1-problems');
    const mem = rows.find((x) => x.includes('stalls mostly on long_scoreboard'));
    const math = rows.find((x) => x.includes('stalls mostly on wait'));
    assert.match(mem, /mem_chain/);
    assert.match(mem, new RegExp(`strata\\s+stall\\s+\\[Ln ${memLine}, Col 1\\]`), `source, rule and the STALL-mem line: ${mem}`);
    assert.match(math, /math_chain/);
    assert.match(math, new RegExp(`\\[Ln ${mathLine}, Col 1\\]`), `on the STALL-math line: ${math}`);
    // Grouped under the CUDA file.
    assert.ok(rows.some((x) => /^stall_kernels\.cu/.test(x.trim())), `a stall_kernels.cu group: ${JSON.stringify(rows.map((x) => x.slice(0, 60)))}`);
    await S.page.keyboard.press('Control+Shift+M');
  });

  test('(c2) line heat on stall_kernels.cu: PC samples and the top stall reason per kernel line', { skip }, async () => {
    // What the STALL-mem line must show: the PC samples of its instructions (pc frames).
    const p = await loadAddon().open(profile);
    const idx = p.metrics().findIndex((m) => m.name === 'pc_samples');
    assert.ok(idx >= 0, 'the profile has pc_samples');
    const cols = await p.view('top-down', idx);
    p.close();
    let samples = 0;
    for (let i = 1; i < cols.parent.length; i++) {
      const f = frameOf(cols, i);
      if (f.kind === PC && isKernelSource(f.file) && f.line === memLine) samples += cols.inclusive[i];
    }
    assert.ok(samples > 0, 'pc frames on the STALL-mem line');
    // The viewer in the right group, stall_kernels.cu in the left (as a user works).
    await runCommand('View: Close All Editors');
    await openFileQuick('stall_kernels.cu');
    await openProfile();
    await runCommand('View: Move Editor into Right Group');
    await sleep(1500);
    await S.page.locator('.editor-group-container').first().locator('.view-lines').first().click({ position: { x: 200, y: 5 } });
    await activeTab('stall_kernels.cu', 10000);
    await goToLine(memLine);
    const want = `pc samples ${Math.round(samples).toLocaleString('en-US')} · stall long_scoreboard`;
    const texts = await waitFor('line heat on the kernel lines', async () => {
      const t = await lineHeatTexts();
      return t.some((x) => x.includes(want)) && t.some((x) => /pc samples [\d,]+ · stall wait \d+%$/.test(x)) ? t : null;
    }, 20000).catch(async (e) => { await shot('c2-no-heat'); throw new Error(`${e.message}; want "${want}"; shown ${JSON.stringify(await lineHeatTexts())}`); });
    assert.ok(texts.some((x) => new RegExp(`^▮ \\d+\\.\\d% ${want} 99%$`).test(x)), `STALL-mem line: ${JSON.stringify(texts)}`);
    await shot('c2-line-heat');
  });

  test('(c3) the cursor on a CUDA line outlines its frames; Ctrl+click on a pc frame opens that line', { skip }, async () => {
    const frame = await strataFrame(20000);
    // pc frames carry samples, not time: show the graph by pc_samples.
    await frame.locator('.strata-metric').selectOption('pc_samples');
    const p = await loadAddon().open(profile);
    const idx = p.metrics().findIndex((m) => m.name === 'pc_samples');
    const cols = await p.view('top-down', idx);
    p.close();
    await waitFor('the graph by pc_samples', () => frame.evaluate((n) => window.__strata.stats().nodes === n, cols.parent.length), 20000);
    // The widest pc frame of the STALL-mem line, and every frame of that line.
    const lay = layoutOf(cols);
    let pc = -1;
    const onLine = [];
    for (let i = 1; i < cols.parent.length; i++) {
      const f = frameOf(cols, i);
      if (!isKernelSource(f.file) || f.line !== memLine) continue;
      onLine.push(i);
      if (f.kind === PC && (pc < 0 || cols.inclusive[i] > cols.inclusive[pc])) pc = i;
    }
    assert.ok(pc > 0, 'a pc frame on the STALL-mem line');
    const node = findNode(cols, lay, frameOf(cols, pc).name, /stall_kernels\.cu$/);
    assert.equal(node.line, memLine);
    // The cursor on the STALL-mem line (the workspace's copy, left): exactly its frames outlined.
    await S.page.locator('.editor-group-container').first().locator('.view-lines').first().click({ position: { x: 200, y: 5 } });
    await activeTab('stall_kernels.cu', 10000);
    await goToLine(memLine + 10);
    await goToLine(memLine);
    // Wait for this line's outline, not just any: the cursor passed another kernel line first.
    let last = [];
    const got = await waitFor(`frames of stall_kernels.cu:${memLine} outlined`, async () => {
      last = [...await frame.evaluate(() => window.__strata.highlighted())].sort((a, b) => a - b);
      return last.length === onLine.length && last.every((v, k) => v === onLine[k]) ? last : null;
    }, 10000).catch(async (e) => { await shot('c3-no-outline'); throw new Error(`${e.message}; outlined ${JSON.stringify(last)}, want ${JSON.stringify(onLine)}`); });
    assert.deepEqual(got, onLine);
    assert.ok(got.includes(node.id));
    await shot('c3-outline');
    // Ctrl+click on the pc frame: its CUDA file at its line (the recorded path where it exists,
    // as on the machine that recorded it, else the workspace's copy).
    await goToLine(1);
    const pos = await nodePosition(frame, node);
    await frame.locator('.strata-stage').click({ position: pos, modifiers: ['Control'] });
    await activeTab('stall_kernels.cu', 20000);
    await waitFor(`cursor at line ${memLine}`, async () => (await statusLine()) === memLine, 10000)
      .catch(async (e) => { await shot('c3-no-jump'); throw e; });
    await shot('c3-jump');
  });
});
