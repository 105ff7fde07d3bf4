import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SandwichColumns, ViewColumns, ViewPart } from '../../native/addon/index';
import { checkColumns, isViewName, metricIndex, profileTitle, toNodePart, toProfileMessage, toSandwichData, topFrames, viewOptions, widthMetrics } from '../src/profileMessage';
import { PART_DEPTH, PART_NODES, WHOLE_VIEW_NODES, firstPart } from '../src/viewParts';
import { PROTOCOL_VERSION } from '../../webview/src/protocol';

function columns(over: Partial<ViewColumns> = {}): ViewColumns {
  return {
    view: 'top-down', metric: 'cpu_time', unit: 'ns', metricIndex: 0, total: 100, nodes: 4,
    strings: ['', '<root>', 'train', '/w/a.py', 'matmul', '/w/m.cpp', 'libm.so'],
    frames: {
      kind: Uint8Array.from([0, 1, 2, 1]),
      name: Uint32Array.from([1, 2, 4, 2]),
      file: Uint32Array.from([0, 3, 5, 3]),
      line: Uint32Array.from([0, 10, 7, 12]),
      module: Uint32Array.from([0, 0, 6, 0]),
    },
    parent: Int32Array.from([-1, 0, 1, 0]),
    frame: Uint32Array.from([0, 1, 2, 3]),
    inclusive: Float64Array.from([100, 70, 50, 30]),
    exclusive: Float64Array.from([0, 20, 50, 30]),
    count: Float64Array.from([0, 2, 5, 3]),
    ...over,
  };
}

const metrics = [{ name: 'cpu_time', unit: 'ns' }, { name: 'samples', unit: 'count' }];

test('toProfileMessage: columns pass through unchanged, typed', () => {
  const c = columns();
  const m = toProfileMessage(c, metrics, 'p.strata');
  assert.equal(m.type, 'profile');
  assert.equal(m.version, PROTOCOL_VERSION);
  assert.equal(m.title, 'p.strata');
  assert.deepEqual(m.metrics, ['cpu_time', 'samples']);
  const d = m.data;
  assert.equal(d.view, 'top-down');
  assert.equal(d.metric, 'cpu_time');
  assert.equal(d.unit, 'ns');
  assert.equal(d.total, 100);
  assert.ok(d.parent instanceof Int32Array && d.frames.kind instanceof Uint8Array && d.frame instanceof Uint32Array && d.inclusive instanceof Float64Array);
  assert.equal(d.parent, c.parent);   // no copy
  assert.equal(d.frames, c.frames);
  assert.deepEqual([...d.frame].map((f) => d.strings[d.frames.name[f]]), ['<root>', 'train', 'matmul', 'train']);
  assert.deepEqual(Object.keys(d).sort(), ['byFunction', 'exclusive', 'frame', 'frameFilter', 'frames', 'inclusive', 'metric', 'nodes', 'parent', 'strings', 'total', 'unit', 'view'].sort());
});

test('toProfileMessage: bottom-up, flat maps to top-down, metric names from the list', () => {
  assert.equal(toProfileMessage(columns({ view: 'bottom-up' }), metrics, '').data.view, 'bottom-up');
  assert.equal(toProfileMessage(columns({ view: 'flat' }), metrics, '').data.view, 'top-down');
  const m = toProfileMessage(columns({ metric: '', unit: '', metricIndex: 1 }), metrics, '');
  assert.equal(m.data.metric, 'samples');
  assert.equal(m.data.unit, 'count');
  assert.equal(toProfileMessage(columns({ total: NaN }), metrics, '').data.total, 100);
  assert.deepEqual(toProfileMessage(columns({ strings: [] }), metrics, '').data.strings, ['']);
});

test('checkColumns: readable errors for broken views', () => {
  assert.equal(checkColumns(columns()), 4);
  assert.throws(() => checkColumns(columns({ parent: new Int32Array(0) })), /no samples/);
  assert.throws(() => checkColumns(columns({ frame: Uint32Array.from([0, 1]) })), /column "frame" has 2 entries, expected 4/);
  const c = columns();
  assert.throws(() => checkColumns(columns({ frames: { ...c.frames, line: Uint32Array.from([0, 1]) } })), /column "frames.line" has 2 entries, expected 4/);
  assert.throws(() => checkColumns(columns({ frame: Uint32Array.from([0, 1, 2, 9]) })), /node 3 names frame 9, the frame table has 4/);
  assert.throws(() => checkColumns(columns({ parent: Int32Array.from([0, 0, 1, 0]) })), /root/);
  assert.throws(() => checkColumns(columns({ parent: Int32Array.from([-1, 0, 3, 0]) })), /node 2 is not in preorder/);
});

test('metricIndex, isViewName, profileTitle, topFrames', () => {
  assert.equal(metricIndex(metrics, 'samples'), 1);
  assert.equal(metricIndex(metrics, 'nope', 1), 1);
  assert.equal(metricIndex(metrics, undefined, 7), 0);
  assert.ok(isViewName('top-down') && isViewName('bottom-up') && !isViewName('flat') && !isViewName(3));
  assert.equal(profileTitle('/a/b/run.strata', { command: 'python3 x.py' }), 'run.strata — python3 x.py');
  assert.equal(profileTitle('/a/b/run.strata', {}), 'run.strata');
  assert.deepEqual(topFrames(columns()), ['train', 'train']);
});

