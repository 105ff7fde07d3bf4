// Unit tests of a distributed job's ranks on one timeline (protocol v11 'rankTimeline') as
// timeline rows and interval columns: rank groups and lane rows in order, overlapping collectives
// stacked, colours by op / kernel name, steps in alternating shades, the banner, bad data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TimelineModel } from '../src/model/timelineModel';
import { rankGroupLabel, rankLaneLabel, rankSliceKindName, rankTimeline, rankTimelineBanner } from '../src/model/rankTimeline';
import type { RankTimelineData } from '../src/protocol';

/** Two ranks on two hosts, lanes given out of order (rank 1's GPU stream first): rank 0 steps and
 *  collectives (two all_reduce calls that overlap, a broadcast), rank 1 steps, collectives and
 *  a GPU stream with two kernels and a copy. */
function synthetic(): RankTimelineData {
  return {
    originUnixNs: 1.7e18, spanNs: 100e6,
    hosts: [{ rank: 0, host: 'node-a' }, { rank: 1, host: 'node-b' }],
    lanes: [
      { rank: 1, kind: 'gpu', device: 0, stream: 7 },
      { rank: 0, kind: 'steps', device: 0, stream: 0 },
      { rank: 0, kind: 'collectives', device: 0, stream: 0 },
      { rank: 1, kind: 'steps', device: 0, stream: 0 },
      { rank: 1, kind: 'collectives', device: 0, stream: 0 },
    ],
    names: ['step 0', 'step 1', 'step 2', 'all_reduce', 'broadcast', 'volta_sgemm', 'elementwise', 'memcpy HtoD'],
    sources: [{ file: '/w/gloo_steps.py', line: 57 }, { file: '/w/gloo_steps.py', line: 60 }],
    //       0        1        2        3        4        5        6        7        8        9        10
    lane:   [1,       1,       1,       2,       2,       2,       3,       4,       0,       0,       0],
    start:  [0,       30e6,    60e6,    20e6,    25e6,    70e6,    0,       20e6,    1e6,     2e6,     3e6],
    end:    [30e6,    60e6,    90e6,    28e6,    29e6,    71e6,    40e6,    28e6,    1.5e6,   2.5e6,   3.2e6],
    kind:   [0,       0,       0,       1,       1,       1,       0,       1,       2,       2,       3],
    name:   [0,       1,       2,       3,       3,       4,       0,       3,       5,       6,       7],
    source: [-1,      -1,      -1,      0,       0,       1,       -1,      0,       -1,      -1,      -1],
    bytes:  [0,       0,       0,       4096,    4096,    64,      0,       4096,    0,       0,       1 << 20],
    truncated: 0, gpuDropped: 0, ranksWithoutClock: [],
  };
}

test('rows: one group per rank ("rank 0 · host"), then steps, collectives, GPU streams', () => {
  const t = rankTimeline(synthetic());
  assert.deepEqual(t.input.rows.map((r) => [r.group, r.label]), [
    ['rank 0 · node-a', 'steps'], ['rank 0 · node-a', 'collectives'],
    ['rank 1 · node-b', 'steps'], ['rank 1 · node-b', 'collectives'], ['rank 1 · node-b', 'GPU d0 s7'],
  ]);
  assert.deepEqual(Array.from(t.rowOfLane), [4, 0, 1, 2, 3]);
  assert.equal(t.input.groupLabels, true, 'the rank groups are named in the gutter (their rows say "steps" only)');
  assert.equal(t.input.origin, 0, 'the axis counts from the earliest rank\'s start, as the tooltips do');
  // Each slice in its lane's row, labelled by its name.
  assert.deepEqual(Array.from(t.input.row as Int32Array), [0, 0, 0, 1, 1, 1, 2, 3, 4, 4, 4]);
  assert.deepEqual(Array.from(t.input.label as Uint32Array), [0, 1, 2, 3, 3, 4, 0, 3, 5, 6, 7]);
  assert.equal(t.input.labels[3], 'all_reduce');
  assert.equal(rankGroupLabel(3, ''), 'rank 3', 'no host known: the rank alone');
  assert.equal(rankLaneLabel({ rank: 0, kind: 'gpu', device: 1, stream: 13 }), 'GPU d1 s13');
});

