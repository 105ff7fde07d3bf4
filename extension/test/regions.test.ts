// Region traces: finding a region's marker in sources (the real kernels of test/regions), which
// files go with a picked trace, the addon requests, and (when the addon is built) names files,
// decoding H100 buffers, a profile's launches and Proton traces through the addon: the same trace
// as `strata regions --format json` prints (when the CLI is built too). The names grammar itself
// is the core's (native/region_decoder/tests/names_test.cpp, native/core/tests/names_file_test.cpp).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { findMarker, normalizeName, resolveArg, scanSource } from '../src/regions/markers';
import { classifyJson, stemOf, traceFilesFor } from '../src/regions/traceFiles';
import { addonRequest, launchItem, launchList, nameRecords, traceData } from '../src/regions/regionRequests';
import type * as Addon from '../../native/addon/index';

const REPO = resolve(__dirname, '..', '..', '..');   // extension/test/out → repo
const FIX = join(REPO, 'test/fixtures/h100/regions');
const KERNELS = join(REPO, 'test/regions/kernels.cuh');

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

test('addon requests: buffer, Proton trace, a profile\'s launch', () => {
  assert.deepEqual(addonRequest({ buffer: '/b.bin', namesFile: '/b.names', cyclesPerNs: 1.98 }),
    { source: 'buffer', path: '/b.bin', launch: undefined, namesFile: '/b.names', cyclesPerNs: 1.98, calibration: undefined });
  assert.deepEqual(addonRequest({ buffer: '/b.bin', cyclesPerNs: 0, namesFile: '' }),
    { source: 'buffer', path: '/b.bin', launch: undefined, namesFile: undefined, cyclesPerNs: undefined, calibration: undefined });
  assert.deepEqual(addonRequest({ buffer: '/p/run.strata', launch: 2 }),
    { source: 'profile', path: '/p/run.strata', launch: 2, namesFile: undefined, cyclesPerNs: undefined, calibration: undefined });
});

test('Proton traces (issue 7 part 4): .chrome_trace or a JSON with Proton processes goes to --proton', () => {
  const proton = { traceEvents: [{ ph: 'X', name: 'load', pid: 'matmul_kernel Core12 CTA3', tid: 'warp 0 (line 1)', ts: 0, dur: 0.1 }] };
  assert.equal(classifyJson(proton), 'proton');
  assert.equal(classifyJson({ traceEvents: [{ ph: 'X', pid: 1, tid: 2 }] }), 'other');   // a plain Chrome trace
  const files = new Map<string, unknown>([['/t/mm.json', proton], ['/t/mm.chrome_trace', null]]);
  const fsx = { exists: (p: string) => files.has(p), json: (p: string) => files.get(p) };
  assert.deepEqual(traceFilesFor('/t/mm.chrome_trace', fsx), { buffer: '/t/mm.chrome_trace', proton: true, namesFile: undefined });
  assert.deepEqual(traceFilesFor('/t/mm.json', fsx), { buffer: '/t/mm.json', proton: true });
  assert.deepEqual(addonRequest({ buffer: '/t/mm.chrome_trace', proton: true, namesFile: '/t/mm.json', calibration: '/c.bin', cyclesPerNs: 1.98 }),
    { source: 'proton', path: '/t/mm.chrome_trace', namesFile: '/t/mm.json', cyclesPerNs: 1.98 });
});

const PROTON_FIX = join(REPO, 'test/fixtures/h100/proton');

test('the addon imports an H100 Proton trace into lanes and intervals',
  { skip: addon() && existsSync(join(PROTON_FIX, 'attention.chrome_trace.gz')) ? false : 'the addon is not built' }, async () => {
    const data = traceData(await addon()!.decodeRegions(addonRequest({ buffer: join(PROTON_FIX, 'attention.chrome_trace.gz'), proton: true, cyclesPerNs: 1.98 })));
    assert.equal(classifyJson(data), 'trace');
    assert.ok(data.lanes.length > 0 && data.intervals.length > data.lanes.length);
    const names = new Set(data.intervals.map((i: { name?: string }) => i.name));
    assert.ok(names.has('kernel') && names.has('qk') && names.has('softmax'), [...names].join(','));
    assert.equal(data.lanes.length, 64);   // 16 CTAs x 4 warps
    await assert.rejects(addon()!.decodeRegions(addonRequest({ buffer: join(FIX, 'gemm_nested_loop.json'), proton: true })), /not a Proton|no in-kernel/);
  });

