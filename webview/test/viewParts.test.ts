// A large view in parts, without a browser: the first part's ids and left-out children, a node's
// part taken in (its nodes not held added at the end: nothing held moves or changes index, the
// layout of what was drawn stays, only the new nodes are laid out), ids to indexes, and parts
// that do not fit (another view's) refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlameModel } from '../src/model/flameModel';
import { normalizeFlameData, normalizeNodePart } from '../src/model/normalize';
import { indexOfHostId, LoadedView } from '../src/model/viewParts';
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
  const v = new LoadedView(d);
  assert.deepEqual([...v.limit], [0, 10, 0, 10, 0, 10]);
  assert.equal(v.complete, false);
  assert.equal(indexOfHostId(d, 6), 4);
  assert.equal(v.indexOf(6), 4);
  assert.equal(indexOfHostId(d, 5), -1, 'left out');
  assert.equal(indexOfHostId(normalizeFlameData({ parent: [-1, 0], inclusive: [1, 1] }), 1), 1, 'a whole view: ids are indexes');
  assert.throws(() => normalizeFlameData({ ...d, node: [0, 2, 1, 3, 6, 7] }), /ids must ascend/);
});

test('a node\'s part: its new nodes added at the end; nothing held moves; the drawn layout stays; only new nodes laid out', () => {
  const v = new LoadedView(firstPart());
  const m = new FlameModel(v.data, v.limit);
  const before = { x0: [...m.x0.subarray(0, m.n)], x1: [...m.x1.subarray(0, m.n)] };
  // The part of node 1 (a) down to 0: a, b, c, d, e.
  const p = part({ parent: [-1, 0, 1, 2, 0], frame: [1, 2, 3, 4, 5], inclusive: [60, 40, 30, 1, 2], exclusive: [18, 10, 29, 1, 2],
    node: [1, 2, 3, 4, 5], more: [0, 0, 0, 0, 0], minValue: 0 });
  const added = v.add(p)!;
  assert.deepEqual(added, { from: 6, to: 8 });
  const d = v.data;
  assert.deepEqual([...d.node!], [0, 1, 2, 3, 6, 7, 4, 5], 'd and e at the end');
  assert.deepEqual([...d.parent], [-1, 0, 1, 2, 0, 4, 3, 1]);
  assert.deepEqual([...v.limit], [0, 0, 0, 0, 0, 10, 0, 0], 'a and c complete; h still left out');
  m.grow(d, v.limit, added.from, (id) => v.indexOf(id));
  assert.equal(m.n, 8);
  for (let i = 0; i < 6; i++) {
    assert.equal(m.x0[i], before.x0[i], `node ${i} stays`);
    assert.equal(m.x1[i], before.x1[i]);
  }
  // Laid out as a model made from scratch lays them out.
  const fresh = new FlameModel(d, v.limit);
  for (let i = 0; i < 8; i++) { assert.equal(m.x0[i], fresh.x0[i], `x0 ${i}`); assert.equal(m.x1[i], fresh.x1[i], `x1 ${i}`); }
  assert.deepEqual([...m.depth.subarray(0, 8)], [0, 1, 2, 3, 1, 2, 4, 2]);
  assert.equal(m.maxDepth, 4);
  // The new children come after the old ones: e (2) after b (40) under a.
  assert.ok(m.x0[v.indexOf(5)] >= m.x1[v.indexOf(2)]);
  assert.equal(m.indexOf(5), 7);
  assert.equal(m.subtreeSize(1), 5);
  // The last node's part: h under g.
  const last = v.add(part({ parent: [-1, 0], frame: [7, 8], inclusive: [37, 0.5], exclusive: [36.5, 0.5], node: [7, 8], more: [0, 0], minValue: 0 }))!;
  assert.deepEqual(last, { from: 8, to: 9 });
  assert.deepEqual([...v.data.node!], [0, 1, 2, 3, 6, 7, 4, 5, 8]);
  assert.equal(v.data.parent[8], 5);
  assert.equal(v.complete, true, 'nothing left out any more');
  // A part again (asked for twice): nothing added, nothing changed.
  assert.deepEqual(v.add(p), { from: 9, to: 9 });
  assert.equal(v.size, 9);
});

