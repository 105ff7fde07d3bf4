// Tests of the addon's region calls against the real core on the H100 fixtures: the captured
// launches of the runtime capture profile (all, and those of its kernel's flame-graph node),
// decoded traces as columns (a profile's launch, a raw buffer with names and calibration, a
// Proton trace), the Chrome export, and one-line rejections.
// Run: node --test native/addon/test/     (after native/addon/build.sh)
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const buildDir = path.resolve(repo, process.env.STRATA_BUILD_DIR || 'build');
const addonPath = path.resolve(repo, process.env.STRATA_ADDON || path.join(buildDir, 'addon/Release/strata_addon.node'));
const FIX = path.join(repo, 'test/fixtures/h100/regions');
const PROTON = path.join(repo, 'test/fixtures/h100/proton');
const CAPTURE = path.join(FIX, 'runtime_capture.strata');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'strata-addon-regions-'));

let addon;
before(() => {
  assert.ok(existsSync(addonPath), `addon not built: ${addonPath} (bash native/addon/build.sh)`);
  addon = createRequire(import.meta.url)(addonPath);
});

/** Every column of an object of columns has `n` entries. */
function sameLength(cols, n, what) {
  for (const [k, c] of Object.entries(cols)) assert.equal(c.length, n, `${what}.${k}`);
}

test('regionLaunches: the three captured launches of the runtime capture, as columns', async () => {
  const l = await addon.regionLaunches(CAPTURE);
  assert.ok(l.index instanceof Uint32Array && l.correlationId instanceof Float64Array);
  assert.deepEqual([...l.index], [0, 1, 2]);
  assert.equal(l.total, 3);
  assert.deepEqual([...l.correlationId], [126, 129, 132]);
  assert.deepEqual([...l.bytes], [62016, 62016, 62016]);
  for (let i = 0; i < 3; i++) {
    assert.match(l.strings[l.kernel[i]], /^void app::GemmKernel</);
    assert.match(l.strings[l.mangled[i]], /^_ZN3app10GemmKernel/);
  }
  await assert.rejects(addon.regionLaunches(path.join(repo, 'test/fixtures/h100/gpu_cuda_workload.strata')),
    (e) => /no region buffers in this profile/.test(e.message) && !e.message.includes('\n'));
  assert.throws(() => addon.regionLaunches(3), TypeError);
});

test('Profile.regionLaunchesOf: the launches of the kernel node on screen; none elsewhere', async () => {
  const p = await addon.open(CAPTURE);
  for (const kind of ['top-down', 'bottom-up']) {
    const v = await p.view(kind, 0);
    const kernels = [];
    for (let i = 0; i < v.frame.length; i++) {
      const f = v.frame[i];
      if (v.frames.kind[f] === 5 && /GemmKernel/.test(v.strings[v.frames.name[f]])) kernels.push(i);
    }
    assert.ok(kernels.length > 0, `a GemmKernel node in ${kind}`);
    for (const k of kernels) assert.deepEqual([...(await p.regionLaunchesOf(kind, k, 0)).index], [0, 1, 2], `${kind} node ${k}`);
    assert.deepEqual([...(await p.regionLaunchesOf(kind, 0)).index], []);
    assert.deepEqual([...(await p.regionLaunchesOf(kind, 1e6)).index], [], 'an unknown node');
  }
  assert.throws(() => p.regionLaunchesOf('sideways', 1), TypeError);
  p.close();
  assert.throws(() => p.regionLaunchesOf('top-down', 1), /closed/);
});

