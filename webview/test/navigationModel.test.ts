// The navigation models without a browser: viewport zoom and pan, zoom history, kernel name
// folding, origins through normalisation.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FlameModel } from '../src/model/flameModel';
import { ZoomHistory } from '../src/model/zoomHistory';
import { MAX_NAME, capText, displayName, foldCxxName } from '../src/model/frameNames';
import { normalizeFlameData } from '../src/model/normalize';
import { metricRows } from '../src/ui/detailsPane';
import { FrameKind } from '../src/protocol';
import { LONG_KERNEL, NAV, navData, sampleData } from './fixtures';

describe('viewport', () => {
  test('zoom at a point keeps it in place; pan and clamps', () => {
    const m = new FlameModel(sampleData());
    assert.equal(m.span, 1);
    const x = m.toModel(0.25);
    m.zoomAt(0.25, 0.5);
    assert.ok(Math.abs(m.span - 0.5) < 1e-12);
    assert.ok(Math.abs(m.toModel(0.25) - x) < 1e-12, 'the point under the pointer stays');
    m.pan(10);
    assert.ok(Math.abs(m.v1 - 1) < 1e-12 && Math.abs(m.v0 - 0.5) < 1e-12, 'clamped at the right edge');
    m.zoomAt(0.5, 1e-12);
    assert.ok(m.span >= FlameModel.MIN_SPAN);
    m.zoomAt(0.5, 1e9);
    assert.equal(m.span, 1);
    assert.equal(m.zoomedIn, false);
  });

  test('hit test goes through the viewport', () => {
    const m = new FlameModel(sampleData());
    // cold is [0.75, 1) of the width: zoomed to [0.5, 1], it is the right half of the screen.
    m.setViewport(0.5, 1);
    assert.equal(m.hitTest(0.75, 2), 3);
    assert.equal(m.hitTest(0.25, 2), 2);
    m.layout(0);
    assert.equal(m.v0, 0, 'a new focus shows all of it');
  });
});

describe('zoom history', () => {
  test('back, forward, a new place drops the forward ones', () => {
    const h = new ZoomHistory();
    assert.equal(h.canBack, false);
    h.push({ focus: 2, v0: 0, v1: 1 });
    h.push({ focus: 2, v0: 0, v1: 1 });  // same place: one entry
    h.push({ focus: 3, v0: 0.1, v1: 0.2 });
    assert.deepEqual(h.back(), { focus: 2, v0: 0, v1: 1 });
    assert.deepEqual(h.back(), { focus: 0, v0: 0, v1: 1 });
    assert.equal(h.back(), null);
    assert.deepEqual(h.forward(), { focus: 2, v0: 0, v1: 1 });
    h.push({ focus: 1, v0: 0, v1: 1 });
    assert.equal(h.canForward, false);
    for (let i = 0; i < 500; i++) h.push({ focus: i + 10, v0: 0, v1: 1 });
    let n = 0;
    while (h.back()) n++;
    assert.equal(n, ZoomHistory.LIMIT - 1);
  });
});

describe('frame names', () => {
  test('templates and argument lists fold; operators stay; names are capped', () => {
    assert.equal(foldCxxName('at::native::elementwise_kernel<128, 4, F<int>>(int, at::Loader<x>)'), 'at::native::elementwise_kernel<…>(…)');
    assert.equal(foldCxxName('std::vector<int>::operator[](unsigned long)'), 'std::vector<…>::operator[](…)');
    assert.equal(foldCxxName('Foo::operator()(int) const'), 'Foo::operator()(…) const');
    assert.equal(foldCxxName('bool operator< <A>(A const&, A const&)'), 'bool operator< <…>(…)');
    const short = displayName(LONG_KERNEL, FrameKind.Kernel);
    assert.ok(LONG_KERNEL.length > 5000);
    assert.equal(short, 'at::native::elementwise_kernel<…>(…)');
    assert.equal(displayName('forward', FrameKind.Python), 'forward');
    assert.equal(displayName('<stack truncated: only the PC (loader busy)>', FrameKind.Native), '<stack truncated: only the PC (loader busy)>');
    assert.ok(displayName('x'.repeat(5000), FrameKind.Python).length <= MAX_NAME);
    assert.equal(capText('abcdefghij', 5).length, 5);
  });

  test('the model labels with the short name and keeps the full one', () => {
    const m = new FlameModel(normalizeFlameData(navData()));
    assert.equal(m.label(NAV.KERNEL), 'at::native::elementwise_kernel<…>(…)');
    assert.equal(m.fullName(NAV.KERNEL), LONG_KERNEL);
    assert.equal(m.truncated(NAV.TRUNC), true);
    assert.equal(m.truncated(NAV.KERNEL), false);
  });
});

describe('details rows', () => {
  test('attributes as count / mean / min / max, never a total', () => {
    const grid = metricRows({ name: 'grid_size', unit: 'blocks', nature: 'attribute', inclusive: 120, exclusive: 120, count: 3, min: 8, max: 64, mean: 40, std: 23 })!;
    assert.deepEqual(grid.slice(0, 7), ['grid_size', '', '', '3', '40 blocks', '8 blocks', '64 blocks']);
    const gpu = metricRows({ name: 'gpu_time', unit: 'ns', nature: 'additive', inclusive: 3000, exclusive: 3000, count: 3, min: 500, max: 1500, mean: 1000, std: 400 })!;
    assert.deepEqual(gpu.slice(0, 5), ['gpu_time', '3 µs', '3 µs', '3', '1 µs']);
    assert.equal(metricRows({ name: 'memcpy_bytes', unit: 'bytes', nature: 'additive', inclusive: 0, exclusive: 0, count: 0, min: 0, max: 0, mean: 0, std: 0 }), null);
  });
});

describe('normalise v6 columns', () => {
  test('origins and flags pass; absent ones stay absent', () => {
    const d = normalizeFlameData(JSON.parse(JSON.stringify({ ...navData(), frames: { ...navData().frames, origin: [0, 1, 1, 2, 4, 0, 1], flags: [0, 0, 0, 0, 0, 1, 0] } })));
    assert.equal(d.frames.origin![4], 4);
    assert.equal(d.frames.flags![5], 1);
    assert.equal(d.frameFilter, 'python');
    const old = normalizeFlameData(sampleData());
    assert.equal(old.frames.origin, undefined);
    assert.equal(old.frameFilter, 'all');
    assert.throws(() => normalizeFlameData({ ...navData(), frames: { ...navData().frames, origin: [1] } }), /frames\.origin/);
  });
});
