// End-to-end test of the analyzers' findings in a real VS Code (code-server), on two H100 profiles:
//   (n1) findings merged from several call paths (ops_torch_cuda: the forward's lines 20-22 are one
//        cause): in the Problems view each carries its other call paths as related information
//        ("also on call path 2 of 2: … › Net.forward (torch_model.py:20)" at line 20), and the
//        Strata Findings view lists the profile's findings;
//   (n2) findings without a source line (gpu_cuda_workload: kernels of a C++ binary without line
//        information): no Problems entry on the binary .strata file, but in the Strata Findings view,
//        attached to the profile ("no source line"), with their call paths.
// Run: node --test test/e2e/findings.test.mjs   (see harness.mjs for prerequisites and env)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import {
  S, cli, extId, loadAddon, makeFolders, missingPrerequisites, openThroughDialog, repo, runCommand, shot, skipReason,
  sleep, startSession, stopSession, strataFrame, waitFor,
} from './harness.mjs';

const H100 = path.join(repo, 'test/fixtures/h100');

describe('Strata findings: merged call paths, findings on the profile itself (code-server)', { timeout: 300_000 }, () => {
  const missing = missingPrerequisites();
  const skip = skipReason(missing);
  let ops, cuda;

  before(async () => {
    if (skip) return;
    assert.deepEqual(missing, [], `prerequisites missing:\n  ${missing.join('\n  ')}`);
    makeFolders('findings');
    symlinkSync(path.join(repo, 'extension'), path.join(S.ext, extId), 'dir');
    // The Python source the ops profile names (found by name in the workspace), and both profiles.
    mkdirSync(path.join(S.ws, 'ops'), { recursive: true });
    copyFileSync(path.join(repo, 'test/ops/torch_model.py'), path.join(S.ws, 'ops/torch_model.py'));
    ops = path.join(S.ws, 'ops_torch_cuda.strata');
    cuda = path.join(S.ws, 'gpu_cuda_workload.strata');
    copyFileSync(path.join(H100, 'ops_torch_cuda.strata'), ops);
    copyFileSync(path.join(H100, 'gpu_cuda_workload.strata'), cuda);
    await startSession({ 'strata.cliPath': cli });
  });

  after(async () => { if (!skip) await stopSession(); });

  const analyze = async (file) => {
    const p = await loadAddon().open(file);
    try { return await p.analyze(); } finally { p.close(); }
  };
  const problemRows = () => S.page.locator('.markers-panel .monaco-list-row').allInnerTexts();
  const findingRows = () => S.page.locator('.pane', { hasText: 'Strata Findings' }).locator('.monaco-list-row').allInnerTexts();
  const findingsPaneText = () => S.page.locator('.pane', { hasText: 'Strata Findings' }).first().innerText();

  test('(n1) a merged finding: its other call paths as related information and in the findings view', { skip }, async () => {
    const doc = await analyze(ops);
    // The first finding (the Problems view lists it first too) is merged from two call paths.
    const merged = doc.findings[0];
    assert.ok(merged.other_paths.length >= 1 && merged.location.line > 0,
      `a merged finding first: ${JSON.stringify(doc.findings.map((f) => [f.rule, f.location.line, f.other_paths.length]))}`);
    const last = merged.other_paths[0].at(-1);
    await openThroughDialog('Strata: Open Profile', ops);
    await strataFrame(60000);
    await runCommand('View: Focus Problems (Errors, Warnings, Infos)');
    const related = `also on call path 2 of ${merged.other_paths.length + 1}: `;
    const lastText = `${last.name} (${path.basename(last.file)}:${last.line})`;
    const rows = await waitFor('the related call paths under the merged finding', async () => {
      const r = await problemRows();
      if (r.some((x) => x.includes(related) && x.includes(lastText))) return r;
      // Collapsed markers: expand every row that has children.
      for (const tw of await S.page.locator('.markers-panel .monaco-tl-twistie.collapsible.collapsed').all()) await tw.click().catch(() => {});
      return null;
    }, 30000).catch(async (e) => { await shot('n1-problems'); throw e; });
    assert.ok(rows.some((x) => x.includes(merged.message.slice(0, 40))), `the finding is there: ${JSON.stringify(rows)}`);
    await shot('n1-problems-related');
    await runCommand('Focus on Strata Findings View');
    await waitFor('the findings view lists the profile\'s findings', async () =>
      (await findingRows()).some((x) => x.includes(merged.message.slice(0, 30))), 20000)
      .catch(async (e) => { await shot('n1-findings-view'); throw e; });
    assert.match(await findingsPaneText(), new RegExp(`ops_torch_cuda\\.strata: ${doc.findings.length} findings`));
    await shot('n1-findings-view');
    await runCommand('View: Close All Editors');
  });

  test('(n2) findings without a source line: on the profile in the findings view, not a line of the binary file', { skip }, async () => {
    const doc = await analyze(cuda);
    const sourceless = doc.findings.filter((f) => !f.location.file);
    assert.ok(sourceless.length >= 1, `kernels without line information: ${JSON.stringify(doc.findings.map((f) => f.location))}`);
    assert.equal(doc.profile, cuda);
    await openThroughDialog('Strata: Open Profile', cuda);
    await strataFrame(60000);
    await runCommand('Focus on Strata Findings View');
    const rows = await waitFor('the sourceless findings in the findings view', async () => {
      const r = await findingRows();
      return r.filter((x) => /no source line/.test(x)).length >= sourceless.length ? r : null;
    }, 30000).catch(async (e) => { await shot('n2-findings-view'); throw e; });
    assert.ok(rows.some((x) => x.includes('spin_long')), JSON.stringify(rows));
    assert.match(await findingsPaneText(), new RegExp(`gpu_cuda_workload\\.strata: ${doc.findings.length} findings?, ${sourceless.length} on the profile itself`));
    await shot('n2-findings-view');
    await runCommand('View: Focus Problems (Errors, Warnings, Infos)');
    await sleep(2000);
    const problems = await problemRows();
    assert.ok(!problems.some((x) => x.includes('gpu_cuda_workload.strata') || x.includes('spin_long')),
      `nothing on a line of the binary profile: ${JSON.stringify(problems)}`);
    await shot('n2-problems-empty');
  });
});
