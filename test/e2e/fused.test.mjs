// End-to-end test of a fused kernel's source lines in a real VS Code (code-server), on the
// profile the runtime's CCT writes from torch 2.11's recorded Inductor provenance
// (test/fixtures/h100/inductor/fused_from_provenance.strata, see its README): the fused frame's
// details pane lists the two lines it computes (inductor_probe.py:20 and :19), a click on one
// opens the editor at that line, and line heat there labels the kernel's time as fused.
// Run: node --test test/e2e/fused.test.mjs   (see harness.mjs for prerequisites and env)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import {
  S, activeTab, cli, extId, findNode, layoutOf, lineHeatTexts, loadAddon, makeFolders, missingPrerequisites, nodePosition,
  openThroughDialog, repo, shot, skipReason, startSession, statusLine, stopSession, strataFrame, waitFor,
} from './harness.mjs';

const FIXTURE = path.join(repo, 'test/fixtures/h100/inductor/fused_from_provenance.strata');
const PROBE = path.join(repo, 'bench/real_models/inductor_probe.py');

describe('Strata: a fused kernel\'s lines (code-server)', { timeout: 240_000 }, () => {
  const missing = missingPrerequisites();
  const skip = skipReason(missing);
  let profile;

  before(async () => {
    if (skip) return;
    assert.deepEqual(missing, [], `prerequisites missing:\n  ${missing.join('\n  ')}`);
    makeFolders('fused');
    symlinkSync(path.join(repo, 'extension'), path.join(S.ext, extId), 'dir');
    profile = path.join(S.ws, 'fused_from_provenance.strata');
    copyFileSync(FIXTURE, profile);
    // The recorded model file, for a machine where the recorded path does not exist.
    copyFileSync(PROBE, path.join(S.ws, 'inductor_probe.py'));
    await startSession({ 'strata.cliPath': cli });
  });

  after(async () => { if (!skip) await stopSession(); });

  test('details list the fused lines; a click opens one; line heat labels it fused', { skip }, async () => {
    await openThroughDialog('Strata: Open Profile', profile);
    const frame = await strataFrame(60000, /Strata: .*(not|cannot|failed)/);
    await waitFor('the profile drawn', () => frame.evaluate(() => (window.__strata?.stats()?.instances ?? 0) > 0), 60000);
    const p = await loadAddon().open(profile);
    let fused;
    try {
      const cols = await p.view('top-down', 0);
      fused = findNode(cols, layoutOf(cols), 'fused (2 lines)');
    } finally { p.close(); }
    assert.ok(fused, 'the fused frame is in the view');
    await frame.locator('.strata-stage').click({ position: await nodePosition(frame, fused) });
    const links = frame.locator('.strata-details-fused .strata-link');
    await links.first().waitFor({ state: 'visible', timeout: 15000 }).catch(async (e) => { await shot('fused-no-details'); throw e; });
    assert.equal(await frame.locator('.strata-details-name').innerText(), 'fused (2 lines)');
    const texts = await links.allInnerTexts();   // the widest fused frame: the backward's reduction
    assert.equal(texts.length, 2);
    assert.match(texts[0], /inductor_probe\.py:20 forward$/);
    assert.match(texts[1], /inductor_probe\.py:19 forward$/);
    await shot('fused-details');
    await links.nth(1).click();
    await activeTab('inductor_probe.py', 20000);
    await waitFor('cursor at line 19', async () => (await statusLine()) === 19, 10000);
    const heat = await waitFor('line heat with the fused part', async () => {
      const t = await lineHeatTexts();
      return t.some((s) => /fused/.test(s)) ? t : null;
    }, 30000).catch(async (e) => { await shot('fused-no-heat'); throw e; });
    // Line 19: its own kernels (5 µs) and the two fused ones (5 µs) placed under line 20; line 20:
    // those fused kernels alone.
    assert.ok(heat.some((s) => /gpu 10\.0 [uµ]s \(5\.00 [uµ]s fused\)/.test(s)), JSON.stringify(heat));
    assert.ok(heat.some((s) => /gpu 5\.00 [uµ]s \(all fused\)/.test(s)), JSON.stringify(heat));
    await shot('fused-line-heat');
  });
});
