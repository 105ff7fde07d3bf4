// Unit tests of the timeline: the generic model (layout, window, hit test), the region trace →
// rows/intervals conversion (synthetic traces, and real H100 buffers decoded by the CLI when it is
// built), tick steps and colours.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { TimelineModel } from '../src/model/timelineModel';
import { intervalName, laneLabel, regionTimeline } from '../src/model/regionTimeline';
import { groupHeadline, groupShares } from '../src/model/groupShares';
import { niceTicks, preciseTime, tickLabels } from '../src/render/timelineLabels';
import { formatValue } from '../src/model/format';
import { TimelineColors } from '../src/render/timelineColors';
import type { RegionShare, RegionTraceData } from '../src/protocol';
import type { Theme } from '../src/ui/theme';

const REPO = resolve(__dirname, '..', '..', '..');   // test/out/ → repo
const FIXTURES = resolve(REPO, 'test/fixtures/h100/regions');

/** Two lanes on SMs 5 and 2 (so the second lane is the first row): a kernel region, a loop with
 *  two iterations, an async load that straddles them. */
function synthetic(): RegionTraceData {
  return {
    lanes: [
      { block: 1, group: 0, smid: 5, grouping: 'warp-group', start_ns: 0, end_ns: 1000 },
      { block: 0, group: 1, smid: 2, grouping: 'warp', block_xyz: [0, 1, 0], start_ns: 0, end_ns: 1000 },
    ],
    intervals: [
      { lane: 0, region: 1, name: 'kernel', depth: 0, start_ns: 0, end_ns: 1000, raw_start_ns: 0, raw_end_ns: 1100 },
      { lane: 0, region: 2, name: 'loop', depth: 1, start_ns: 100, end_ns: 500, iteration: 0 },
      { lane: 0, region: 2, name: 'loop', depth: 1, start_ns: 500, end_ns: 900, iteration: 1 },
      { lane: 0, region: 3, name: 'load', depth: 1, start_ns: 400, end_ns: 600, wait_ns: 50 },
      { lane: 0, region: 3, name: 'load', depth: 1, start_ns: 450, end_ns: 700, wait_ns: 10 },
      { lane: 1, region: 9, depth: 0, start_ns: 200, end_ns: 300 },
    ],
    issues: [],
  };
}

test('regions → rows: one per lane, ordered by SM, block, lane; labels name SM, block, lane', () => {
  const t = regionTimeline(synthetic());
  assert.deepEqual(Array.from(t.laneOfRow), [1, 0]);
  assert.deepEqual(Array.from(t.rowOfLane), [1, 0]);
  assert.deepEqual(t.input.rows.map((r) => r.label), ['SM 2 · block 0 (0,1,0) · warp 1', 'SM 5 · block 1 · wg 0']);
  assert.equal(laneLabel(t.lanes[0]), 'SM 5 · block 1 · wg 0');
  assert.deepEqual(Array.from(t.input.row), [1, 1, 1, 1, 1, 0]);
  assert.equal(intervalName(t.intervals[1]), 'loop #0');
  assert.equal(intervalName(t.intervals[5]), 'region 9');
  assert.deepEqual(Array.from(t.input.colorKey), [1, 2, 2, 3, 3, 9]);
  assert.deepEqual(Array.from(t.input.shade!), [0, 0, 1, 0, 0, 0]);
});

test('regions → levels: nested by depth; async regions below, overlapping ones on separate levels', () => {
  const t = regionTimeline(synthetic());
  // kernel 0, iterations 1, loads after the deepest synchronous level (1): 2 and 3 (they overlap).
  assert.deepEqual(Array.from(t.input.depth), [0, 1, 1, 2, 3, 0]);
  const m = new TimelineModel(t.input);
  assert.equal(m.levels[1], 4);
  assert.equal(m.levels[0], 1);
});