test('overlapping collectives of one lane are stacked; others stay on level 0', () => {
  const t = rankTimeline(synthetic());
  const depth = Array.from(t.input.depth as Int32Array);
  assert.equal(depth[3], 0);
  assert.equal(depth[4], 1, 'the second all_reduce starts before the first ends');
  assert.equal(depth[5], 0, 'the broadcast after both: back on level 0');
  assert.ok([0, 1, 2, 6, 7, 8, 9, 10].every((i) => depth[i] === 0));
  const m = new TimelineModel(t.input);
  assert.deepEqual(Array.from(m.levels), [1, 2, 1, 1, 1]);
  assert.equal(m.t0, 0);
  assert.equal(m.t1, 90e6);
});

test('colours: steps share one key in alternating shades; collectives by op, kernels by name, everywhere', () => {
  const t = rankTimeline(synthetic());
  const key = Array.from(t.input.colorKey as Int32Array), shade = Array.from(t.input.shade as Uint8Array);
  assert.deepEqual([key[0], key[1], key[2], key[6]], [0, 0, 0, 0]);
  assert.deepEqual([shade[0], shade[1], shade[2], shade[6]], [0, 1, 0, 0], 'each lane\'s steps alternate from its first');
  assert.equal(key[3], key[4]);
  assert.equal(key[3], key[7], 'all_reduce: one colour on every rank');
  assert.notEqual(key[3], key[5], 'broadcast another');
  assert.notEqual(key[8], key[9], 'two kernels, two colours');
  assert.equal(new Set([key[3], key[5], key[8], key[9], key[10]]).size, 5);
  assert.ok([key[3], key[5], key[8], key[9], key[10]].every((k) => k > 0), 'nothing else in the steps\' colour');
});

test('names and the banner', () => {
  assert.equal(rankSliceKindName(1), 'collective call');
  assert.equal(rankSliceKindName(3), 'memory copy');
  assert.equal(rankTimelineBanner({ lane: [0], truncated: 0, ranksWithoutClock: [], gpuDropped: 0 }), '');
  assert.match(rankTimelineBanner({ lane: [], truncated: 0, ranksWithoutClock: [], gpuDropped: 0 }), /^The ranks recorded no collective calls and no GPU activity/);
  const b = rankTimelineBanner({ lane: [0], truncated: 1234567, ranksWithoutClock: [2, 3], gpuDropped: 5 });
  assert.match(b, /^1,234,567 slices are left out/);
  assert.match(b, /Ranks 2, 3 recorded no start clock: their collective calls cannot be placed/);
  assert.match(b, /dropped 5 GPU activity records/);
  assert.match(rankTimelineBanner({ lane: [0], truncated: 0, ranksWithoutClock: [1], gpuDropped: 0 }), /^Rank 1 recorded no start clock: its collective/);
  const t = rankTimeline({ ...synthetic(), truncated: 7 });
  assert.equal(t.data.truncated, 7);
});

test('bad data: one clear error; missing optional columns default', () => {
  assert.throws(() => rankTimeline(null), /not an object/);
  assert.throws(() => rankTimeline({ lanes: [] }), /not a rank timeline/);
  assert.throws(() => rankTimeline({ ...synthetic(), end: [1] }), /column end has 1 entries, expected 11/);
  assert.throws(() => rankTimeline({ ...synthetic(), lane: [9, ...synthetic().lane.slice(1)] }), /slice 0 names lane 9, but there are 5 lanes/);
  assert.throws(() => rankTimeline({ ...synthetic(), name: [99, ...synthetic().name.slice(1)] }), /slice 0 names name 99/);
  assert.throws(() => rankTimeline({ ...synthetic(), lanes: [{ rank: 0, kind: 'cpu' }] }), /lane 0 is not a lane/);
  const { source: _s, bytes: _b, hosts: _h, ...rest } = synthetic();
  const t = rankTimeline(rest);
  assert.deepEqual(t.data.source, new Array(11).fill(-1));
  assert.equal(t.input.rows[0].group, 'rank 0');
  // An empty run: no rows, no slices, still a model.
  const e = rankTimeline({ ...synthetic(), lanes: [], lane: [], start: [], end: [], kind: [], name: [], source: [], bytes: [] });
  assert.equal(new TimelineModel(e.input).n, 0);
});
