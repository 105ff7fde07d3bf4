// Chromium test of a large view arriving in parts (protocol v7): the first part is drawn as it
// is and asks for nothing; zooming into a node whose children were left out asks the host for its
// part, which is drawn in place (the zoom stays); a part of another view is ignored; node ids to
// the host are the host's. In the background (nothing needed now) the parts a zoom into the
// widest frames would need are asked for, and put in place before that zoom: it asks for nothing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { HarnessPage, openHarness } from './harnessPage';
import { PROTOCOL_VERSION } from '../src/protocol';

let harness: HarnessPage;
let page: Page;
const errors: string[] = [];

const post = async (m: unknown) => {
  await page.evaluate((msg) => (window as any).postToWebview(msg), m as any);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null)))));
};
const posted = (): Promise<any[]> => page.evaluate(() => (window as any).__posted.slice());
const strata = (fn: string): Promise<any> => page.evaluate((f) => (window as any).__strata[f](), fn);

/**
 * The host's view (ids): 0 root 1e6 ─┬ 1 a 600000 ── 2 b 400000
 *                                     └ 3 f 390000 ── 4 g 1000 ─┬ 5 h 60
 *                                                               └ 6 i 30
 * The first part leaves out g's children (under 100: a tenth of a pixel at this width).
 */
const STRINGS = ['', 'all', 'a', 'b', 'f', 'g', 'h', 'i'];
const FRAMES = { kind: [0, 1, 1, 1, 1, 1, 1], name: [1, 2, 3, 4, 5, 6, 7], file: [0, 0, 0, 0, 0, 0, 0], line: [0, 0, 0, 0, 0, 0, 0], module: [0, 0, 0, 0, 0, 0, 0] };
const FIRST = {
  type: 'profile', version: PROTOCOL_VERSION, title: 'big', metrics: ['cpu_time'],
  data: { view: 'top-down', metric: 'cpu_time', unit: 'ns', total: 1e6, strings: STRINGS, frames: FRAMES,
    parent: [-1, 0, 1, 0, 3], frame: [0, 1, 2, 3, 4], inclusive: [1e6, 600000, 400000, 390000, 1000],
    exclusive: [10000, 200000, 400000, 389000, 910], node: [0, 1, 2, 3, 4], more: [0, 0, 0, 0, 1], minValue: 100, nodes: 7, viewId: 5 },
};
const PART_OF_G = { parent: [-1, 0, 0], frame: [4, 5, 6], inclusive: [1000, 60, 30], exclusive: [910, 60, 30], node: [4, 5, 6], more: [0, 0, 0], minValue: 0 };

before(async () => { harness = await openHarness(900, 400, errors); page = harness.page; });
after(async () => { await harness?.close(); });

test('the first part is drawn as it is; zooming into left-out children asks for them; the part fills in', async () => {
  await post(FIRST);
  const v = await strata('view');
  assert.equal(v.nodes, 5);
  assert.equal(v.viewNodes, 7);
  assert.equal(v.part, true);
  assert.deepEqual({ ...(await strata('parts')), lastMs: 0 }, { requested: 0, received: 0, lastMs: 0, filled: 0 }, 'nothing needed at the first zoom, no frame wide enough to fill');
  // Zoom into g (its children: 60 and 30 of 1000, wider than half a pixel once g fills the width).
  const g = await page.evaluate(() => (window as any).__strata.zoomTo('g'));
  assert.equal(g, 4);
  await post({ type: 'nothing' });
  const asked = (await posted()).filter((m) => m.type === 'requestNodes');
  assert.equal(asked.length, 1);
  assert.equal(asked[0].viewId, 5);
  assert.equal(asked[0].view, 'top-down');
  assert.equal(asked[0].node, 4, 'the host\'s id of g');
  assert.ok(asked[0].minValue > 0 && asked[0].minValue < 1000 / 900, `down to under half a pixel: ${asked[0].minValue}`);
  assert.equal((await strata('stats')).instances, 3, 'root, f and g before the part');
  // Another view's part is ignored.
  await post({ type: 'nodes', viewId: 4, root: 4, part: PART_OF_G });
  assert.equal((await strata('view')).nodes, 5);
  await post({ type: 'nodes', viewId: 5, root: 4, part: PART_OF_G });
  const after = await strata('view');
  assert.equal(after.nodes, 7, 'g\'s children are in');
  const ps = await strata('parts');
  assert.deepEqual([ps.requested, ps.received], [1, 1]);
  const s = await strata('stats');
  assert.equal(s.focus, 4, 'still zoomed into g');
  assert.equal(s.instances, 5, 'root, f, g, then h and i');
  // Asked once: a redraw does not ask again.
  await post({ type: 'nothing' });
  assert.equal((await posted()).filter((m) => m.type === 'requestNodes').length, 1);
  // Details of a node name it by the host's id.
  await page.keyboard.press('i');
  await page.waitForFunction(() => (window as any).__posted.some((m: any) => m.type === 'requestDetails' && m.node === 4));
  assert.deepEqual(errors, []);
});