test('regions: bad input says what is wrong', () => {
  assert.throws(() => regionTimeline(null), /not an object/);
  assert.throws(() => regionTimeline({ traceEvents: [] }), /not a decoded region trace/);
  assert.throws(() => regionTimeline({ lanes: [], intervals: [{ lane: 0, start_ns: 0, end_ns: 1 }] }), /lane 0, but there are 0 lanes/);
  assert.throws(() => regionTimeline({ lanes: [{}], intervals: [{ lane: 0, region: 1 }] }), /no start_ns\/end_ns/);
});

test('model: layout stacks levels, gaps between rows and wider ones between groups', () => {
  const m = new TimelineModel({
    rows: [{ label: 'a', group: 'g1' }, { label: 'b', group: 'g1' }, { label: 'c', group: 'g2' }],
    labels: ['x'], row: [0, 0, 1, 2], start: [0, 1, 0, 5], end: [10, 2, 3, 8], depth: [0, 2, 0, 0], label: [0, 0, 0, 0], colorKey: [0, 0, 0, 0],
  });
  m.layout({ levelHeight: 10, rowGap: 2, groupGap: 7 });
  assert.deepEqual(Array.from(m.rowY), [0, 32, 49]);
  assert.deepEqual(Array.from(m.rowH), [30, 10, 10]);
  assert.equal(m.contentHeight, 59);
  assert.equal(m.rowAt(5), 0);
  assert.equal(m.rowAt(31), -1);   // the gap
  assert.equal(m.rowAt(40), 1);
  assert.equal(m.rowAt(58), 2);
  assert.equal(m.firstRowBelow(35), 1);
  assert.equal(m.t0, 0); assert.equal(m.t1, 10);
});

test('model: zoom keeps the anchor in place, pan stays inside the trace, reset', () => {
  const m = new TimelineModel({ rows: [{ label: 'a', group: '' }], labels: ['x'], row: [0], start: [100], end: [1100], depth: [0], label: [0], colorKey: [0] });
  m.zoomAt(350, 0.5);
  assert.equal(m.span, 500);
  assert.ok(Math.abs((350 - m.v0) / m.span - 0.25) < 1e-12, 'the anchor stays at a quarter of the width');
  m.pan(-10000);
  assert.equal(m.v0, 100);
  m.pan(10000);
  assert.equal(m.v1, 1100);
  assert.ok(m.zoomed);
  m.zoomAt(500, 1e-12);
  assert.ok(Math.abs(m.span - m.minSpan) < 1e-9);
  m.zoomAt(500, 1e12);
  assert.equal(m.span, 1000);
  m.show(200, 300);
  assert.equal(m.v0, 200); assert.equal(m.v1, 300);
  m.reset();
  assert.ok(!m.zoomed);
  assert.equal(m.xAt(600, 1000), 500);
  assert.equal(m.timeAt(500, 1000), 600);
});

test('model: hit test by row, level and time, with a tolerance for thin intervals', () => {
  const t = regionTimeline(synthetic());
  const m = new TimelineModel(t.input);
  const row = t.rowOfLane[0];
  assert.equal(m.hitTest(row, 0, 50), 0);
  assert.equal(m.hitTest(row, 1, 200), 1);
  assert.equal(m.hitTest(row, 1, 700), 2);
  assert.equal(m.hitTest(row, 2, 420), 3);
  assert.equal(m.hitTest(row, 3, 650), 4);
  assert.equal(m.hitTest(row, 3, 300), -1);
  assert.equal(m.hitTest(row, 3, 440, 5), -1);
  assert.equal(m.hitTest(row, 3, 440, 10), 4);
  assert.equal(m.hitTest(t.rowOfLane[1], 0, 250), 5);
  assert.equal(m.hitTest(5, 0, 250), -1);
  assert.equal(m.labelOf(5), 'region 9');
});

