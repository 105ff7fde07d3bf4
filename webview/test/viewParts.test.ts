// A large view in parts, without a browser: the first part's ids and left-out children, a node's
// part put in place of its subtree (nodes after it move, ids ascend, nothing drawn moves), ids to
// indexes, and parts that do not fit (another view's) refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlameModel } from '../src/model/flameModel';
import { normalizeFlameData, normalizeNodePart } from '../src/model/normalize';
import { indexOfHostId, loadedView, spliceNodes } from '../src/model/viewParts';
import type { FlameData, NodePart } from '../src/protocol';

/**
 * The host's whole view (ids 0..8):
 *   0 root 100
 *   ├ 1 a 60 ── 2 b 40 ── 3 c 30 ── 4 d 1
 *   │        └ 5 e 2
 *   └ 6 f 38 ── 7 g 37 ── 8 h 0.5
 * The first part, bound 10: 0, 1, 2, 3, 6, 7 (1 left out e, 3 left out d, 7 left out h).
 */
function firstPart(): FlameData {
  return normalizeFlameData({
    view: 'top-down', metric: 'cpu_time', unit: 'ns', total: 100, strings: ['', 'all', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'],
    frames: { kind: [0, 1, 1, 1, 1, 1, 1, 1, 1], name: [1, 2, 3, 4, 5, 6, 7, 8, 9], file: [0, 0, 0, 0, 0, 0, 0, 0, 0],
      line: [0, 0, 0, 0, 0, 0, 0, 0, 0], module: [0, 0, 0, 0, 0, 0, 0, 0, 0] },
    parent: [-1, 0, 1, 2, 0, 4], frame: [0, 1, 2, 3, 6, 7],
    inclusive: [100, 60, 40, 30, 38, 37], exclusive: [2, 18, 10, 29, 1, 36.5],
    node: [0, 1, 2, 3, 6, 7], more: [0, 1, 0, 1, 0, 1], minValue: 10, nodes: 9, viewId: 3,
  });
}

const part = (p: Record<string, unknown>): NodePart => normalizeNodePart(p, 9);

test('the first part: ids, the whole view\'s size, left-out children under the bound', () => {
  const d = firstPart();
  assert.deepEqual([...d.node!], [0, 1, 2, 3, 6, 7]);
  assert.equal(d.nodes, 9);
  assert.equal(d.viewId, 3);
  const v = loadedView(d);
  assert.deepEqual([...v.limit], [0, 10, 0, 10, 0, 10]);
  assert.equal(indexOfHostId(d, 6), 4);
  assert.equal(indexOfHostId(d, 5), -1, 'left out');
  assert.equal(indexOfHostId(normalizeFlameData({ parent: [-1, 0], inclusive: [1, 1] }), 1), 1, 'a whole view: ids are indexes');
  assert.throws(() => normalizeFlameData({ ...d, node: [0, 2, 1, 3, 6, 7] }), /ids must ascend/);
});

test('a node\'s part replaces its subtree; later nodes move; the layout of what was drawn stays', () => {
  const v = loadedView(firstPart());
  const before = new FlameModel(v.data, v.limit);
  // The part of node 1 (a) down to 0: a, b, c, d, e.
  const p = part({ parent: [-1, 0, 1, 2, 0], frame: [1, 2, 3, 4, 5], inclusive: [60, 40, 30, 1, 2], exclusive: [18, 10, 29, 1, 2],
    node: [1, 2, 3, 4, 5], more: [0, 0, 0, 0, 0], minValue: 0 });
  const next = spliceNodes(v, p)!;
  assert.ok(next);
  const d = next.data;
  assert.deepEqual([...d.node!], [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual([...d.parent], [-1, 0, 1, 2, 3, 1, 0, 6]);
  assert.deepEqual([...next.limit], [0, 0, 0, 0, 0, 0, 0, 10], 'a and c complete; h still left out');
  const after = new FlameModel(d, next.limit);
  for (const id of [0, 1, 2, 3, 6, 7]) {
    const i = before.indexOf(id), j = after.indexOf(id);
    assert.equal(after.x0[j], before.x0[i], `node ${id} stays`);
    assert.equal(after.x1[j], before.x1[i]);
  }
  // The new children come after the old ones: e (2) after b (40) under a.
  assert.ok(after.x0[after.indexOf(5)] >= after.x1[after.indexOf(2)]);
  // The last node's part: h under g.
  const last = spliceNodes(next, part({ parent: [-1, 0], frame: [7, 8], inclusive: [37, 0.5], exclusive: [36.5, 0.5], node: [7, 8], more: [0, 0], minValue: 0 }))!;
  assert.deepEqual([...last.data.node!], [0, 1, 2, 3, 4, 5, 6, 7, 8]);
  assert.equal(last.data.parent[8], 7);
  assert.equal(last.data.minValue, 0, 'nothing left out any more');
});

test('a node whose children were all left out (past the rows sent) is needed at any zoom', () => {
  const d = firstPart();
  const v = loadedView({ ...d, more: Uint8Array.from([0, 1, 0, 2, 0, 1]) });
  assert.deepEqual([...v.limit], [0, 10, 0, 30, 0, 10], 'its own value');
});

test('a part of another view, or of a node not there, is refused; bad parts throw', () => {
  const v = loadedView(firstPart());
  assert.equal(spliceNodes(v, part({ parent: [-1], frame: [4], inclusive: [1], exclusive: [1], node: [4], more: [0], minValue: 0 })), null, 'node 4 is not here');
  assert.equal(spliceNodes(v, part({ parent: [-1], frame: [1], inclusive: [61], exclusive: [61], node: [1], more: [0], minValue: 0 })), null, 'another view\'s node 1');
  assert.throws(() => part({ parent: [0], frame: [1], inclusive: [1], exclusive: [1], node: [1], more: [0] }), /node 0 must be its root/);
  assert.throws(() => part({ parent: [-1, 0], frame: [1, 99], inclusive: [1, 1], exclusive: [1, 1], node: [1, 2], more: [0, 0] }), /frame table has 9/);
  assert.throws(() => part({ parent: [-1, 0], frame: [1, 2], inclusive: [1, 1], exclusive: [1, 1], node: [2, 1], more: [0, 0] }), /ids must ascend/);
});
