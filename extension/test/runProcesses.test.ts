import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunProcess } from '../../native/addon/index';
import { processDescription, processLabel, processTooltip, processTree, shortCommand, togetherLabel } from '../src/runProcesses';

const proc = (pid: number, depth: number, over: Partial<RunProcess> = {}): RunProcess => ({
  path: `/w/run.${pid}.strata`, pid, parentPid: depth ? 1 : 0, parentProfile: depth ? 'run.strata' : '',
  command: `python3 /w/p${pid}.py`, ended: 'exit', depth, totals: [], ...over,
});

test('processTree nests by depth in tree order', () => {
  const roots = processTree([proc(1, 0), proc(2, 1), proc(5, 2), proc(3, 1), proc(9, 0)]);
  assert.deepEqual(roots.map((n) => n.process.pid), [1, 9]);
  assert.deepEqual(roots[0].children.map((n) => n.process.pid), [2, 3]);
  assert.deepEqual(roots[0].children[0].children.map((n) => n.process.pid), [5]);
  assert.equal(roots[0].children[0].children[0].parent?.pid, 2);
  assert.equal(roots[1].children.length, 0);
  // A depth that skips a level (a missing profile in between) hangs under the latest open node.
  assert.deepEqual(processTree([proc(1, 0), proc(4, 3)])[0].children.map((n) => n.process.pid), [4]);
  assert.deepEqual(processTree([]), []);
});

test('labels, descriptions and tooltips', () => {
  assert.equal(processLabel(proc(42, 0)), 'pid 42 · python3 p42.py');
  assert.equal(processLabel(proc(42, 0, { command: '' })), 'pid 42');
  assert.equal(shortCommand('a'.repeat(80), 10), `${'a'.repeat(9)}…`);
  const p = proc(7, 1, { totals: [
    { name: 'cpu_time', unit: 'ns', total: 1.5e9, count: 150 },
    { name: 'gpu_time', unit: 'ns', total: 3e7, count: 12 },
  ] });
  assert.equal(processDescription(p), 'CPU 1.5 s · 150 samples · GPU 30 ms');
  assert.equal(processDescription(proc(8, 0, { totals: [{ name: 'wall_time', unit: 'ns', total: 2e6, count: 1 }] })), 'wall 2 ms · 1 sample');
  assert.equal(processDescription(proc(9, 0)), 'no samples');
  const tip = processTooltip(p, proc(1, 0));
  assert.match(tip, /^pid 7\npython3 \/w\/p7\.py\nstarted by pid 1 \(run\.strata\)\nended: exit\ncpu_time: 1\.5 s \(150 events\)/);
  assert.match(processTooltip(p), /whose profile is not here/);
  assert.match(processTooltip(proc(1, 0)), /the run's first process/);
  assert.equal(togetherLabel(3), 'All 3 processes together');
});