test('decodeRegions: a captured launch as columns, names and marker lines from the profile', async () => {
  const t = await addon.decodeRegions({ source: 'profile', path: CAPTURE, launch: 2 });
  assert.ok(Math.abs(t.cyclesPerNs - 1.98) < 0.01, `the runtime's rate (${t.cyclesPerNs})`);
  const lanes = t.lanes.block.length, n = t.intervals.lane.length;
  assert.equal(lanes, 32);   // 16 blocks x 2 warp groups
  sameLength(t.lanes, lanes, 'lanes');
  sameLength(t.intervals, n, 'intervals');
  sameLength(t.regions, t.regions.id.length, 'regions');
  assert.ok(n > lanes);
  for (let i = 0; i < n; i++) {
    assert.ok(t.intervals.lane[i] < lanes);
    assert.ok(t.intervals.parent[i] < i);
    assert.ok(t.intervals.endNs[i] >= t.intervals.startNs[i]);
  }
  const id = [...t.regions.id].findIndex((_, i) => t.strings[t.regions.name[i]] === 'compute');
  assert.ok(id >= 0, 'compute is named');
  assert.equal(t.strings[t.regions.file[id]], 'kernels.cuh');
  assert.ok(t.regions.line[id] > 0);
  assert.deepEqual(t.issues, []);
  assert.equal(t.groups.length, 2, 'two warp groups');
  assert.ok(t.groups.every((g) => g.lanes === 16 && g.regions.length > 0));
  await assert.rejects(addon.decodeRegions({ source: 'profile', path: CAPTURE, launch: 3 }),
    /runtime_capture\.strata: no launch 3 \(the profile has 3 captured launches: 0\.\.2\)/);
  assert.throws(() => addon.decodeRegions({ source: 'profile', path: CAPTURE }), /needs its launch/);
});

test('decodeRegions: a raw buffer with names, rate and calibration; Proton traces; bad input in one line', async () => {
  const t = await addon.decodeRegions({
    source: 'buffer', path: path.join(FIX, 'gemm_nested_loop.bin'), names: '4=compute', cyclesPerNs: 1.98,
    calibration: path.join(FIX, 'calibration.bin'),
  });
  assert.equal(t.lanes.block.length, 128);
  assert.ok(t.recordCostCycles > 10 && t.recordCostCycles <= 16, `calibrated (${t.recordCostCycles})`);
  assert.equal(t.cyclesPerNs, 1.98);
  assert.deepEqual([...t.regions.id], [4]);
  assert.ok(t.intervals.rawEndNs.some((e, i) => e - t.intervals.rawStartNs[i] > t.intervals.endNs[i] - t.intervals.startNs[i]),
    'replay takes the marker cost out');
  const ws = await addon.decodeRegions({ source: 'proton', path: path.join(PROTON, 'attention_ws_gluon.chrome_trace.gz') });
  assert.equal(ws.lanes.block.length, 160);   // 32 CTAs x 5 warps
  assert.equal(ws.intervals.lane.length, 9216);
  assert.ok(ws.lanes.kernel.every((k) => ws.strings[k].length > 0), 'each lane names its kernel');
  assert.ok(ws.intervals.iteration.some((x) => x >= 0), 'repeated scopes are iterations');
  assert.deepEqual(ws.issues.map((i) => i.kind).sort(), ['no_clock_rate', 'overflow'], "Proton's 1 GHz axis; its dropped records");
  const bad = path.join(tmp, 'notes.bin');
  writeFileSync(bad, 'this is not a region buffer\n'.repeat(10));
  await assert.rejects(addon.decodeRegions({ source: 'buffer', path: bad }), (e) => /notes\.bin: bad_header/.test(e.message) && !e.message.includes('\n'));
  await assert.rejects(addon.decodeRegions({ source: 'buffer', path: path.join(FIX, 'gemm_nested_loop.bin'), calibration: path.join(FIX, 'warpspec.bin') }),
    /warpspec\.bin: not a calibration buffer/);
  await assert.rejects(addon.decodeRegions({ source: 'proton', path: path.join(PROTON, 'attention_bench.hatchet') }), /hatchet file has no timeline/);
  assert.throws(() => addon.decodeRegions({ source: 'tape', path: bad }), TypeError);
  assert.throws(() => addon.decodeRegions({ source: 'buffer' }), /path must be a string/);
});

test('writeRegionChromeTrace: the Chrome trace written whole; nothing left on failure', async () => {
  const out = path.join(tmp, 'launch1.chrome.json');
  await addon.writeRegionChromeTrace({ source: 'profile', path: CAPTURE, launch: 1 }, out);
  const chrome = JSON.parse(readFileSync(out, 'utf8'));
  assert.ok(chrome.traceEvents.some((e) => e.ph === 'X' && e.name === 'compute' && e.args.location?.startsWith('kernels.cuh:')));
  assert.ok(!existsSync(`${out}.tmp`));
  const nowhere = path.join(tmp, 'no/such/folder/x.json');
  await assert.rejects(addon.writeRegionChromeTrace({ source: 'profile', path: CAPTURE, launch: 1 }, nowhere), /x\.json: cannot write/);
  assert.ok(!existsSync(nowhere) && !existsSync(`${nowhere}.tmp`));
});
