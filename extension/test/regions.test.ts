// Region traces: names tables with `@file:line`, finding a region's marker in sources (the real
// kernels of test/regions), which files go with a picked trace, the `strata regions` command
// line, and (when the CLI is built) decoding an H100 buffer and a file that is not one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cliNames, parseNames, parseNamesFile, splitLocation } from '../src/regions/names';
import { findMarker, normalizeName, resolveArg, scanSource } from '../src/regions/markers';
import { classifyJson, stemOf, traceFilesFor } from '../src/regions/traceInput';
import { failureLine, launchesOf, launchItem, listArgs, parseLaunches, regionsArgs, runRegions } from '../src/regions/regionsCli';

const REPO = resolve(__dirname, '..', '..', '..');   // extension/test/out → repo
const FIX = join(REPO, 'test/fixtures/h100/regions');
const KERNELS = join(REPO, 'test/regions/kernels.cuh');

test('names: id=name entries, optional @file:line, ; or newlines, comments', () => {
  const n = parseNames('1=kernel;3=load (cp.async)@kernels.cuh:75;4=compute@src/k.cu:0;x=bad;5000=too big;=no id;7=a@b@c.cu:9');
  assert.deepEqual(n.get(1), { name: 'kernel' });
  assert.deepEqual(n.get(3), { name: 'load (cp.async)', file: 'kernels.cuh', line: 75 });
  assert.deepEqual(n.get(4), { name: 'compute@src/k.cu:0' });   // line 0 is not a location
  assert.deepEqual(n.get(7), { name: 'a@b', file: 'c.cu', line: 9 });
  assert.equal(n.size, 4);
  const f = parseNames('# regions of the gemm\n1 = kernel\r\n2=k-loop @ gemm.cu:12\n\n');
  assert.deepEqual(f.get(1), { name: 'kernel' });
  assert.deepEqual(f.get(2), { name: 'k-loop ', file: 'gemm.cu', line: 12 });
  assert.equal(cliNames(parseNames('3=load@k.cu:4;1=kernel')), '1=kernel;3=load');
  assert.deepEqual(splitLocation('/abs/path/k.cu:17'), { name: '/abs/path/k.cu:17' });
  assert.deepEqual(splitLocation('x@/abs/path/k.cu:17'), { name: 'x', file: '/abs/path/k.cu', line: 17 });
});

test('names files: a harness sidecar (names + clock rate) or a plain table; bad JSON says why', () => {
  const side = parseNamesFile(readFileSync(join(FIX, 'gemm_nested_loop.json'), 'utf8'));
  assert.equal(side.names.get(4)?.name, 'compute');
  assert.equal(side.cyclesPerNs, 1.979991);
  assert.equal(parseNamesFile('1=a\n2=b@x.cu:3').names.get(2)?.line, 3);
  assert.throws(() => parseNamesFile('{"case": 1}'), /needs a "names" string/);
  assert.throws(() => parseNamesFile('{oops'), /not valid JSON/);
});