test('model: an end before its start is drawn as zero length; bad rows are rejected', () => {
  const m = new TimelineModel({ rows: [{ label: 'a', group: '' }], labels: [''], row: [0], start: [5], end: [3], depth: [0], label: [0], colorKey: [0] });
  assert.equal(m.end[0], 5);
  assert.throws(() => new TimelineModel({ rows: [], labels: [''], row: [0], start: [0], end: [1], depth: [0], label: [0], colorKey: [0] }), /row 0, but there are 0 rows/);
  assert.throws(() => new TimelineModel({ rows: [], labels: [], row: [0], start: [], end: [], depth: [], label: [], colorKey: [] }), /column start/);
});

test('ticks: 1-2-5 steps, at most the number asked for', () => {
  assert.deepEqual(niceTicks(0, 1000, 5), { step: 200, ticks: [0, 200, 400, 600, 800, 1000] });
  const r = niceTicks(13, 87, 4);
  assert.equal(r.step, 20);
  assert.deepEqual(r.ticks, [20, 40, 60, 80]);
  assert.deepEqual(niceTicks(5, 5, 4).ticks, []);
});

test('colours: one per region id, six chart colours before variants; odd iterations shaded', () => {
  const c = (i: number): [number, number, number, number] => [i * 20, 100, 200 - i * 20, 255];
  const theme = { kind: 'dark', kindColors: [c(0), c(1), c(2), c(3), c(4), c(5), c(6), c(7), c(8)] } as unknown as Theme;
  const tc = new TimelineColors(theme);
  const first = [0, 1, 2, 3, 4, 5].map((k) => tc.color(k, 0).join());
  assert.equal(new Set(first).size, 6);
  assert.notEqual(tc.color(6, 0).join(), tc.color(0, 0).join());
  assert.deepEqual(tc.color(3, 0), tc.color(3, 0));
  assert.notEqual(tc.color(3, 1).join(), tc.color(3, 0).join());
});

/** The CLI, when built (test.sh builds it before the TypeScript suites). */
function cli(): string | null {
  const dirs = [process.env.STRATA_BUILD_DIR, 'build'].filter((d): d is string => !!d);
  for (const d of dirs) { const p = resolve(REPO, d, 'bin/strata'); if (existsSync(p)) return p; }
  return null;
}

for (const name of ['gemm_nested_loop', 'warpspec', 'gemm_overflow']) {
  test(`real H100 buffer ${name}: every lane a row, levels never overlap`, { skip: cli() ? false : 'the strata CLI is not built' }, () => {
    const json = execFileSync(cli()!, ['regions', resolve(FIXTURES, `${name}.bin`), '--names-file', resolve(FIXTURES, `${name}.json`), '--format', 'json'],
      { maxBuffer: 256 << 20 }).toString();
    const data = JSON.parse(json) as RegionTraceData;
    const t = regionTimeline(data);
    const m = new TimelineModel(t.input);
    assert.equal(m.rowCount, data.lanes.length);
    assert.equal(m.n, data.intervals.length);
    assert.ok(m.n > 100, `${m.n} intervals`);
    // Rows ordered by SM, then block, then lane.
    for (let r = 1; r < m.rowCount; r++) {
      const a = t.lanes[t.laneOfRow[r - 1]], b = t.lanes[t.laneOfRow[r]];
      assert.ok(a.smid < b.smid || (a.smid === b.smid && (a.block < b.block || (a.block === b.block && a.group < b.group))), `row ${r} order`);
    }
    // On one level of one row, intervals either nest or are disjoint: nothing is drawn over
    // another one partially.
    for (let r = 0; r < m.rowCount; r++) {
      const open: number[][] = [];
      for (let k = m.rowStart[r]; k < m.rowStart[r + 1]; k++) {
        const i = m.order[k], d = m.depth[i];
        const prev = (open[d] ??= []);
        for (const j of prev) {
          const nested = m.start[i] >= m.start[j] && m.end[i] <= m.end[j];
          assert.ok(m.end[j] <= m.start[i] + 1e-6 || nested, `${name}: row ${r} level ${d}: ${m.labelOf(j)} [${m.start[j]}, ${m.end[j]}] and ${m.labelOf(i)} [${m.start[i]}, ${m.end[i]}] overlap`);
        }
        prev.push(i);
      }
    }
    // Every region has a name from the sidecar.
    assert.ok(t.intervals.every((iv) => typeof iv.name === 'string' && iv.name.length > 0));
  });
}

