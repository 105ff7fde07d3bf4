import { test } from 'node:test';
import assert from 'node:assert/strict';
import { heatMetrics, LineHeat, lineTotals, matchProfileFile, type HeatColumns } from '../src/heat';

// root → main(a.py:1) → f(a.py:5) → f(a.py:5) [recursion] → g(b.py:3)
//                     → g(b.py:3)
//      → main(a.py:1) [second thread / path] → h(a.py:9)
function cols(): HeatColumns {
  return {
    strings: ['', '/w/a.py', '/w/b.py'],
    parent: Int32Array.from([-1, 0, 1, 2, 3, 1, 0, 6]),
    file: Uint32Array.from([0, 1, 1, 1, 2, 2, 1, 1]),
    line: Uint32Array.from([0, 1, 5, 5, 3, 3, 1, 9]),
    inclusive: Float64Array.from([100, 70, 50, 30, 10, 20, 30, 25]),
  };
}

test('lineTotals: inclusive per line, the outermost frame of each path counted once', () => {
  const t = lineTotals(cols());
  const a = t.get('/w/a.py')!, b = t.get('/w/b.py')!;
  assert.equal(a.get(1), 100, 'main on both paths: 70 + 30');
  assert.equal(a.get(5), 50, 'recursive f: only the outer frame (not 50 + 30)');
  assert.equal(a.get(9), 25);
  assert.equal(b.get(3), 30, 'g under f (10) and under main (20): different paths, both count');
  assert.equal(t.size, 2);
});

test('lineTotals: frames without file or line are skipped; siblings after a deep branch pop the stack', () => {
  const c: HeatColumns = {
    strings: ['', '/w/a.py'],
    parent: Int32Array.from([-1, 0, 1, 2, 0, 4]),
    file: Uint32Array.from([0, 1, 0, 1, 1, 1]),
    line: Uint32Array.from([0, 2, 0, 2, 0, 2]),
    inclusive: Float64Array.from([10, 6, 5, 4, 4, 3]),
  };
  // Path 1: a.py:2 (6) → native (no file) → a.py:2 (inner, skipped). Path 2: a.py:0 (no line) → a.py:2 (3).
  assert.equal(lineTotals(c).get('/w/a.py')!.get(2), 9);
});

test('heatMetrics: time metrics and PC samples first, then stall reasons; others left out', () => {
  assert.deepEqual(heatMetrics(['cpu_time', 'api_time', 'gpu_time', 'grid_size', 'stall_memory', 'stall_sync']),
    ['cpu_time', 'gpu_time', 'stall_memory', 'stall_sync']);
  // As the runtime writes PC sampling: pc_samples, reasons, and CUPTI's two counters (not reasons).
  assert.deepEqual(heatMetrics(['cpu_time', 'gpu_time', 'pc_samples', 'stall_wait', 'stall_sample_count', 'stall_samples_data_dropped', 'stall_selected']),
    ['cpu_time', 'gpu_time', 'pc_samples', 'stall_wait', 'stall_selected']);
  assert.deepEqual(heatMetrics(['wall_time']), ['wall_time']);
  assert.deepEqual(heatMetrics([]), []);
});

test('LineHeat: share of the primary metric, GPU time, top stall reason in the text', () => {
  const line = (file: string, l: number, v: number) => new Map([[file, new Map([[l, v]])]]);
  const heat = new LineHeat([
    { metric: 'cpu_time', unit: 'ns', total: 2e9, lines: line('/w/a.py', 4, 5e8) },
    { metric: 'gpu_time', unit: 'ns', total: 1e8, lines: line('/w/a.py', 4, 3e7) },
    { metric: 'stall_memory_dependency', unit: 'count', total: 100, lines: line('/w/a.py', 4, 60) },
    { metric: 'stall_sync', unit: 'count', total: 100, lines: line('/w/a.py', 4, 30) },
  ]);
  const info = heat.describe('/w/a.py', 4)!;
  assert.equal(info.share, 0.25);
  assert.equal(info.text, '▮ 25.0% cpu 500 ms · gpu 30.0 ms · stall memory_dependency 66%');
  assert.equal(info.topStall, 'memory_dependency');
  assert.deepEqual([...heat.linesOf('/w/a.py').keys()], [4]);
  assert.equal(heat.describe('/w/a.py', 5), undefined);
  assert.deepEqual(heat.files(), ['/w/a.py']);
});

test('LineHeat: a kernel line (pc frames only) shows its PC samples, their share and the top stall reason', () => {
  const m = (metric: string, total: number, entries: [number, number][]) =>
    ({ metric, unit: 'count', total, lines: new Map([['/w/k.cu', new Map(entries)]]) });
  const heat = new LineHeat([
    { metric: 'cpu_time', unit: 'ns', total: 2e9, lines: new Map([['/w/k.cu', new Map([[52, 1e9]])]]) },
    m('pc_samples', 1000, [[19, 800], [25, 50], [52, 1000]]),
    m('stall_long_scoreboard', 800, [[19, 790], [52, 790]]),
    m('stall_selected', 200, [[19, 10], [25, 50], [52, 210]]),
  ]);
  assert.deepEqual([...heat.linesOf('/w/k.cu').keys()].sort((a, b) => a - b), [19, 25, 52]);
  const l19 = heat.describe('/w/k.cu', 19)!;
  assert.equal(l19.share, 0.8, 'no cpu_time on a kernel line: coloured by its share of the PC samples');
  assert.equal(l19.text, '▮ 80.0% pc samples 800 · stall long_scoreboard 98%');
  assert.equal(l19.topStall, 'long_scoreboard');
  assert.equal(heat.describe('/w/k.cu', 52)!.share, 0.5, 'the launching host line keeps its cpu share');
});

test('LineHeat: without GPU or stall metrics (a CPU profile) the line shows its time only', () => {
  const heat = new LineHeat([{ metric: 'wall_time', unit: 'ns', total: 1e9, lines: new Map([['/w/a.py', new Map([[2, 1.5e9 / 3]])]]) }]);
  assert.equal(heat.describe('/w/a.py', 2)!.text, '▮ 50.0% wall 500 ms');
  assert.equal(new LineHeat([]).primary, undefined);
});

test('matchProfileFile: same path, else the unique longest suffix match (a moved checkout)', () => {
  const rec = ['/home/ci/src/proj/train.py', '/home/ci/src/proj/lib/util.py', '/opt/other/util.py'];
  assert.equal(matchProfileFile('/home/ci/src/proj/train.py', rec), '/home/ci/src/proj/train.py');
  assert.equal(matchProfileFile('/work/proj/train.py', rec), '/home/ci/src/proj/train.py');
  assert.equal(matchProfileFile('/work/proj/lib/util.py', rec), '/home/ci/src/proj/lib/util.py', 'lib/util.py beats util.py');
  assert.equal(matchProfileFile('/work/x/util.py', rec), undefined, 'two equally good candidates: none');
  assert.equal(matchProfileFile('/work/proj/model.py', rec), undefined);
});