test('a part taken in while zoomed: the focus and the viewport stay, new nodes in the focused subtree are laid out in it', () => {
  const v = new LoadedView(firstPart());
  const m = new FlameModel(v.data, v.limit);
  m.layout(1);
  m.setViewport(0.25, 0.75);
  const added = v.add(part({ parent: [-1, 0, 1, 2, 0], frame: [1, 2, 3, 4, 5], inclusive: [60, 40, 30, 1, 2], exclusive: [18, 10, 29, 1, 2],
    node: [1, 2, 3, 4, 5], more: [0, 0, 0, 0, 0], minValue: 0 }))!;
  m.grow(v.data, v.limit, added.from, (id) => v.indexOf(id));
  assert.equal(m.focus, 1);
  assert.deepEqual([m.v0, m.v1], [0.25, 0.75]);
  const e = v.indexOf(5), d = v.indexOf(4);
  assert.ok(m.isInFocusSubtree(e) && m.isInFocusSubtree(d));
  assert.equal(m.x0[e], 40 / 60);
  assert.equal(m.x1[e], 42 / 60);
  assert.equal(m.x1[d] - m.x0[d], 1 / 60);
  assert.ok(!m.isInFocusSubtree(v.indexOf(6)));
});

test('a part\'s new child that goes before a sibling held already: the siblings are laid out again in order', () => {
  const v = new LoadedView(firstPart());
  const m = new FlameModel(v.data, v.limit);
  // A part of the root saying that a child with id 5 (under a, value 2) … and one with id 0.5
  // is impossible; a child of the root with an id between 1's subtree and 6: the host's order
  // puts it before f (id 6).
  const added = v.add(part({ parent: [-1, 0, 0, 0], frame: [0, 1, 5, 6], inclusive: [100, 60, 2, 38], exclusive: [2, 18, 2, 1],
    node: [0, 1, 5, 6], more: [0, 1, 0, 1], minValue: 1 }))!;
  assert.equal(added.to - added.from, 1);
  m.grow(v.data, v.limit, added.from, (id) => v.indexOf(id));
  const fresh = new FlameModel(v.data, v.limit);
  for (let i = 0; i < m.n; i++) { assert.equal(m.x0[i], fresh.x0[i], `x0 ${i}`); assert.equal(m.x1[i], fresh.x1[i], `x1 ${i}`); }
  const kids: number[] = [];
  for (let c = m.firstChild[0]; c >= 0; c = m.nextSibling[c]) kids.push(m.hostId(c));
  assert.deepEqual(kids, [1, 5, 6], 'the host\'s order');
});

test('a node whose children were all left out (past the rows sent) is needed at any zoom', () => {
  const d = firstPart();
  const v = new LoadedView({ ...d, more: Uint8Array.from([0, 1, 0, 2, 0, 1]) });
  assert.deepEqual([...v.limit], [0, 10, 0, 30, 0, 10], 'its own value');
});

test('a part of another view, or of a node not there, is refused; bad parts throw', () => {
  const v = new LoadedView(firstPart());
  assert.equal(v.add(part({ parent: [-1], frame: [4], inclusive: [1], exclusive: [1], node: [4], more: [0], minValue: 0 })), null, 'node 4 is not here');
  assert.equal(v.add(part({ parent: [-1], frame: [1], inclusive: [61], exclusive: [61], node: [1], more: [0], minValue: 0 })), null, 'another view\'s node 1');
  assert.equal(v.size, 6);
  assert.throws(() => part({ parent: [0], frame: [1], inclusive: [1], exclusive: [1], node: [1], more: [0] }), /node 0 must be its root/);
  assert.throws(() => part({ parent: [-1, 0], frame: [1, 99], inclusive: [1, 1], exclusive: [1, 1], node: [1, 2], more: [0, 0] }), /frame table has 9/);
  assert.throws(() => part({ parent: [-1, 0], frame: [1, 2], inclusive: [1, 1], exclusive: [1, 1], node: [2, 1], more: [0, 0] }), /ids must ascend/);
});