test('markers: the real kernels: enum constants resolve, START wins over END, first site first', () => {
  const text = readFileSync(KERNELS, 'utf8');
  const scan = scanSource(KERNELS, text);
  assert.equal(scan.constants.get('kCompute'), 4);
  assert.equal(scan.constants.get('kLongGap'), 51);
  const lineOf = (needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;
  const compute = findMarker(4, 'compute', [scan]);
  assert.deepEqual(compute, { file: KERNELS, line: lineOf('STRATA_REGION_START(prof, kCompute)'), kind: 'start', arg: 'kCompute' });
  // kLoad starts twice (before the loop and inside it): the first one.
  assert.equal(findMarker(3, 'load (cp.async)', [scan])?.line, lineOf('STRATA_REGION_START(prof, kLoad)'));
  // A loop region: its STRATA_REGION_START, not the ITER_START.
  assert.equal(findMarker(2, 'k-loop', [scan])?.line, lineOf('STRATA_REGION_START(prof, kKLoop)'));
  // Only an END exists for 41 ("never started").
  assert.equal(findMarker(41, 'never started', [scan])?.kind, 'end');
  assert.equal(findMarker(999, 'nothing', [scan]), undefined);
});

test('markers: literals, #define, qualified names, constants from another file, name fallback', () => {
  const a = scanSource('/w/a.cu', [
    '#define STRATA_REGION_START(prof, id) do {} while (0)',
    '#define kMma 7',
    '__global__ void k() {',
    '  STRATA_REGION_START(prof, 12);',
    '  STRATA_REGION_START(prof, Ids::kStore);',
    '  STRATA_REGION_START( p , kMma );',
    '  STRATA_REGION_START(prof, kEpilogue);',
    '}',
  ].join('\n'));
  const b = scanSource('/w/ids.h', 'namespace Ids { enum : unsigned { kStore = 0x10, };}\n');
  assert.equal(a.sites.length, 4, 'the #define of the macro is not a use');
  assert.equal(findMarker(12, undefined, [a, b])?.line, 4);
  assert.equal(findMarker(16, undefined, [a, b])?.line, 5);
  assert.equal(findMarker(7, undefined, [a, b])?.line, 6);
  assert.equal(resolveArg('kStore', '/w/a.cu', [a, b]), 16);
  // kEpilogue has no value anywhere: matched by name.
  assert.equal(findMarker(5, 'epilogue', [a, b])?.line, 7);
  assert.equal(findMarker(5, 'other', [a, b]), undefined);
  // Two files disagree on a constant: not resolved.
  const c = scanSource('/w/c.h', 'enum { kStore = 3 };\n');
  assert.equal(resolveArg('kStore', '/w/a.cu', [a, b, c]), null);
  assert.equal(normalizeName('kLoadTile'), 'loadtile');
  assert.equal(normalizeName('K_LOAD'), 'load');
  assert.equal(normalizeName('load tile'), 'loadtile');
});

test('trace files: a buffer takes the sidecar; a sidecar its buffer; a decoded trace; bad JSON', () => {
  assert.deepEqual(traceFilesFor(join(FIX, 'gemm_nested_loop.bin'), { exists: existsSync, json: (p) => JSON.parse(readFileSync(p, 'utf8')) }),
    { buffer: join(FIX, 'gemm_nested_loop.bin'), namesFile: join(FIX, 'gemm_nested_loop.json'), calibration: join(FIX, 'calibration.bin') });
  assert.deepEqual(traceFilesFor(join(FIX, 'warpspec.json'), { exists: existsSync, json: (p) => JSON.parse(readFileSync(p, 'utf8')) }),
    { buffer: join(FIX, 'warpspec.bin'), namesFile: join(FIX, 'warpspec.json'), calibration: join(FIX, 'calibration.bin') });
  // The calibration buffer itself is not its own calibration.
  assert.equal(traceFilesFor(join(FIX, 'calibration.bin'), { exists: existsSync, json: () => undefined }).calibration, undefined);
  const files = new Map<string, unknown>([
    ['/t/k.regions.json', { lanes: [], intervals: [] }], ['/t/k.bin', null], ['/t/k.names', null],
    ['/t/other.json', { hello: 1 }], ['/t/lonely.json', { names: '1=a' }],
  ]);
  const fsx = { exists: (p: string) => files.has(p), json: (p: string) => files.get(p) };
  assert.deepEqual(traceFilesFor('/t/k.regions.json', fsx), { decoded: '/t/k.regions.json', buffer: '/t/k.bin', namesFile: '/t/k.names' });
  assert.deepEqual(traceFilesFor('/t/k.bin', fsx), { buffer: '/t/k.bin', namesFile: '/t/k.names' });
  files.set('/t/k.calibration.bin', null);
  assert.equal(traceFilesFor('/t/k.bin', fsx).calibration, '/t/k.calibration.bin');
  assert.throws(() => traceFilesFor('/t/other.json', fsx), /other\.json is not a region trace/);
  assert.throws(() => traceFilesFor('/t/lonely.json', fsx), /its buffer lonely\.bin is not next to it/);
  assert.equal(classifyJson([1]), 'other');
  assert.equal(stemOf('/a/b.c/x.bin'), '/a/b.c/x');
  assert.equal(stemOf('/a/x.regions.json'), '/a/x');
});

test('CLI arguments and failure lines', () => {
  assert.deepEqual(regionsArgs({ buffer: '/b.bin', names: '1=a', cyclesPerNs: 1.98 }, 'chrome', '/o.json'),
    ['regions', '/b.bin', '--names', '1=a', '--cycles-per-ns', '1.98', '--format', 'chrome', '-o', '/o.json']);
  assert.deepEqual(regionsArgs({ buffer: '/b.bin', cyclesPerNs: 0 }, 'json'), ['regions', '/b.bin', '--format', 'json']);
  assert.equal(failureLine('warning\nstrata: /x.bin: bad_header: magic 0x0\n', 1, null), '/x.bin: bad_header: magic 0x0');
  assert.equal(failureLine('', 1, null), 'strata regions failed (exit status 1)');
  assert.equal(failureLine('', null, 'SIGSEGV'), 'strata regions was killed by SIGSEGV');
});

test('Proton traces (issue 7 part 4): .chrome_trace or a JSON with Proton processes goes to --proton', () => {
  const proton = { traceEvents: [{ ph: 'X', name: 'load', pid: 'matmul_kernel Core12 CTA3', tid: 'warp 0 (line 1)', ts: 0, dur: 0.1 }] };
  assert.equal(classifyJson(proton), 'proton');
  assert.equal(classifyJson({ traceEvents: [{ ph: 'X', pid: 1, tid: 2 }] }), 'other');   // a plain Chrome trace
  const files = new Map<string, unknown>([['/t/mm.json', proton], ['/t/mm.chrome_trace', null]]);
  const fsx = { exists: (p: string) => files.has(p), json: (p: string) => files.get(p) };
  assert.deepEqual(traceFilesFor('/t/mm.chrome_trace', fsx), { buffer: '/t/mm.chrome_trace', proton: true, namesFile: undefined });
  assert.deepEqual(traceFilesFor('/t/mm.json', fsx), { buffer: '/t/mm.json', proton: true });
  assert.deepEqual(regionsArgs({ buffer: '/t/mm.chrome_trace', proton: true, names: '1=x', calibration: '/c.bin', cyclesPerNs: 1.98 }, 'json'),
    ['regions', '--proton', '/t/mm.chrome_trace', '--cycles-per-ns', '1.98', '--format', 'json']);
});

const PROTON_FIX = join(REPO, 'test/fixtures/h100/proton');

test('the CLI imports an H100 Proton trace into lanes and intervals',
  { skip: cli() && existsSync(join(PROTON_FIX, 'attention.chrome_trace')) ? false : 'the strata CLI is not built' }, async () => {
    const out = await runRegions(cli()!, regionsArgs({ buffer: join(PROTON_FIX, 'attention.chrome_trace'), proton: true, cyclesPerNs: 1.98 }, 'json'));
    const data = JSON.parse(out);
    assert.equal(classifyJson(data), 'trace');
    assert.equal(data.source, 'proton');
    assert.ok(data.lanes.length > 0 && data.intervals.length > data.lanes.length);
    const names = new Set(data.intervals.map((i: { name?: string }) => i.name));
    assert.ok(names.has('kernel') && names.has('qk') && names.has('softmax'), [...names].join(','));
    assert.equal(data.lanes.length, 64);   // 16 CTAs x 4 warps
    await assert.rejects(runRegions(cli()!, regionsArgs({ buffer: join(FIX, 'gemm_nested_loop.json'), proton: true }, 'json')), /not a Proton|no in-kernel/);
  });

function cli(): string | null {
  for (const d of [process.env.STRATA_BUILD_DIR, 'build'].filter((x): x is string => !!x)) {
    const p = resolve(REPO, d, 'bin/strata');
    if (existsSync(p)) return p;
  }
  return null;
}

test('the CLI decodes an H100 buffer; a file that is not a buffer is one clear line; a missing CLI says so',
  { skip: cli() ? false : 'the strata CLI is not built' }, async () => {
    const out = await runRegions(cli()!, regionsArgs({ buffer: join(FIX, 'gemm_nested_loop.bin'), names: '4=compute', cyclesPerNs: 1.98, calibration: join(FIX, 'calibration.bin') }, 'json'));
    const data = JSON.parse(out);
    assert.ok(data.record_cost_cycles > 10 && data.record_cost_cycles <= 16, `replayed with the calibrated cost (${data.record_cost_cycles} cycles)`);
    assert.equal(classifyJson(data), 'trace');
    assert.equal(data.lanes.length, 128);
    assert.ok(data.intervals.some((iv: { name?: string }) => iv.name === 'compute'));
    const bad = join(mkdtempSync(join(tmpdir(), 'strata-regions-')), 'notes.bin');
    writeFileSync(bad, 'this is not a region buffer\n'.repeat(10));
    await assert.rejects(runRegions(cli()!, regionsArgs({ buffer: bad }, 'json')), (e: Error) => {
      assert.match(e.message, /notes\.bin: bad_header/);
      assert.ok(!e.message.includes('\n'), 'one line');
      return true;
    });
    await assert.rejects(runRegions('/no/such/strata', ['regions']), /was not found/);
  });

test('profiles with region buffers (strata record --regions): --list, --launch N, launches of a kernel', () => {
  const fsx = { exists: () => true, json: () => undefined };
  assert.deepEqual(traceFilesFor('/p/run.strata', fsx), { buffer: '/p/run.strata', profile: true });
  assert.deepEqual(regionsArgs({ buffer: '/p/run.strata', launch: 2 }, 'json'), ['regions', '/p/run.strata', '--launch', '2', '--format', 'json']);
  assert.deepEqual(regionsArgs({ buffer: '/p/run.strata', launch: 0 }, 'chrome', '/o.json'),
    ['regions', '/p/run.strata', '--launch', '0', '--format', 'chrome', '-o', '/o.json']);
  assert.deepEqual(listArgs('/p/run.strata'), ['regions', '/p/run.strata', '--list', '--format', 'json']);
  const launches = parseLaunches(JSON.stringify({ launches: [
    { index: 0, kernel: 'void k<1>(float*)', mangled: '_Z1kILi1EEvPf', correlation_id: 7, bytes: 62016 },
    { index: 1, kernel: 'other()', mangled: '_Z5otherv', correlation_id: 9, bytes: 100 },
    { index: 'x' },
  ] }));
  assert.equal(launches.length, 2);
  assert.deepEqual(launchesOf(launches, 'void k<1>(float*)').map((l) => l.index), [0]);
  assert.deepEqual(launchesOf(launches, '_Z5otherv').map((l) => l.index), [1]);
  assert.equal(launchesOf(launches).length, 2);
  assert.equal(launchesOf(launches, 'missing').length, 0);
  assert.deepEqual(launchItem(launches[0]), { label: 'Launch 0', description: 'correlation 7 · 60.6 KiB', detail: 'void k<1>(float*)' });
  assert.throws(() => parseLaunches('{oops'), /did not print JSON/);
  assert.throws(() => parseLaunches('{"lanes": []}'), /no launches/);
});

test('the CLI lists and decodes the launches of the H100 profile; a profile without buffers is one line',
  { skip: cliWithList() ? false : 'the strata CLI is not built (or older than strata regions --list)' }, async () => {
    const profile = join(FIX, 'runtime_capture.strata');
    const launches = parseLaunches(await runRegions(cliWithList()!, listArgs(profile)));
    assert.equal(launches.length, 3);
    assert.equal(launchesOf(launches, launches[0].kernel).length, 3);
    assert.match(launches[0].kernel, /^void app::GemmKernel</);
    const data = JSON.parse(await runRegions(cliWithList()!, regionsArgs({ buffer: profile, launch: 2 }, 'json')));
    assert.equal(classifyJson(data), 'trace');
    assert.equal(data.lanes.length, 32);   // 16 blocks x 2 warp groups
    assert.ok(data.intervals.some((iv: { name?: string }) => iv.name === 'compute'), 'names from the profile');
    assert.ok(Math.abs(data.cycles_per_ns - 1.98) < 0.01, `the runtime's clock rate (${data.cycles_per_ns})`);
    await assert.rejects(runRegions(cliWithList()!, regionsArgs({ buffer: profile, launch: 3 }, 'json')), /no launch 3/);
    await assert.rejects(runRegions(cliWithList()!, listArgs(join(FIX, '..', 'gpu_cuda_workload.strata'))), (e: Error) => {
      assert.match(e.message, /no region buffers in this profile/);
      assert.ok(!e.message.includes('\n'), 'one line');
      return true;
    });
  });

/** The built CLI when it knows `regions --list` (a build older than it would fail the test). */
function cliWithList(): string | null {
  const c = cli();
  if (!c) return null;
  try {
    return require('node:child_process').execFileSync(c, ['regions', '--help'], { encoding: 'utf8' }).includes('--list') ? c : null;
  } catch { return null; }
}
