import { test } from 'node:test';
import assert from 'node:assert/strict';
import { heatMetrics, LineHeat, lineTotalsByMetric, markdownText, matchProfileFile } from '../src/lineHeatModel';

test('lineTotalsByMetric: the core\'s line totals as one map per metric', () => {
  const t = lineTotalsByMetric({
    strings: ['', '/w/a.py', '/w/b.py'], file: Uint32Array.from([1, 1, 2]), line: Uint32Array.from([1, 5, 3]),
    values: [Float64Array.from([100, 50, 30]), Float64Array.from([0, 7, 0])], totals: [120, 7],
    backward: [Float64Array.from([0, 20, 0]), Float64Array.from([0, 0, 0])],
  });
  assert.equal(t.length, 2);
  assert.equal(t[0].get('/w/a.py')!.get(5), 50);
  assert.equal(t[0].get('/w/b.py')!.get(3), 30);
  assert.equal(t[1].get('/w/a.py')!.get(5), 7);
});

test('heatMetrics: time metrics and PC samples first, then stall reasons; others left out', () => {
  // The core classes each stall_ metric (MetricInfo.stall); unknown reasons are latency stalls.
  const m = (name: string, stall?: 'latency' | 'throughput' | 'not_a_reason') => ({ name, stall });
  assert.deepEqual(heatMetrics([m('cpu_time'), m('api_time'), m('gpu_time'), m('grid_size'), m('stall_memory', 'latency'), m('stall_sync', 'latency')]),
    ['cpu_time', 'gpu_time', 'stall_memory', 'stall_sync']);
  // As the runtime writes PC sampling: pc_samples, reasons, and CUPTI's two counters (not reasons).
  assert.deepEqual(heatMetrics([m('cpu_time'), m('gpu_time'), m('pc_samples'), m('stall_wait', 'latency'), m('stall_sample_count', 'not_a_reason'),
    m('stall_samples_data_dropped', 'not_a_reason'), m('stall_selected', 'throughput')]),
    ['cpu_time', 'gpu_time', 'pc_samples', 'stall_wait', 'stall_selected']);
  assert.deepEqual(heatMetrics([m('wall_time')]), ['wall_time']);
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

test('heatMetrics: the viewer\'s metric is summed too when line heat would not sum it', () => {
  const m = (name: string) => ({ name, stall: undefined });
  assert.deepEqual(heatMetrics([m('cpu_time'), m('gpu_time'), m('api_time')], 'api_time'), ['cpu_time', 'gpu_time', 'api_time']);
  assert.deepEqual(heatMetrics([m('cpu_time'), m('gpu_time')], 'gpu_time'), ['cpu_time', 'gpu_time']);
  assert.deepEqual(heatMetrics([m('cpu_time')], 'no_such_metric'), ['cpu_time']);
});

test('LineHeat: shading follows the chosen metric; backward GPU time on the forward line, labelled', () => {
  const at = (entries: [number, number][]) => new Map([['/w/train.py', new Map(entries)]]);
  const metrics = [
    { metric: 'cpu_time', unit: 'ns', total: 10e9, lines: at([[12, 1e9], [30, 9e9]]) },
    { metric: 'gpu_time', unit: 'ns', total: 2e9, lines: at([[12, 1.96e9], [30, 4e7]]), backward: at([[12, 1.2e9]]) },
  ];
  const cpu = new LineHeat(metrics);
  assert.equal(cpu.describe('/w/train.py', 12)!.share, 0.1, 'by default the first time metric shades');
  const gpu = new LineHeat(metrics, 'gpu_time');
  const fwd = gpu.describe('/w/train.py', 12)!;
  assert.equal(fwd.shading, 'gpu_time');
  assert.equal(fwd.share, 0.98, 'the forward line holding 98% of GPU time is shaded at 98%');
  assert.equal(fwd.text, '▮ 98.0% gpu 1.96 s (1.20 s backward) · cpu 1.00 s');
  assert.equal(fwd.values.find((v) => v.metric === 'gpu_time')!.backward, 1.2e9);
  assert.equal(gpu.describe('/w/train.py', 30)!.share, 0.02);
  assert.equal(cpu.withMetric('gpu_time').primary!.metric, 'gpu_time');
  assert.equal(cpu.withMetric('stall_x').primary!.metric, 'cpu_time', 'a metric line heat lacks: the first time metric');
  // A line reached only by a metric that shades nothing else is not shown.
  const api = new LineHeat([...metrics, { metric: 'api_time', unit: 'ns', total: 1e9, lines: at([[40, 5e8]]) }]);
  assert.equal(api.describe('/w/train.py', 40), undefined);
  assert.equal(api.withMetric('api_time').describe('/w/train.py', 40)!.text, '▮ 50.0% api_time 500 ms');
});

test('LineHeat: a fused kernel\'s GPU time shows on every line it fuses, labelled fused', () => {
  const t = lineTotalsByMetric({
    strings: ['', '/w/m.py'], file: Uint32Array.from([1, 1]), line: Uint32Array.from([20, 19]),
    values: [Float64Array.from([14, 15])], backward: [Float64Array.from([0, 0])], fused: [Float64Array.from([14, 10])], totals: [19],
  }, 'fused');
  assert.equal(t[0].get('/w/m.py')!.get(19), 10);
  // An addon of before the fused part: no map, no label.
  assert.deepEqual(lineTotalsByMetric({ strings: [''], file: new Uint32Array(0), line: new Uint32Array(0), values: [new Float64Array(0)],
    backward: [new Float64Array(0)], totals: [0] }, 'fused'), []);
  const at = (entries: [number, number][]) => new Map([['/w/m.py', new Map(entries)]]);
  const heat = new LineHeat([{ metric: 'gpu_time', unit: 'ns', total: 19e6, lines: at([[20, 14e6], [19, 15e6], [7, 10e6]]),
    fused: at([[20, 14e6], [19, 10e6], [7, 10e6]]) }], 'gpu_time');
  assert.equal(heat.describe('/w/m.py', 19)!.text, '▮ 78.9% gpu 15.0 ms (10.0 ms fused)');
  assert.equal(heat.describe('/w/m.py', 20)!.text, '▮ 73.7% gpu 14.0 ms (all fused)');
  assert.equal(heat.describe('/w/m.py', 7)!.values[0].fused, 10e6);
});

test('markdownText: recorded paths cannot become links, HTML or tables in the hover', () => {
  assert.equal(markdownText('/w/[x](command:rm).py'), '/w/\\[x\\]\\(command:rm\\)\\.py');
  assert.equal(markdownText('<img src=x onerror=alert(1)>'), '\\<img src=x onerror=alert\\(1\\)\\>');
  assert.equal(markdownText('a|b\nc'), 'a\\|b c');
});