test('group shares: parsed from the trace, malformed entries left out; the headline', () => {
  const share = (region: number, name: string, v: number, more: Partial<RegionShare> = {}): RegionShare =>
    ({ region, name, share: v, outermost: false, container: false, async: false, ...more });
  const g = groupShares([
    { group: 0, lanes: 64, regions: [share(10, 'producer', 1, { outermost: true, container: true }), share(11, 'wait empty', 0.6), { region: 'x' }] },
    { group: 1, lanes: 64, regions: [share(13, 'consumer', 1, { outermost: true, container: true }), share(17, 'load', 0.9, { async: true }), share(15, 'mma', 0.8)] },
    'junk',
  ]);
  assert.equal(g.length, 2);
  assert.equal(g[0].regions.length, 2, 'the entry without a numeric region is left out');
  assert.equal(groupHeadline(g, 'wg'), 'wg 0: wait empty 60% · wg 1: mma 80%', 'containers and async loads are skipped');
  assert.deepEqual(groupShares(undefined), []);
  // Every group in the same region: one phrase with the range.
  const same = [{ group: 0, lanes: 1, regions: [share(15, 'mma', 0.61)] }, { group: 1, lanes: 1, regions: [share(15, 'mma', 0.634)] }];
  assert.equal(groupHeadline(same, 'wg'), 'each wg: mma 61–63%');
  // Outermost regions side by side (no enclosing one) are phases: they count.
  const phases = [{ group: 0, lanes: 8, regions: [share(30, 'work', 0.81, { outermost: true }), share(31, 'reduce', 0.19, { outermost: true })] },
    { group: 1, lanes: 8, regions: [share(30, 'work', 0.85, { outermost: true }), share(31, 'reduce', 0.15, { outermost: true })] }];
  assert.equal(groupHeadline(phases, 'group'), 'each group: work 81–85%');
  // Groups naming the same region share a phrase: a run of groups as a range, others listed.
  const ws = [0, 1, 2, 3].map((w) => ({ group: w, lanes: 32, regions: [share(2, 'softmax', 0.47 + w * 0.003)] }))
    .concat([{ group: 6, lanes: 32, regions: [share(6, 'wait_slot', 0.962)] }]);
  assert.equal(groupHeadline(ws, 'warp'), 'warp 0–3: softmax 47–48% · warp 6: wait_slot 96%');
  const split = [{ group: 0, lanes: 1, regions: [share(1, 'a', 0.5)] }, { group: 1, lanes: 1, regions: [share(2, 'b', 0.5)] },
    { group: 2, lanes: 1, regions: [share(1, 'a', 0.5)] }];
  assert.equal(groupHeadline(split, 'wg'), 'wg 0, 2: a 50% · wg 1: b 50%');
});

