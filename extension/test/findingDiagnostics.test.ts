import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Finding, Profile } from '../../native/addon/index';
import { addonFindings, findingsToDiagnostics } from '../src/findingDiagnostics';

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
};

test('findingsToDiagnostics: a finding on its source line (0-based), rule as code, call path as related', () => {
  const here = (f: string) => f.replace('/rec/', '/ws/');
  const m = findingsToDiagnostics({ findings: [finding] }, '/ws/p.strata', here);
  assert.deepEqual([...m.keys()], ['/ws/src/matrix_ops.cpp']);
  const [d] = m.get('/ws/src/matrix_ops.cpp')!;
  assert.equal(d.line, 11);
  assert.equal(d.severity, 'warning');
  assert.equal(d.code, 'hotspot');
  assert.equal(d.message, finding.message);
  assert.deepEqual(d.related.map((r) => [r.file, r.line]), [['/ws/src/train_loop.py', 55], ['/ws/src/matrix_ops.cpp', 11]]);
});

test('findingsToDiagnostics: a source file not found here, or no source at all → on the profile file', () => {
  const whole: Finding = { ...finding, rule: 'cpu-latency', severity: 'note', node: -1, location: { kind: '', name: '', file: '', line: 0 }, path: [] };
  const m = findingsToDiagnostics({ findings: [finding, whole] }, '/ws/p.strata', () => undefined);
  const list = m.get('/ws/p.strata')!;
  assert.equal(list.length, 2);
  assert.match(list[0].message, /\(at \/rec\/src\/matrix_ops\.cpp:12, not found here\)$/);
  assert.equal(list[0].line, 0);
  assert.equal(list[1].severity, 'note');
  assert.equal(findingsToDiagnostics({ findings: [] }, '/p', () => undefined).size, 0);
});

test('addonFindings: the addon\'s analyze() when present, else no findings', async () => {
  const doc = { format_version: 1 as const, findings: [finding], errors: [] };
  let opts: unknown;
  const withAnalyze = { analyze: async (o: unknown) => { opts = o; return doc; } } as unknown as Profile;
  assert.equal(await addonFindings(withAnalyze, { thresholds: { 'hotspot.share': 0.05 } }), doc);
  assert.deepEqual(opts, { thresholds: { 'hotspot.share': 0.05 } });
  assert.deepEqual((await addonFindings({} as Profile, {})).findings, []);
});
