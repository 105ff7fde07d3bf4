// A distributed job's run as the webview's records: the addon's ranks and phases → the ranks
// panel's data, a node's spread → plain arrays, the straggler rule's typed rank evidence → the
// ranks to highlight, and which profiles show one rank alone. Shapes as the addon returns them
// for the real gloo fixtures (test/fixtures/ranks).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Finding, RankInfo, RankPhases, RankRunInfo } from '../../native/addon/index';
import { rankProfiles, stragglerRanks, toRanksData, toSpreadData } from '../src/rankRun';

const info = (rank: number, ended = '', profiles = [`gloo4_killed/run.${8923 + rank}.strata`]): RankInfo => ({
  rank, localRank: rank, nodeRank: 0, host: 'vm', profiles, pids: profiles.map((_, i) => 8923 + rank + i), ended,
  startUnixNs: 1, endUnixNs: 2,
});
const phases = (rank: number, computeNs: number): RankPhases => ({
  rank, metric: 'cpu_time', windowNs: 15.06e9, computeNs, communicationNs: 0, communicationFromCalls: false, startupNs: 0.9e9, idleNs: 15.06e9 - computeNs - 0.9e9, overlapShare: null,
});
const finding = (rule: string, evidence: { name: string; value: number; unit: string }[]): Finding => ({
  rule, severity: 'warning', message: '', node: 1, location: { kind: 'python', name: '<module>', file: '/w/gloo_job.py', line: 95 } as Finding['location'],
  path: [], evidence, cause: '', other_paths: [],
});

test('toRanksData: each rank with its phases and how it ended; ranks without phases count zero', () => {
  const run: RankRunInfo = {
    ranks: [info(0, 'signal SIGTERM'), info(1, 'no end written: killed without a chance to write (its last checkpoint)'), info(2)],
    missingRanks: [3], leftOut: ['gloo4_killed/run.strata'],
  };
  const d = toRanksData(run, [phases(0, 219e6), phases(2, 807e6)], [2], null);
  assert.equal(d.metric, 'cpu_time');
  assert.deepEqual(d.ranks.map((r) => [r.rank, r.computeNs, r.ended]), [
    [0, 219e6, 'signal SIGTERM'], [1, 0, 'no end written: killed without a chance to write (its last checkpoint)'], [2, 807e6, '']]);
  assert.equal(d.ranks[1].windowNs, 0);
  assert.deepEqual(d.missing, [3]);
  assert.deepEqual(d.stragglers, [2]);
  assert.equal(d.selected, null);
  assert.equal(toRanksData(run, [], [], 1).metric, '');
});

test('toSpreadData: typed arrays become plain arrays (they do not survive the webview message)', () => {
  const s = toSpreadData({ ranks: Int32Array.from([0, 1, 2, 3]), values: Float64Array.from([1, 2, 9, 3]), min: 1, median: 2.5, max: 9, minRank: 0, maxRank: 2 });
  assert.deepEqual(s, { ranks: [0, 1, 2, 3], values: [1, 2, 9, 3], min: 1, median: 2.5, max: 9, minRank: 0, maxRank: 2 });
  assert.ok(Array.isArray(s.values));
});

test('stragglerRanks: the straggler rule\'s rank evidence only, never its message', () => {
  const doc = { findings: [
    finding('straggler', [{ name: 'excess_time', value: 2.4e8, unit: 'ns' }, { name: 'rank', value: 2, unit: 'count' }]),
    finding('rank-imbalance', [{ name: 'rank', value: 3, unit: 'count' }]),
    finding('straggler', [{ name: 'rank', value: 2, unit: 'count' }]),
    finding('straggler', [{ name: 'rank', value: 0.5, unit: 'count' }]),
    finding('straggler', []),
  ] };
  assert.deepEqual(stragglerRanks(doc), [2]);
  assert.deepEqual(stragglerRanks(undefined), []);
});

test('rankProfiles: a rank\'s own profile, with its workers when it has any', () => {
  const run: RankRunInfo = { ranks: [info(0), info(1, '', ['a/run.1.strata', 'a/run.1-worker.strata'])], missingRanks: [], leftOut: [] };
  assert.deepEqual(rankProfiles(run, 0), { path: 'gloo4_killed/run.8923.strata', withWorkers: false });
  assert.deepEqual(rankProfiles(run, 1), { path: 'a/run.1.strata', withWorkers: true });
  assert.equal(rankProfiles(run, 7), undefined);
});

test('toRanksData with steps: each rank\'s median step (ranks() order) and how often it issued last', () => {
  const run: RankRunInfo = { ranks: [info(0), info(1), info(2)], missingRanks: [], leftOut: [] };
  const step = (c: number[], m: number[], lastRank: number) => ({
    arriveUnixNs: Float64Array.from([0, 0, 0]), computeNs: Float64Array.from(c), communicationNs: Float64Array.from(m), lastRank, arrivalSpreadNs: 0,
  });
  const steps = { collective: 'all_reduce', file: '/w/gloo_job.py', line: 57, steps: [
    step([24e6, 20e6, 50e6], [42e6, 41e6, 17e6], 2), step([20e6, 22e6, 52e6], [41e6, 40e6, 4e6], 2), step([30e6, 21e6, 51e6], [40e6, 45e6, 9e6], 1),
  ] };
  const d = toRanksData(run, [phases(0, 1), phases(1, 1), phases(2, 1)], [2], null, steps);
  assert.deepEqual(d.steps, { collective: 'all_reduce', file: '/w/gloo_job.py', line: 57, count: 3 });
  assert.deepEqual(d.ranks.map((r) => r.step), [
    { computeNs: 24e6, communicationNs: 41e6, issuedLast: 0 },
    { computeNs: 21e6, communicationNs: 41e6, issuedLast: 1 },
    { computeNs: 51e6, communicationNs: 9e6, issuedLast: 2 },
  ]);
  const none = toRanksData(run, [], [], null, { collective: '', file: '', line: 0, steps: [] });
  assert.equal(none.steps, undefined);
  assert.equal(none.ranks[0].step, undefined);
});