test('group shares on the H100 warp-specialized GEMM: the JSON the timeline reads says what the text says', { skip: cli() ? false : 'the strata CLI is not built' }, () => {
  const args = ['regions', resolve(FIXTURES, 'warpspec.bin'), '--names-file', resolve(FIXTURES, 'warpspec.json')];
  const data = JSON.parse(execFileSync(cli()!, [...args, '--format', 'json'], { maxBuffer: 256 << 20 }).toString()) as RegionTraceData;
  const text = execFileSync(cli()!, args).toString();
  const g = groupShares(data.groups);
  assert.equal(g.length, 2);
  for (const grp of g) {
    const line = text.split('\n').find((l) => l.trim().startsWith(`warp group ${grp.group} (${grp.lanes} lanes):`));
    assert.ok(line, `the CLI prints warp group ${grp.group}: ${text}`);
    const cliShares = [...line!.matchAll(/ ([^,:]+?) \((\d+)\) ([\d.]+)%/g)].map((m) => [m[1], Number(m[3])]);
    assert.deepEqual(grp.regions.map((r) => [r.name, Math.round(r.share * 1000) / 10]), cliShares, line);
  }
  // The producer (warp group 0) mostly waits for empty slots; the consumer computes.
  assert.match(groupHeadline(g, 'wg'), /^wg 0: wait empty \d+% · wg 1: mma \d+%$/);
  // The pipelined GEMM: both warp groups do the same; the headline skips the kernel and k-loop
  // (containers) and the async load (it overlaps the compute).
  const nested = JSON.parse(execFileSync(cli()!, ['regions', resolve(FIXTURES, 'gemm_nested_loop.bin'), '--names-file',
    resolve(FIXTURES, 'gemm_nested_loop.json'), '--format', 'json'], { maxBuffer: 256 << 20 }).toString()) as RegionTraceData;
  assert.match(groupHeadline(groupShares(nested.groups), 'wg'), /^each wg: compute \d+(–\d+)?%$/);
  // Proton's attention trace: per warp, its repeated scopes count.
  const proton = JSON.parse(execFileSync(cli()!, ['regions', '--proton', resolve(REPO, 'test/fixtures/h100/proton/attention.chrome_trace.gz'),
    '--format', 'json'], { maxBuffer: 256 << 20 }).toString()) as RegionTraceData;
  assert.match(groupHeadline(groupShares(proton.groups), 'warp'), /^each warp: softmax \d+(–\d+)?%$/);
  // The warp-specialized Gluon attention: four consumer warps in softmax, the producer warp
  // waiting for a free slot.
  const gluon = JSON.parse(execFileSync(cli()!, ['regions', '--proton', resolve(REPO, 'test/fixtures/h100/proton/attention_ws_gluon.chrome_trace.gz'),
    '--cycles-per-ns', '1.98', '--format', 'json'], { maxBuffer: 256 << 20 }).toString()) as RegionTraceData;
  assert.equal(groupHeadline(groupShares(gluon.groups), 'warp'), 'warp 0–3: softmax 47–48% · warp 6: wait_slot 96%');
});

test('tick labels: three digits unless two neighbours read the same, then the decimals the step needs', () => {
  assert.deepEqual(tickLabels([0, 200, 400], 200, 'ns', formatValue), ['0 s', '200 ns', '400 ns']);
  // A 50 ms step 12 s after the axis's 0 (a rank timeline zoomed in late in the run).
  const { step, ticks } = niceTicks(11.98e9, 12.21e9, 5);
  assert.equal(step, 50e6);
  assert.deepEqual(tickLabels(ticks, step, 'ns', formatValue), ['12.00 s', '12.05 s', '12.10 s', '12.15 s', '12.20 s']);
  const fine = niceTicks(2.0001e6, 2.0009e6, 4);
  assert.deepEqual(tickLabels(fine.ticks, fine.step, 'ns', formatValue), ['2.0002 ms', '2.0004 ms', '2.0006 ms', '2.0008 ms']);
  assert.deepEqual(tickLabels([1, 1], 0.001, 'count', formatValue), ['1', '1'], 'not a time: as formatted');
});

test('a slice\'s start to a tenth of its duration: more decimals only where three digits do not resolve it', () => {
  assert.equal(preciseTime(11.956579e9, 115, 'ns', formatValue), '11.9565790 s');  // a 1.15 µs kernel 12 s in
  assert.equal(preciseTime(12.3e6, 1e5, 'ns', formatValue), '12.3 ms');
});