/**
 * Another view (ids): 0 root 1e6 ─┬ 1 a 900000 ─┬ 2 b 80
 *                                 │             └ 3 c 40
 *                                 └ 4 d 100000
 * The first part leaves out a's children (under 100); a is the width of the graph.
 */
const WIDE = {
  type: 'profile', version: PROTOCOL_VERSION, title: 'wide', metrics: ['cpu_time'],
  data: { view: 'top-down', metric: 'cpu_time', unit: 'ns', total: 1e6, strings: ['', 'all', 'a', 'b', 'c', 'd'],
    frames: { kind: [0, 1, 1, 1, 1], name: [1, 2, 3, 4, 5], file: [0, 0, 0, 0, 0], line: [0, 0, 0, 0, 0], module: [0, 0, 0, 0, 0] },
    parent: [-1, 0, 0], frame: [0, 1, 4], inclusive: [1e6, 900000, 100000], exclusive: [0, 899880, 100000],
    node: [0, 1, 4], more: [0, 1, 0], minValue: 100, nodes: 5, viewId: 9 },
};
const PART_OF_A = { parent: [-1, 0, 0], frame: [1, 2, 3], inclusive: [900000, 80, 40], exclusive: [899880, 80, 40], node: [1, 2, 3], more: [0, 0, 0], minValue: 0 };

test('background fill: the widest frames\' parts are asked for before a zoom needs them; the zoom then asks for none', async () => {
  await page.evaluate(() => { (window as any).__posted.length = 0; });
  await post(WIDE);
  await page.waitForFunction(() => (window as any).__posted.some((m: any) => m.type === 'requestNodes'));
  const asked = (await posted()).filter((m) => m.type === 'requestNodes');
  assert.equal(asked.length, 1, 'a alone: d has nothing left out');
  assert.equal(asked[0].node, 1);
  assert.equal(asked[0].viewId, 9);
  // Down to half a pixel once zoomed into a (its value over the graph's width).
  assert.ok(asked[0].minValue > 0 && asked[0].minValue <= (0.5 * 900000) / 800, `${asked[0].minValue}`);
  assert.equal((await strata('parts')).filled, 1);
  await post({ type: 'nodes', viewId: 9, root: 1, part: PART_OF_A });
  assert.equal((await strata('view')).nodes, 5, 'a\'s children are in');
  assert.equal((await strata('stats')).focus, 0, 'the fill moved nothing');
  // The zoom into a needs nothing more; nothing is asked again.
  assert.equal(await page.evaluate(() => (window as any).__strata.zoomTo('a')), 1);
  await post({ type: 'nothing' });
  assert.equal((await posted()).filter((m) => m.type === 'requestNodes').length, 1);
  assert.deepEqual(errors, []);
});
