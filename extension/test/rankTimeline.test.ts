// A distributed job's ranks on one timeline as the webview's data: the addon's typed columns
// become plain arrays (they do not survive the webview's message), each rank gets its host from
// the run's ranks, and a slice's index finds its source line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RankInfo, RankTimeline } from '../../native/addon/index';
import { rankSliceSource, toRankTimelineData } from '../src/rankTimeline';

const info = (rank: number, host: string): RankInfo => ({
  rank, localRank: rank, nodeRank: 0, host, profiles: [`job.${100 + rank}.strata`], pids: [100 + rank], ended: '', startUnixNs: 1, endUnixNs: 2,
});

// Two ranks: steps and collectives each, rank 1 also one GPU stream (a kernel and a copy).
const timeline = (): RankTimeline => ({
  originUnixNs: 1795559809712820097, spanNs: 27.7e9,
  lanes: [
    { rank: 0, kind: 'steps', device: 0, stream: 0 }, { rank: 0, kind: 'collectives', device: 0, stream: 0 },
    { rank: 1, kind: 'steps', device: 0, stream: 0 }, { rank: 1, kind: 'collectives', device: 0, stream: 0 },
    { rank: 1, kind: 'gpu', device: 0, stream: 7 },
  ],
  names: ['step 0', 'all_reduce', 'step 1', 'volta_sgemm', 'memcpy HtoD'],
  sources: [{ file: '/w/test/rankview/gloo_steps.py', line: 57 }, { file: '/w/model.py', line: 12 }],
  lane: Uint32Array.from([0, 1, 2, 3, 4, 4]),
  start: Float64Array.from([0, 5e6, 1e6, 9e6, 2e6, 3e6]),
  end: Float64Array.from([10e6, 9e6, 11e6, 10e6, 2.5e6, 3.1e6]),
  kind: Uint8Array.from([0, 1, 0, 1, 2, 3]),
  name: Uint32Array.from([0, 1, 0, 1, 3, 4]),
  node: Float64Array.from([-1, 12, -1, 12, 40, -1]),
  source: Int32Array.from([-1, 0, -1, 0, 1, -1]),
  bytes: Float64Array.from([0, 4096, 0, 4096, 0, 1 << 20]),
  truncated: 3, gpuDropped: 0, ranksWithoutClock: [],
});

test('toRankTimelineData: typed columns become plain arrays; each rank gets its host', () => {
  const t = timeline();
  const d = toRankTimelineData(t, { ranks: [info(0, 'vm'), info(1, 'gpu-box')], missingRanks: [], leftOut: [] });
  for (const col of ['lane', 'start', 'end', 'kind', 'name', 'source', 'bytes'] as const) {
    assert.ok(Array.isArray(d[col]), `${col} is a plain array`);
    assert.deepEqual(d[col], Array.from(t[col] as ArrayLike<number>), col);
  }
  assert.deepEqual(d.hosts, [{ rank: 0, host: 'vm' }, { rank: 1, host: 'gpu-box' }]);
  assert.deepEqual(d.lanes, t.lanes);
  assert.deepEqual(d.names, t.names);
  assert.equal(d.truncated, 3);
  assert.equal(d.spanNs, 27.7e9);
  assert.equal(d.originUnixNs, t.originUnixNs);
  assert.ok(!('node' in d), 'the merged tree\'s nodes stay in the host');
  // It survives structured cloning as it is (what postMessage does).
  assert.deepEqual(structuredClone(d), d);
  assert.deepEqual(toRankTimelineData(t, null).hosts, []);
});

test('rankSliceSource: a slice\'s issuing line, its name and rank; none without a source or out of range', () => {
  const d = toRankTimelineData(timeline(), null);
  assert.deepEqual(rankSliceSource(d, 3), { file: '/w/test/rankview/gloo_steps.py', line: 57, name: 'all_reduce', rank: 1 });
  assert.deepEqual(rankSliceSource(d, 4), { file: '/w/model.py', line: 12, name: 'volta_sgemm', rank: 1 });
  assert.equal(rankSliceSource(d, 0), undefined, 'a step has no source');
  assert.equal(rankSliceSource(d, 6), undefined);
  assert.equal(rankSliceSource(d, -1), undefined);
  assert.equal(rankSliceSource(d, 1.5), undefined);
});