function cli(): string | null {
  for (const d of [process.env.STRATA_BUILD_DIR, 'build'].filter((x): x is string => !!x)) {
    const p = resolve(REPO, d, 'bin/strata');
    if (existsSync(p)) return p;
  }
  return null;
}

let loaded: typeof Addon | null | undefined;
/** The built addon (build/addon/Release), or null. */
function addon(): typeof Addon | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  for (const d of [process.env.STRATA_BUILD_DIR, 'build'].filter((x): x is string => !!x)) {
    const p = resolve(REPO, d, 'addon/Release/strata_addon.node');
    if (existsSync(p)) { loaded = require(p) as typeof Addon; break; }
  }
  return loaded;
}

/** `strata regions ARGS --format json`, parsed, with the fields the timeline does not read
 *  (the CLI's extras) left out. */
function cliTrace(args: string[]): unknown {
  const out = JSON.parse(require('node:child_process').execFileSync(cli()!, ['regions', ...args, '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 30 }));
  delete out.origin_globaltimer_ns; delete out.header; delete out.source; delete out.kernels; delete out.proton_frequency_mhz;
  for (const l of out.lanes) { delete l.capacity; delete l.records_kept; delete l.cycles_per_ns; delete l.measured_cycles_per_ns; }
  return out;
}

test('the addon decodes what the CLI decodes: buffers (names, rate, calibration), a profile\'s launch, Proton traces',
  { skip: addon() && cli() ? false : 'the addon or the CLI is not built' }, async () => {
    const cases: [Parameters<typeof addonRequest>[0], string[]][] = [
      [{ buffer: join(FIX, 'gemm_nested_loop.bin'), namesFile: join(FIX, 'gemm_nested_loop.json'), cyclesPerNs: 1.98, calibration: join(FIX, 'calibration.bin') },
        [join(FIX, 'gemm_nested_loop.bin'), '--names-file', join(FIX, 'gemm_nested_loop.json'), '--cycles-per-ns', '1.98', '--calibration', join(FIX, 'calibration.bin')]],
      [{ buffer: join(FIX, 'warpspec.bin') }, [join(FIX, 'warpspec.bin')]],
      [{ buffer: join(FIX, 'gemm_overflow.bin') }, [join(FIX, 'gemm_overflow.bin')]],
      [{ buffer: join(FIX, 'runtime_capture.strata'), launch: 1 }, [join(FIX, 'runtime_capture.strata'), '--launch', '1']],
      [{ buffer: join(PROTON_FIX, 'attention_ws_gluon.chrome_trace.gz'), proton: true }, ['--proton', join(PROTON_FIX, 'attention_ws_gluon.chrome_trace.gz')]],
    ];
    for (const [req, args] of cases) {
      const data = traceData(await addon()!.decodeRegions(addonRequest(req)));
      // The overlap analysis is `strata regions --critical-path`'s, not part of the decoded trace.
      const { overlap, ...trace } = JSON.parse(JSON.stringify(data));
      assert.deepStrictEqual(trace, cliTrace(args), args.join(' '));
      const cp = JSON.parse(require('node:child_process').execFileSync(cli()!, ['regions', ...args, '--critical-path', '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 30 }));
      assert.equal(overlap.path.length, cp.paths.reduce((k: number, p: { segments: unknown[] }) => k + p.segments.length, 0), args.join(' '));
      assert.equal(overlap.bubbles.length, cp.bubbles.length, args.join(' '));
      assert.deepStrictEqual(overlap.path_regions.map((r: { name: string }) => r.name), cp.path_regions.map((r: { name: string }) => r.name === '(sync: release to resume)' ? '(sync)' : r.name));
      assert.equal(overlap.model.kind, cp.model.kind);
      assert.deepStrictEqual(overlap.findings.map((f: { message: string }) => f.message), cp.findings.map((f: { message: string }) => f.message));
    }
  });

test('the addon decodes an H100 buffer; a file that is not a buffer is one clear line',
  { skip: addon() ? false : 'the addon is not built' }, async () => {
    const data = traceData(await addon()!.decodeRegions(addonRequest({ buffer: join(FIX, 'gemm_nested_loop.bin'), namesFile: join(FIX, 'gemm_nested_loop.json'), cyclesPerNs: 1.98, calibration: join(FIX, 'calibration.bin') })));
    assert.ok(data.record_cost_cycles! > 10 && data.record_cost_cycles! <= 16, `replayed with the calibrated cost (${data.record_cost_cycles} cycles)`);
    assert.equal(classifyJson(data), 'trace');
    assert.equal(data.lanes.length, 128);
    assert.ok(data.intervals.some((iv: { name?: string }) => iv.name === 'compute'));
    const bad = join(mkdtempSync(join(tmpdir(), 'strata-regions-')), 'notes.bin');
    writeFileSync(bad, 'this is not a region buffer\n'.repeat(10));
    await assert.rejects(addon()!.decodeRegions(addonRequest({ buffer: bad })), (e: Error) => {
      assert.match(e.message, /notes\.bin: bad_header/);
      assert.ok(!e.message.includes('\n'), 'one line');
      return true;
    });
    const out = join(tmpdir(), `strata-chrome-${process.pid}.json`);
    await addon()!.writeRegionChromeTrace(addonRequest({ buffer: join(FIX, 'gemm_nested_loop.bin'), namesFile: join(FIX, 'gemm_nested_loop.json') }), out);
    const chrome = JSON.parse(readFileSync(out, 'utf8'));
    assert.ok(chrome.traceEvents.some((e: { ph: string; name: string }) => e.ph === 'X' && e.name === 'compute'));
  });

test('names files through the core: typed names with their markers\' lines, the sidecar\'s rate; a bad file is one line beside the trace',
  { skip: addon() ? false : 'the addon is not built' }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'strata-names-'));
    const table = join(dir, 'gemm.names');
    writeFileSync(table, '# gemm\n1=kernel\n3=load (cp.async)@../src/kernels.cuh:75\n4=compute@src/k.cu:0\n7=a@b@c.cu:9\n');
    assert.deepEqual(nameRecords(await addon()!.readRegionNames(table)), [
      { id: 1, name: 'kernel' },
      { id: 3, name: 'load (cp.async)', file: '../src/kernels.cuh', line: 75 },
      { id: 4, name: 'compute@src/k.cu:0' },   // line 0 is not a location
      { id: 7, name: 'a@b', file: 'c.cu', line: 9 },
    ]);
    const side = await addon()!.readRegionNames(join(FIX, 'gemm_nested_loop.json'));
    assert.equal(side.cyclesPerNs, 1.979991);
    assert.equal(nameRecords(side).find((r) => r.id === 4)?.name, 'compute');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"case": 1}');
    await assert.rejects(addon()!.readRegionNames(bad), /bad\.json: a JSON names file needs a "names" string/);
    // Decoding with the table: the intervals carry the bare name, the names table the location.
    const data = traceData(await addon()!.decodeRegions(addonRequest({ buffer: join(FIX, 'gemm_nested_loop.bin'), namesFile: table })));
    assert.deepEqual(data.regions?.find((r) => r.id === 3), { id: 3, name: 'load (cp.async)', file: '../src/kernels.cuh', line: 75 });
    const loads = data.intervals.filter((iv) => iv.region === 3);
    assert.ok(loads.length > 0 && loads.every((iv) => iv.name === 'load (cp.async)'));
    // A bad names file: the trace decodes without it, and says why in one line.
    const cols = await addon()!.decodeRegions(addonRequest({ buffer: join(FIX, 'gemm_nested_loop.bin'), namesFile: bad }));
    assert.equal(cols.namesFileError, 'a JSON names file needs a "names" string ("1=load;2=mma")');
    assert.equal(cols.lanes.block.length, 128);
    writeFileSync(bad, '{oops');
    const notJson = await addon()!.decodeRegions(addonRequest({ buffer: join(FIX, 'gemm_nested_loop.bin'), namesFile: bad }));
    assert.match(notJson.namesFileError ?? '', /^not valid JSON \(/);
  });

test('launches as a quick pick', () => {
  const launches = launchList({
    strings: ['', 'void k<1>(float*)', '_Z1kILi1EEvPf'], index: Uint32Array.of(0), kernel: Uint32Array.of(1), mangled: Uint32Array.of(2),
    correlationId: Float64Array.of(7), bytes: Float64Array.of(62016), total: 1,
  });
  assert.deepEqual(launches, [{ index: 0, kernel: 'void k<1>(float*)', mangled: '_Z1kILi1EEvPf', correlation_id: 7, bytes: 62016 }]);
  assert.deepEqual(launchItem(launches[0]), { label: 'Launch 0', description: 'correlation 7 · 60.6 KiB', detail: 'void k<1>(float*)' });
  const fsx = { exists: () => true, json: () => undefined };
  assert.deepEqual(traceFilesFor('/p/run.strata', fsx), { buffer: '/p/run.strata', profile: true });
});

test('the addon lists and decodes the launches of the H100 profile, and finds those of its kernel node; a profile without buffers is one line',
  { skip: addon() ? false : 'the addon is not built' }, async () => {
    const profile = join(FIX, 'runtime_capture.strata');
    const launches = launchList(await addon()!.regionLaunches(profile));
    assert.equal(launches.length, 3);
    assert.match(launches[0].kernel, /^void app::GemmKernel</);
    const p = await addon()!.open(profile);
    const v = await p.view('top-down', 0);
    const kernel = [...v.frame].findIndex((f) => v.frames.kind[f] === 5 && v.strings[v.frames.name[f]] === launches[0].kernel);
    assert.ok(kernel > 0, 'the kernel node');
    assert.deepEqual([...(await p.regionLaunchesOf('top-down', kernel)).index], [0, 1, 2]);
    assert.deepEqual([...(await p.regionLaunchesOf('top-down', 0)).index], [], 'the root is no kernel');
    p.close();
    const data = traceData(await addon()!.decodeRegions(addonRequest({ buffer: profile, launch: 2 })));
    assert.equal(classifyJson(data), 'trace');
    assert.equal(data.lanes.length, 32);   // 16 blocks x 2 warp groups
    assert.ok(data.intervals.some((iv: { name?: string }) => iv.name === 'compute'), 'names from the profile');
    assert.ok(Math.abs(data.cycles_per_ns! - 1.98) < 0.01, `the runtime's clock rate (${data.cycles_per_ns})`);
    await assert.rejects(addon()!.decodeRegions(addonRequest({ buffer: profile, launch: 3 })), /no launch 3/);
    await assert.rejects(addon()!.regionLaunches(join(FIX, '..', 'gpu_cuda_workload.strata')), (e: Error) => {
      assert.match(e.message, /no region buffers in this profile/);
      assert.ok(!e.message.includes('\n'), 'one line');
      return true;
    });
  });

test('markers: Triton Proton scopes are found by their name', () => {
  const py = scanSource('/w/attn.py', [
    'import triton.profiler.language as pl',
    '@triton.jit',
    'def k():',
    '    pl.enter_scope("qk")',
    '    pl.exit_scope("qk")',
    "    pl.enter_scope('softmax')",
  ].join('\n'));
  assert.equal(findMarker(2, 'softmax', [py])?.line, 6);
  assert.equal(findMarker(1, 'qk', [py])?.kind, 'scope');
  assert.equal(findMarker(3, 'pv', [py]), undefined);
  // A Proton trace's region 2 is not the CUDA marker whose constant is 2 in another file.
  const cu = scanSource('/w/k.cu', 'enum { kLoad = 2 };\n__global__ void k() {\n  STRATA_REGION_START(prof, kLoad);\n}\n');
  assert.equal(findMarker(2, 'softmax', [cu, py])?.file, '/w/k.cu', 'a marker buffer matches by id first');
  assert.deepEqual(findMarker(2, 'softmax', [cu, py], true), { file: '/w/attn.py', line: 6, kind: 'scope', arg: 'softmax' });
  assert.equal(findMarker(2, 'load', [cu, py], true), undefined, 'nor by the constant\'s name');
});
