// End-to-end test of a run's processes in a real VS Code (code-server), on a run recorded from a
// real multi-process program (test/fixtures/runs/pipeline.py: the parent, a subprocess and two
// multiprocessing workers; test/fixtures/runs/record.sh made pipeline/):
//   (r0) a profile opened on its own whose run has children puts its run in the view (one
//        process's profile does not);
//   (r1) the explorer's "Open Run (all processes)" on the run folder lists every process in the
//        Strata Processes view — a tree by parent with pid, command, CPU time and samples — and
//        opens them together: one process frame per process under one root;
//   (r2) a process of the tree opens its own profile (the subprocess's: its `convert`).
// Run: node --test test/e2e/runs.test.mjs   (see harness.mjs for prerequisites and env)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import {
  S, cli, extId, loadAddon, makeFolders, missingPrerequisites, openRunFromExplorer, openThroughDialog, repo, runCommand, shot, skipReason,
  sleep, startSession, stopSession, strataFrame, strataTabs, waitFor,
} from './harness.mjs';

const FIXTURE = path.join(repo, 'test/fixtures/runs/pipeline');

describe('Strata run processes: tree, each alone, all together (code-server)', { timeout: 300_000 }, () => {
  const missing = missingPrerequisites();
  const skip = skipReason(missing);
  let run;
  let processes;

  before(async () => {
    if (skip) return;
    assert.deepEqual(missing, [], `prerequisites missing:\n  ${missing.join('\n  ')}`);
    makeFolders('runs');
    symlinkSync(path.join(repo, 'extension'), path.join(S.ext, extId), 'dir');
    run = path.join(S.ws, 'pipeline');
    cpSync(FIXTURE, run, { recursive: true });
    processes = await loadAddon().runProcesses(run);
    assert.ok(processes.length >= 4, `the fixture's run has the parent, the subprocess and two workers: ${processes.length}`);
    await startSession({ 'strata.cliPath': cli });
  });

  after(async () => { if (!skip) await stopSession(); });

  const processRows = () => S.page.locator('.pane', { hasText: 'Strata Processes' }).locator('.monaco-list-row').allInnerTexts();

  test('(r0) a profile opened on its own puts its run in the view when it started processes', { skip }, async () => {
    await runCommand('Focus on Strata Processes View');
    // A worker's profile (no children): the view stays empty.
    const worker = processes.find((p) => p.depth === 1 && !/ convert$/.test(p.command));
    await openThroughDialog('Strata: Open Profile', worker.path);
    await strataFrame(60000);
    await sleep(3000);
    assert.deepEqual(await processRows(), [], 'a single process is not a run to list');
    await openThroughDialog('Strata: Open Profile', processes[0].path);
    await strataFrame(60000);
    const rows = await waitFor('the run of run.strata', async () => {
      const r = await processRows();
      return r.length === processes.length + 1 ? r : null;
    }, 30000).catch(async (e) => { await shot('r0-follow'); throw e; });
    assert.match(rows[0], new RegExp(`All ${processes.length} processes together`));
    await shot('r0-follow');
    await runCommand('View: Close All Editors');
  });

  test('(r1) Open Run on the folder: the processes tree and all of them together', { skip }, async () => {
    // The explorer's context menu on the run folder, as a user does.
    await openRunFromExplorer('pipeline', { focusFirst: false });

    const rows = await waitFor('the processes view rows', async () => {
      const r = await processRows();
      return r.length >= processes.length + 1 ? r : null;
    }, 30000).catch(async (e) => { await shot('r1-processes-view'); throw e; });
    assert.match(rows[0], new RegExp(`All ${processes.length} processes together`));
    const first = processes[0];
    assert.equal(first.depth, 0);
    const parentRow = rows.find((r) => r.includes(`pid ${first.pid} `));
    assert.ok(parentRow, `the first process: ${JSON.stringify(rows)}`);
    assert.match(parentRow, /python3 pipeline\.py/);
    assert.match(parentRow, /CPU \d+(\.\d+)? (ms|s) · \d+ samples/);
    for (const p of processes) assert.ok(rows.some((r) => r.includes(`pid ${p.pid} `)), `pid ${p.pid} listed: ${JSON.stringify(rows)}`);
    // Children are nested under their parent (indented rows of the tree).
    const child = processes.find((p) => p.depth === 1);
    const indent = (pid) => S.page.locator('.pane', { hasText: 'Strata Processes' }).locator('.monaco-list-row', { hasText: `pid ${pid} ` })
      .first().getAttribute('aria-level');
    assert.equal(Number(await indent(child.pid)), Number(await indent(first.pid)) + 1, 'a child one level below its parent');
    await shot('r1-processes-view');

    const frame = await strataFrame(60000, /Strata: .*(not|cannot|failed)/);
    const v = await waitFor('the merged view drawn', async () => {
      const x = await frame.evaluate(() => window.__strata?.view()).catch(() => null);
      return x && x.nodes > 1 ? x : null;
    }, 60000);
    assert.ok((await strataTabs()).some((t) => t.includes(`pipeline (${processes.length} processes)`)), `tab: ${await strataTabs()}`);
    assert.equal(v.rootChildren.length, Math.min(5, processes.length), `a process frame per process: ${JSON.stringify(v.rootChildren)}`);
    for (const label of v.rootChildren) assert.match(label, /\(pid \d+\)$/);
    assert.ok(v.rootChildren.some((l) => l === `${first.command} (pid ${first.pid})`), JSON.stringify(v.rootChildren));
    await shot('r1-together');
  });

  test('(r2) a process of the tree opens its own profile', { skip }, async () => {
    await S.page.keyboard.press('Escape');  // no menu left open by an earlier step
    const sub = processes.find((p) => / convert$/.test(p.command));
    assert.ok(sub, `the subprocess: ${JSON.stringify(processes.map((p) => p.command))}`);
    await S.page.locator('.pane', { hasText: 'Strata Processes' }).locator('.monaco-list-row', { hasText: `pid ${sub.pid} ` }).first().click();
    const name = path.basename(sub.path);
    await waitFor(`the tab of ${name}`, async () => (await strataTabs()).some((t) => t.includes(name)), 30000);
    const frame = await strataFrame(60000);
    const v = await waitFor('its view', async () => {
      const x = await frame.evaluate(() => window.__strata?.view()).catch(() => null);
      return x && x.nodes > 1 && !x.rootChildren.some((l) => /\(pid \d+\)$/.test(l)) ? x : null;
    }, 60000).catch(async (e) => { await shot('r2-process'); throw e; });
    assert.equal(v.rootChildren[0], '<module>', JSON.stringify(v.rootChildren));
    await shot('r2-process');
  });
});
