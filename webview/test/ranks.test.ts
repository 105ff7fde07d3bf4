// Unit tests of a distributed job's model code: a frame's spread over the ranks as tooltip rows,
// and the ranks panel's bars (phases on one scale, abnormal ends, missing ranks, stragglers).
// The numbers are those of the real 4-rank gloo fixtures (test/fixtures/ranks).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spreadByRank, spreadRows } from '../src/model/rankSpread';
import { PHASES, rankBars } from '../src/model/rankBars';
import type { RankRow, RanksData } from '../src/protocol';

const row = (rank: number, computeNs: number, ended = '', communicationNs = 0): RankRow => ({
  rank, host: 'vm', ended, windowNs: 15.06e9, computeNs, communicationNs, startupNs: 0.9e9,
  idleNs: 15.06e9 - computeNs - communicationNs - 0.9e9, overlapShare: null,
});

test('spread rows: min / median / max with their ranks, the heaviest rank against the median', () => {
  const rows = spreadRows({ ranks: [0, 1, 2, 3], values: [191.6e6, 181.1e6, 423.4e6, 175.3e6], min: 175.3e6, median: 186.35e6,
    max: 423.4e6, minRank: 3, maxRank: 2 }, 'ns');
  assert.deepEqual(rows.map((r) => r[0]), ['Ranks', 'Heaviest rank']);
  assert.match(rows[0][1], /^min 175 ms \(rank 3\) · median 186 ms · max 423 ms \(rank 2\)$/);
  assert.equal(rows[1][1], 'rank 2: 2.3× the median');
});

test('spread rows: a frame only one rank runs; nothing for a single rank or no spread', () => {
  const only = spreadRows({ ranks: [0, 1, 2, 3], values: [0, 0, 256.1e6, 0], min: 0, median: 0, max: 256.1e6, minRank: 0, maxRank: 2 }, 'ns');
  assert.equal(only[1][1], 'rank 2 (the median rank has none)');
  const even = spreadRows({ ranks: [0, 1], values: [5, 5], min: 5, median: 5, max: 5, minRank: 0, maxRank: 0 }, 'count');
  assert.deepEqual(even.map((r) => r[0]), ['Ranks'], 'no heaviest rank when all are equal');
  assert.deepEqual(spreadRows({ ranks: [0], values: [5], min: 5, median: 5, max: 5, minRank: 0, maxRank: 0 }, 'ns'), []);
  assert.deepEqual(spreadRows(undefined, 'ns'), []);
  const by = spreadByRank({ ranks: [2, 0, 1], values: [9, 1, 2], min: 1, median: 2, max: 9, minRank: 0, maxRank: 2 });
  assert.deepEqual(by, [{ rank: 0, value: 1, max: false }, { rank: 1, value: 2, max: false }, { rank: 2, value: 9, max: true }]);
});

test('rank bars: phases on the longest window\'s scale, the straggler and the killed rank marked, a missing rank kept', () => {
  const d: RanksData = {
    metric: 'cpu_time',
    ranks: [row(0, 219.3e6, 'signal SIGTERM'), row(1, 0, 'no end written: killed without a chance to write (its last checkpoint)'),
      row(2, 807.1e6), row(3, 249.4e6, 'signal SIGTERM', 7.2e6)],
    missing: [4], stragglers: [2], selected: 1,
  };
  const bars = rankBars(d);
  assert.deepEqual(bars.map((b) => b.rank), [0, 1, 2, 3, 4]);
  for (const b of bars.slice(0, 4)) {
    assert.equal(b.widths.length, PHASES.length);
    assert.ok(Math.abs(b.widths.reduce((s, w) => s + w, 0) - 1) < 1e-9, `rank ${b.rank} spans the window`);
  }
  assert.ok(bars[2].widths[0] > bars[0].widths[0] && bars[2].widths[0] > bars[3].widths[0], 'rank 2 computes longest');
  assert.equal(bars[1].widths[0], 0);
  assert.deepEqual(bars.filter((b) => b.straggler).map((b) => b.rank), [2]);
  assert.match(bars[1].ended, /killed/);
  assert.equal(bars[2].ended, '');
  assert.ok(bars[1].selected && !bars[0].selected);
  assert.match(bars[3].title, /^compute 249 ms · communication 7\.20 ms · startup 900 ms · idle 13\.9 s · vm$/);
  assert.deepEqual({ missing: bars[4].missing, ended: bars[4].ended, widths: bars[4].widths }, { missing: true, ended: 'no profile', widths: [0, 0, 0, 0] });
});

test('rank bars: ranks of unequal windows share one scale; bad numbers count as none', () => {
  const short = { ...row(0, 1e9), windowNs: 2e9, startupNs: 0, idleNs: 1e9 };
  const long = { ...row(1, 1e9), windowNs: 4e9, startupNs: 0, idleNs: 3e9, communicationNs: Number.NaN };
  const [a, b] = rankBars({ metric: 'wall_time', ranks: [short, long], missing: [], stragglers: [], selected: null });
  assert.deepEqual(a.widths, [0.25, 0, 0, 0.25]);
  assert.deepEqual(b.widths, [0.25, 0, 0, 0.75]);
});

test('rank bars: the median step as compute vs communication on the longest step\'s scale', () => {
  const d: RanksData = {
    metric: 'cpu_time', missing: [], stragglers: [2], selected: null,
    steps: { collective: 'all_reduce', file: '/w/gloo_job.py', line: 57, count: 19 },
    ranks: [{ ...row(0, 1), step: { computeNs: 24e6, communicationNs: 41e6, issuedLast: 0 } },
      { ...row(2, 1), step: { computeNs: 50e6, communicationNs: 10e6, issuedLast: 19 } }],
  };
  const [a, b] = rankBars(d);
  assert.deepEqual(a.step?.widths, [24 / 65, 41 / 65]);
  assert.deepEqual(b.step?.widths, [50 / 65, 10 / 65]);
  assert.equal(b.step?.issuedLast, 19);
  assert.equal(b.step?.title, 'median step: compute 50.0 ms · communication 10.0 ms · issued the all_reduce last in 19 of 19 steps');
  assert.equal(rankBars({ ...d, steps: undefined })[0].step, undefined, 'no steps recorded: no step bar');
});