test('v6: widths only by additive metrics with values; metricInfo, origins and the view options pass', () => {
  const ms = [
    { name: 'cpu_time', unit: 'ns', nature: 'additive' as const, count: 10 },
    { name: 'gpu_time', unit: 'ns', nature: 'additive' as const, count: 0 },
    { name: 'grid_size', unit: 'blocks', nature: 'attribute' as const, count: 5 },
    { name: 'memcpy_bytes', unit: 'bytes', nature: 'additive' as const, count: 2 },
  ];
  assert.deepEqual(widthMetrics(ms, 'cpu_time'), ['cpu_time', 'memcpy_bytes']);
  assert.deepEqual(widthMetrics(ms, 'gpu_time'), ['cpu_time', 'gpu_time', 'memcpy_bytes'], 'the current metric stays offered');
  const c = columns({ frameFilter: 'python', byFunction: true,
    frames: { ...columns().frames, origin: Uint8Array.from([0, 1, 2, 1]), flags: Uint8Array.from([0, 0, 1, 0]) } });
  const msg = toProfileMessage(c, ms, 't');
  assert.deepEqual(msg.metrics, ['cpu_time', 'memcpy_bytes']);
  assert.equal(msg.metricInfo?.find((m) => m.name === 'grid_size')?.nature, 'attribute');
  assert.equal(msg.data.frameFilter, 'python');
  assert.equal(msg.data.byFunction, true);
  assert.equal(msg.data.frames.flags![2], 1);
  assert.throws(() => checkColumns(columns({ frames: { ...columns().frames, origin: Uint8Array.from([0]) } })), /frames.origin/);
  assert.deepEqual(viewOptions({ type: 'requestView', view: 'top-down', metric: 'x', frames: 'all' }, { frames: 'python', byFunction: true }),
    { frames: 'all', byFunction: true });
  assert.deepEqual(viewOptions({ type: 'requestView', view: 'top-down', metric: 'x', frames: 'bogus' as never, byFunction: 'no' as never }, {}), {});
});

test('v7: a part of a view passes its ids, left-out children, bound, size and view id', () => {
  const c = columns({ node: Uint32Array.from([0, 5, 9, 12]), more: Uint8Array.from([0, 1, 0, 0]), minValue: 3, nodes: 40 });
  const d = toProfileMessage(c, metrics, 'p', 7).data;
  assert.equal(d.node, c.node);
  assert.equal(d.more, c.more);
  assert.equal(d.minValue, 3);
  assert.equal(d.nodes, 40);
  assert.equal(d.viewId, 7);
  const whole = toProfileMessage(columns(), metrics, 'p').data;
  assert.equal(whole.node, undefined);
  assert.equal(whole.viewId, undefined);
  assert.throws(() => checkColumns(columns({ node: Uint32Array.from([0, 1]), more: Uint8Array.from([0, 0, 0, 0]) })), /column "node" has 2 entries, expected 4/);
});

test('v7: a node\'s part and a sandwich become protocol records, checked', () => {
  const part: ViewPart = {
    view: 'top-down', root: 5, parent: Int32Array.from([-1, 0]), frame: Uint32Array.from([1, 2]),
    inclusive: Float64Array.from([10, 4]), exclusive: Float64Array.from([6, 4]), count: Float64Array.from([1, 1]),
    node: Uint32Array.from([5, 6]), more: Uint8Array.from([1, 0]), minValue: 2,
  };
  const p = toNodePart(part);
  assert.deepEqual([...p.node], [5, 6]);
  assert.equal(p.minValue, 2);
  assert.throws(() => toNodePart({ ...part, node: Uint32Array.from([5]) }), /column "node" has 1 entries/);
  assert.throws(() => toNodePart({ ...part, parent: Int32Array.from([0, 0]) }), /node 0 is not its root/);
  const tree = { parent: Int32Array.from([-1, 0]), frame: Uint32Array.from([1, 2]), inclusive: Float64Array.from([9, 5]),
    exclusive: Float64Array.from([4, 5]), count: Float64Array.from([0, 0]) };
  const sw: SandwichColumns = { calls: 2, partial: 'partial sandwich: …', metric: 'cpu_time', unit: 'ns', total: 100,
    strings: columns().strings, frames: columns().frames, frameFilter: 'python', byFunction: true, callers: tree, callees: tree };
  const d = toSandwichData(sw);
  assert.equal(d.calls, 2);
  assert.equal(d.partial, 'partial sandwich: …');
  assert.equal(d.callers.view, 'top-down');
  assert.equal(d.callees.total, 9);
  assert.equal(d.callees.frameFilter, 'python');
  assert.equal(d.callers.byFunction, true);
});

test('v7: the first part is half a pixel of the graph\'s width; small views whole', () => {
  assert.deepEqual(firstPart(1000), { minShare: 0.0005, maxNodes: PART_NODES, maxDepth: PART_DEPTH, wholeUpTo: WHOLE_VIEW_NODES });
  assert.equal(firstPart(Number.NaN).minShare, 0.5 / 1600);
  assert.equal(firstPart(5).minShare, 0.5 / 1600, 'a width that cannot be right: the default');
  assert.equal(firstPart(1e9).minShare, 0.5 / 16384);
});
