// The addon's run calls on a run recorded from a real multi-process program
// (test/fixtures/runs/pipeline: the parent, a subprocess, two multiprocessing workers):
// runProcesses lists them in tree order with their totals; openRun opens them together, one
// process frame (kind 9) per process under the root, each process's time kept.
// Run: node --test native/addon/test/     (after native/addon/build.sh)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const buildDir = path.resolve(repo, process.env.STRATA_BUILD_DIR || 'build');
const addon = createRequire(import.meta.url)(path.resolve(repo, process.env.STRATA_ADDON || path.join(buildDir, 'addon/Release/strata_addon.node')));
const run = path.join(repo, 'test/fixtures/runs/pipeline');

test('runProcesses: every process in tree order, with parent links and totals', async () => {
  const ps = await addon.runProcesses(run);
  assert.ok(ps.length >= 4, `${ps.length} processes`);
  assert.equal(ps[0].depth, 0);
  assert.equal(ps[0].parentPid, 0);
  assert.match(ps[0].command, /pipeline\.py$/);
  for (const p of ps.slice(1)) {
    assert.equal(p.depth, 1, `${p.command}: a child of the first process`);
    assert.equal(p.parentPid, ps[0].pid);
    assert.equal(p.parentProfile, 'run.strata');
  }
  for (const p of ps) {
    const cpu = p.totals.find((t) => t.name === 'cpu_time');
    assert.ok(cpu && cpu.total > 0 && cpu.count > 0 && cpu.unit === 'ns', `${p.pid}: ${JSON.stringify(p.totals)}`);
  }
  // From one profile: its process and the ones it started.
  assert.equal((await addon.runProcesses(path.join(run, 'run.strata'))).length, ps.length);
  assert.equal((await addon.runProcesses(ps[1].path)).length, 1);
});

test('openRun: one process frame per process, totals kept', async () => {
  const ps = await addon.runProcesses(run);
  const p = await addon.openRun(run);
  try {
    assert.equal(p.meta().processes, String(ps.length));
    const cpu = p.metrics().findIndex((m) => m.name === 'cpu_time');
    const v = await p.view('top-down', cpu, { frames: 'all' });
    const kids = [];
    for (let i = 1; i < v.parent.length; i++) if (v.parent[i] === 0) kids.push(i);
    assert.equal(kids.length, ps.length);
    for (const i of kids) assert.equal(v.frames.kind[v.frame[i]], 9, 'kind 9: process');
    assert.equal(addon.frameKinds[9], 'process');
    const sum = ps.reduce((s, x) => s + x.totals.find((t) => t.name === 'cpu_time').total, 0);
    assert.ok(Math.abs(v.total - sum) <= 1e-6 * sum, `${v.total} vs ${sum}`);
    const names = kids.map((i) => v.strings[v.frames.name[v.frame[i]]]);
    assert.ok(names.includes(`${ps[0].command} (pid ${ps[0].pid})`), JSON.stringify(names));
    // The Python view folds each process's start-up frames under its process frame.
    const py = await p.view('top-down', cpu, { frames: 'auto' });
    assert.equal(py.frameFilter, 'python');
  } finally {
    p.close();
  }
  await assert.rejects(addon.openRun('/nonexistent/run'), /./);
  assert.throws(() => addon.runProcesses(3), /path must be a string/);
});
