import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Finding, Profile } from '../../native/addon/index';
import { MAX_RELATED, addonFindings, findingsToDiagnostics, pathSummary, placeFinding } from '../src/findingDiagnostics';

// A fake finding in the shape of docs/analyzers.md (no analyzer is faked: the conversion is tested).
const finding: Finding = {
  rule: 'hotspot', severity: 'warning', message: '`matmul` spends 27% of cpu_time in its own code.', node: 57,
  location: { kind: 'native', name: 'matmul', file: '/rec/src/matrix_ops.cpp', line: 12 },
  path: [
    { kind: 'python', name: '<module>', file: '/rec/src/train_loop.py', line: 56 },
    { kind: 'native', name: '_start', file: '', line: 0 },
    { kind: 'native', name: 'matmul', file: '/rec/src/matrix_ops.cpp', line: 12 },
  ],
  evidence: [{ name: 'cpu_time_share', value: 0.27, unit: 'share' }],
  cause: 'cpu_time:own-code',
  other_paths: [],
};
const here = (f: string) => f.replace('/rec/', '/ws/');

test('findingsToDiagnostics: a finding on its source line (0-based), rule as code, call path as related', () => {
  const m = findingsToDiagnostics({ findings: [finding] }, '/ws/p.strata', here);
  assert.deepEqual([...m.keys()], ['/ws/src/matrix_ops.cpp']);
  const [d] = m.get('/ws/src/matrix_ops.cpp')!;
  assert.equal(d.line, 11);
  assert.equal(d.severity, 'warning');
  assert.equal(d.code, 'hotspot');
  assert.equal(d.message, finding.message);
  assert.deepEqual(d.related.map((r) => [r.file, r.line]), [['/ws/src/train_loop.py', 55], ['/ws/src/matrix_ops.cpp', 11]]);
});

test('findingsToDiagnostics: no source line, or a source file not found here → not on the binary profile: on the profile itself', () => {
  const whole: Finding = { ...finding, rule: 'cpu-latency', severity: 'note', node: -1, location: { kind: '', name: '', file: '', line: 0 }, path: [] };
  const fileNoLine: Finding = { ...finding, location: { kind: 'native', name: 'spin', file: '/rec/src/k.cu', line: 0 } };
  const m = findingsToDiagnostics({ findings: [finding, whole, fileNoLine] }, '/ws/p.strata', () => undefined);
  assert.equal(m.size, 0, 'nothing lands on a line of /ws/p.strata (or of any file)');
  assert.deepEqual(placeFinding(whole, '/ws/p.strata', here), { kind: 'profile', profile: '/ws/p.strata' });
  assert.deepEqual(placeFinding(fileNoLine, '/ws/p.strata', here), { kind: 'profile', profile: '/ws/p.strata' });
  assert.deepEqual(placeFinding(finding, '/ws/p.strata', () => undefined),
    { kind: 'profile', profile: '/ws/p.strata', recorded: { file: '/rec/src/matrix_ops.cpp', line: 12 } });
  assert.deepEqual(placeFinding(finding, '/ws/p.strata', here), { kind: 'line', file: '/ws/src/matrix_ops.cpp', line: 11 });
  assert.equal(findingsToDiagnostics({ findings: [] }, '/p', () => undefined).size, 0);
});

test('findingsToDiagnostics: a frame with a file but no line is not related at a made-up line', () => {
  const f: Finding = { ...finding, path: [{ kind: 'native', name: 'helper', file: '/rec/src/h.cpp', line: 0 }, ...finding.path] };
  const [d] = findingsToDiagnostics({ findings: [f] }, '/ws/p.strata', here).get('/ws/src/matrix_ops.cpp')!;
  assert.ok(!d.related.some((r) => r.file === '/ws/src/h.cpp'), JSON.stringify(d.related));
});

// A merged finding: the other call paths of the same cause are related locations, each at its
// deepest line here (else at the finding's own line), after the finding's own call path.
test('findingsToDiagnostics: other_paths become related information', () => {
  const merged: Finding = {
    ...finding,
    other_paths: [
      [{ kind: 'python', name: '<module>', file: '/rec/src/train_loop.py', line: 60 },
        { kind: 'native', name: 'matmul', file: '/rec/src/matrix_ops.cpp', line: 14 }],
      [{ kind: 'python', name: 'warmup', file: '/elsewhere/gone.py', line: 3 }],
    ],
  };
  const [d] = findingsToDiagnostics({ findings: [merged] }, '/ws/p.strata', (f) => (f.startsWith('/rec/') ? here(f) : undefined))
    .get('/ws/src/matrix_ops.cpp')!;
  const others = d.related.slice(-2);
  assert.deepEqual(others.map((r) => [r.file, r.line]), [['/ws/src/matrix_ops.cpp', 13], ['/ws/src/matrix_ops.cpp', 11]]);
  assert.equal(others[0].message, 'also on call path 2 of 3: <module> (train_loop.py:60) › matmul (matrix_ops.cpp:14)');
  assert.equal(others[1].message, 'also on call path 3 of 3: warmup (gone.py:3)');
  assert.equal(d.related.length, 4, 'the own call path first');
});

test('findingsToDiagnostics: a long call path gives way to the other paths (at most MAX_RELATED)', () => {
  const deep = Array.from({ length: 40 }, (_, i) => ({ kind: 'python', name: `f${i}`, file: '/rec/a.py', line: i + 1 }));
  const others = Array.from({ length: 12 }, (_, i) => [{ kind: 'python', name: `g${i}`, file: '/rec/b.py', line: i + 1 }]);
  const f: Finding = { ...finding, location: deep[39], path: deep, other_paths: others };
  const [d] = findingsToDiagnostics({ findings: [f] }, '/ws/p.strata', here).get('/ws/a.py')!;
  assert.equal(d.related.length, MAX_RELATED);
  assert.equal(d.related[0].message, 'python f28', 'the deepest frames of the own path are kept');
  assert.match(d.related[MAX_RELATED - 1].message, /^also on call path 9 of 13: g7 \(b\.py:8\) \(and 4 more\)$/);
});

test('pathSummary: the last frames of a path, those with a source line first', () => {
  const p = finding.path;
  assert.equal(pathSummary(p), '… › <module> (train_loop.py:56) › matmul (matrix_ops.cpp:12)', 'the unnamed native frame left out');
  assert.equal(pathSummary(p, 1), '… › matmul (matrix_ops.cpp:12)');
  const native = [{ kind: 'native', name: 'main', file: '', line: 0 }, { kind: 'kernel', name: 'spin', file: '', line: 0 }];
  assert.equal(pathSummary(native), 'main › spin', 'no lines at all: the frames themselves');
  assert.equal(pathSummary(finding.path.slice(0, 1)), '<module> (train_loop.py:56)');
});

test('addonFindings: the addon\'s analyze() when present, else no findings', async () => {
  const doc = { format_version: 1 as const, profile: '/ws/p.strata', findings: [finding], errors: [] };
  let opts: unknown;
  const withAnalyze = { analyze: async (o: unknown) => { opts = o; return doc; } } as unknown as Profile;
  assert.equal(await addonFindings(withAnalyze, { thresholds: { 'hotspot.share': 0.05 } }), doc);
  assert.deepEqual(opts, { thresholds: { 'hotspot.share': 0.05 } });
  assert.deepEqual((await addonFindings({} as Profile, {})).findings, []);
});
