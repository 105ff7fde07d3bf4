import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Finding } from '../../native/addon/index';
import { evidenceText, findingsSummary, findingTree } from '../src/findingTree';

const loader: Finding = {
  rule: 'data-loader', severity: 'warning', node: 12, cause: 'single-process',
  message: '`main (train.py:47)` iterates a DataLoader without workers (num_workers=0): the main thread spends 66% of its steady-state time.',
  location: { kind: 'python', name: 'main', file: '/rec/train.py', line: 47 },
  path: [
    { kind: 'python', name: '<module>', file: '/rec/train.py', line: 60 },
    { kind: 'python', name: 'main', file: '/rec/train.py', line: 47 },
    { kind: 'python', name: '_BaseDataLoaderIter.__next__', file: '/venv/lib/python3.12/site-packages/torch/utils/data/dataloader.py', line: 628 },
  ],
  evidence: [{ name: 'loader_share', value: 0.66, unit: 'share' }, { name: 'cpu_time', value: 1.34e9, unit: 'ns' },
    { name: 'cpu_cores', value: 2, unit: 'cores' }],
  other_paths: [[{ kind: 'python', name: '<module>', file: '/rec/train.py', line: 70 }, { kind: 'python', name: 'main', file: '/rec/train.py', line: 52 }]],
};
const kernel: Finding = {
  rule: 'hotspot', severity: 'note', node: 40, cause: 'spin', message: 'Kernel `spin` takes 80% of GPU time.',
  location: { kind: '', name: '', file: '', line: 0 },
  path: [{ kind: 'native', name: 'main', file: '', line: 0 }, { kind: 'kernel', name: 'spin', file: '', line: 0 }],
  evidence: [{ name: 'gpu_time_share', value: 0.8, unit: 'share' }], other_paths: [],
};
const here = (f: string) => (f.startsWith('/rec/') ? f.replace('/rec/', '/ws/') : undefined);

test('findingTree: a finding on its line, with evidence, its call path and the merged call paths', () => {
  const [n] = findingTree({ findings: [loader] }, '/ws/run.strata', here);
  assert.equal(n.icon, 'warning');
  assert.equal(n.description, 'train.py:47');
  assert.deepEqual(n.target, { kind: 'source', file: '/ws/train.py', line: 46 });
  assert.match(n.tooltip!, /^warning \[data-loader\] main \(train\.py:47\)\n\n`main/);
  assert.deepEqual(n.children.map((c) => c.label), ['Evidence', 'Call path 1 of 2', 'Call path 2 of 2']);
  assert.deepEqual(n.children[0].children.map((c) => [c.label, c.description]),
    [['loader_share', '66%'], ['cpu_time', '1.34 s'], ['cpu_cores', '2 cores']]);
  const own = n.children[1];
  assert.equal(own.description, '<module> (train.py:60) › main (train.py:47) › _BaseDataLoaderIter.__next__ (dataloader.py:628)');
  assert.deepEqual(own.children.map((c) => c.target), [
    { kind: 'source', file: '/ws/train.py', line: 59 }, { kind: 'source', file: '/ws/train.py', line: 46 }, undefined]);
  assert.match(own.children[2].tooltip!, /not found here/);
  const other = n.children[2];
  assert.equal(other.description, '<module> (train.py:70) › main (train.py:52)');
  assert.deepEqual(other.children[1].target, { kind: 'source', file: '/ws/train.py', line: 51 });
});

test('findingTree: a finding without a source line is attached to the profile, not to a line of it', () => {
  const nodes = findingTree({ findings: [loader, kernel] }, '/ws/run.strata', here);
  const k = nodes[1];
  assert.equal(k.icon, 'note');
  assert.equal(k.description, 'run.strata · no source line');
  assert.deepEqual(k.target, { kind: 'profile', profile: '/ws/run.strata' });
  assert.deepEqual(k.place, { kind: 'profile', profile: '/ws/run.strata' });
  assert.deepEqual(k.children.map((c) => c.label), ['Evidence', 'Call path']);
  assert.deepEqual(k.children[1].children.map((c) => c.target), [undefined, undefined]);
  // A source file that is not here: on the profile too, with the recorded place said.
  const [away] = findingTree({ findings: [loader] }, '/ws/run.strata', () => undefined);
  assert.equal(away.description, 'run.strata · train.py:47 not found here');
  assert.deepEqual(away.target, { kind: 'profile', profile: '/ws/run.strata' });
  assert.equal(findingsSummary(nodes, '/ws/run.strata'), 'run.strata: 2 findings, 1 on the profile itself (no source line here)');
  assert.equal(findingsSummary([], '/ws/run.strata'), 'run.strata: no findings');
});

test('evidenceText: shares, times, ratios, counts', () => {
  assert.equal(evidenceText(0.66, 'share'), '66%');
  assert.equal(evidenceText(0.013, 'share'), '1.3%');
  assert.equal(evidenceText(2.5e6, 'ns'), '2.5 ms');
  assert.equal(evidenceText(12.345, 'ratio'), '12.3×');
  assert.equal(evidenceText(4589, 'count'), '4,589');
});
