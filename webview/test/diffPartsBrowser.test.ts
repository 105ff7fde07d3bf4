// Chromium test of a large diff arriving in parts (protocol v9), as a large view does: the first
// part of B's view is drawn as it is, coloured by change against the whole view's largest change,
// and asks for nothing; a row whose node was not sent asks for the nodes from the root to it
// ('requestPath'), which come in with A's value and the match of each, and the graph zooms to
// it; a frame whose children were left out has its part asked for ('requestNodes': by the
// background fill, else by the zoom into it); a part of another diff is ignored.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { HarnessPage, openHarness } from './harnessPage';
import { PROTOCOL_VERSION } from '../src/protocol';

let harness: HarnessPage;
let page: Page;
const errors: string[] = [];
const W = 900;

const post = async (m: unknown) => {
  await page.evaluate((msg) => (window as any).postToWebview(msg), m as any);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null)))));
};
const posted = (): Promise<any[]> => page.evaluate(() => (window as any).__posted.slice());
const diff = (): Promise<any> => page.evaluate(() => (window as any).__strata.diff());

/**
 * B's view (host ids): 0 root 1000 ─┬ 1 a 600 ── 2 b 590 ── 3 c 0.3
 *                                    └ 4 f 399.7 ── 5 g 0.4 ── 6 h 0.2
 * The first part, down to 0.5 (under half a pixel at 900 px): 0, 1, 2, 4 (b and f with children
 * left out). A's values: a 500, b 500, f 399, c 0.3; g and h only in B.
 */
const STRINGS = ['', 'all', 'a', 'b', 'c', 'f', 'g', 'h', 'work.py'];
const FRAMES = { kind: [0, 1, 1, 1, 1, 1, 1], name: [1, 2, 3, 4, 5, 6, 7], file: [0, 8, 8, 8, 8, 8, 8], line: [0, 1, 2, 3, 4, 5, 6], module: [0, 0, 0, 0, 0, 0, 0] };
const frame = (name: string, line: number) => ({ kind: 'python', name, file: 'work.py', line });
const DIFF = {
  type: 'diff', version: PROTOCOL_VERSION, title: 'b vs a', nameA: 'a.strata', nameB: 'b.strata',
  data: {
    metric: 'cpu_time', unit: 'ns', totalA: 1000, totalB: 1000, commonPaths: 4, fuzzyPaths: 0, frameFilter: 'all',
    strings: STRINGS, frames: FRAMES,
    parent: [-1, 0, 1, 0], frame: [0, 1, 2, 4], inclusive: [1000, 600, 590, 399.7], exclusive: [0.3, 10, 589.7, 399.3],
    baseline: [1000, 500, 500, 399], match: [0, 0, 0, 0],
    node: [0, 1, 2, 4], more: [0, 0, 1, 1], minValue: 0.5, nodes: 7, viewId: 7, largestChange: 100,
    rows: [
      { frame: frame('h', 6), userFrame: frame('h', 6), a: 0, b: 0.2, match: 'only in B', node: 6 },
      { frame: frame('b', 2), userFrame: frame('b', 2), a: 500, b: 589.7, match: 'exact', node: 2 },
    ],
    appeared: [], vanished: [],
  },
};
/** The nodes from the root to h, as the host's `path` answers. */
const PATH_TO_H = { parent: [-1, 0, 1, 2], frame: [0, 4, 5, 6], inclusive: [1000, 399.7, 0.4, 0.2], exclusive: [0.3, 399.3, 0.2, 0.2],
  node: [0, 4, 5, 6], more: [2, 2, 2, 0], minValue: 0, baseline: [1000, 399, 0, 0], match: [0, 0, 2, 2] };
const PART_OF_F = { parent: [-1, 0, 1], frame: [4, 5, 6], inclusive: [399.7, 0.4, 0.2], exclusive: [399.3, 0.2, 0.2],
  node: [4, 5, 6], more: [0, 0, 0], minValue: 0, baseline: [399, 0, 0], match: [0, 2, 2] };

before(async () => { harness = await openHarness(W, 400, errors); page = harness.page; });
after(async () => { await harness?.close(); });

test('a large diff in parts: the first part as it is, a row\'s node asked for with its path, a zoom asks for its part', async () => {
  await post(DIFF);
  let d = await diff();
  assert.equal(d.nodes, 4);
  assert.equal(d.viewNodes, 7);
  assert.equal(d.part, true);
  assert.ok(d.instances >= 4, `drawn: ${d.instances}`);
  assert.equal(d.parts.requested, d.parts.filled, 'nothing needed at the first zoom: only the background fill asks (the widest frames)');
  assert.equal(d.parts.received, 0);
  // The first row: h, which the first part left out.
  await page.locator('.strata-diff-row').first().click();
  await page.waitForFunction(() => (window as any).__posted.some((m: any) => m.type === 'requestPath'));
  const ask = (await posted()).filter((m) => m.type === 'requestPath');
  assert.deepEqual(ask.map((m) => [m.viewId, m.node]), [[7, 6]]);
  assert.ok((await posted()).some((m) => m.type === 'openDiffRow' && m.row === 0), 'its line opens meanwhile');
  // Another diff's answer is ignored; this one's puts g and h in and zooms to h.
  await post({ type: 'nodes', viewId: 6, root: 0, part: PATH_TO_H });
  assert.equal((await diff()).nodes, 4);
  await post({ type: 'nodes', viewId: 7, root: 0, part: PATH_TO_H });
  await page.waitForFunction(() => (window as any).__strata.diff().focused?.node === 6);
  d = await diff();
  assert.equal(d.nodes, 6);
  assert.deepEqual(d.focused, { node: 6, name: 'h' });
  assert.equal(d.parts.received, 1);
  // Its tooltip: A's value (0: only in B) from the path's columns.
  const box = (await page.locator('.strata-diff .strata-stage').boundingBox())!;
  await page.mouse.move(box.x + W / 2, box.y + 3 * 18 + 9);
  await page.waitForFunction(() => /only in B/.test(document.querySelector('.strata-tooltip')?.textContent ?? ''));
  // A row whose node is held: zoomed to at once, nothing asked.
  await page.locator('.strata-diff-row').nth(1).click();
  await page.waitForFunction(() => (window as any).__strata.diff().focused?.node === 2);
  assert.equal((await posted()).filter((m) => m.type === 'requestPath').length, 1);
  // Back to the root, then into f: its part (g's and h's siblings, had there been any) is asked
  // for, once (the fill may have asked already).
  await page.mouse.click(box.x + 10, box.y + 9);
  await page.waitForFunction(() => (window as any).__strata.diff().focused?.node === 0);
  await page.mouse.click(box.x + box.width * 0.8, box.y + 18 + 9);
  await page.waitForFunction(() => (window as any).__strata.diff().focused?.node === 4);
  await page.waitForFunction(() => (window as any).__posted.some((m: any) => m.type === 'requestNodes' && m.node === 4));
  const parts = (await posted()).filter((m) => m.type === 'requestNodes' && m.node === 4);
  assert.equal(parts.length, 1);
  assert.equal(parts[0].viewId, 7);
  await post({ type: 'nodes', viewId: 7, root: 4, part: PART_OF_F });
  d = await diff();
  assert.equal(d.focused.node, 4, 'still zoomed into f');
  assert.equal(d.nodes, 6, 'nothing new: g and h were in');
  assert.equal(d.parts.received, 2);
  assert.ok(d.instances >= 3, 'root, f, g, h drawn');
  assert.deepEqual(errors, []);
});
