// Tests of the N-API addon against the real core: errors as one-line rejections, and (with a
// profile recorded by the real CLI + runtime) meta, metrics, the three views as columns,
// source locations, close(), concurrent calls.
// Run: node --test native/addon/test/     (after native/addon/build.sh and the native build)
// Env: STRATA_BUILD_DIR (default build), STRATA_ADDON (path of strata_addon.node).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const buildDir = path.resolve(repo, process.env.STRATA_BUILD_DIR || 'build');
const addonPath = path.resolve(repo, process.env.STRATA_ADDON || path.join(buildDir, 'addon/Release/strata_addon.node'));
const cli = path.join(buildDir, 'bin/strata');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'strata-addon-'));

let addon;
let recorded;      // path of a profile recorded by the CLI
let recordError;   // why there is none
let cliMissing = false;

before(() => {
  assert.ok(existsSync(addonPath), `addon not built: ${addonPath} (bash native/addon/build.sh)`);
  addon = createRequire(import.meta.url)(addonPath);
  if (!existsSync(cli)) { cliMissing = true; recordError = `${cli} not built`; return; }
  const script = path.join(tmp, 'busy.py');
  writeFileSync(script, [
    'def inner(n):',
    '    s = 0',
    '    for i in range(n):',
    '        s += i * i',
    '    return s',
    '',
    'def outer():',
    '    t = 0',
    '    for _ in range(600):',  // ~0.5 s of CPU: well above the hotspot rule's 10-sample floor
    '        t += inner(20000)',
    '    return t',
    '',
    'print(outer())',
    '',
  ].join('\n'));
  const out = path.join(tmp, 'busy.strata');
  try {
    execFileSync(cli, ['record', '-o', out, '--', 'python3', script], { stdio: 'pipe', timeout: 60000 });
    recorded = out;
  } catch (e) {
    recordError = `strata record failed: ${String(e.stderr ?? e.message).trim().split('\n').pop()}`;
  }
});

test('open() rejects a non-profile with the core one-line message', async () => {
  const bad = path.join(tmp, 'bad.strata');
  writeFileSync(bad, 'definitely not a profile, but long enough to have a header '.repeat(4));
  const e = await addon.open(bad).then(() => null, (x) => x);
  assert.ok(e instanceof Error, 'rejects with an Error');
  assert.ok(e.message.length > 0 && !e.message.includes('\n'), `one line: ${JSON.stringify(e.message)}`);
  const m = await addon.open(path.join(tmp, 'missing.strata')).then(() => null, (x) => x.message);
  assert.ok(m && !m.includes('\n'), `missing file: ${m}`);
  const empty = path.join(tmp, 'empty.strata');
  writeFileSync(empty, '');
  assert.ok(await addon.open(empty).then(() => false, () => true), 'empty file rejected');
});

test('gpuSampling(): null for a fully traced profile, the windows and scale of a sampled one', async (t) => {
  const synth = path.join(buildDir, 'bin/strata_synth_profile');
  if (!existsSync(synth)) { t.skip(`${synth} not built`); return; }
  const full = path.join(tmp, 'full.strata');
  execFileSync(synth, ['--shape', 'hostile', '--nodes', '10', '-o', full]);
  const p = await addon.open(full);
  assert.equal(p.gpuSampling(), null);
  p.close();
  const sampled = path.join(tmp, 'sampled.strata');
  execFileSync(synth, ['--shape', 'hostile', '--nodes', '10', '-o', sampled, '--meta', 'gpu_window_ms=30',
    '--meta', 'gpu_window_period_ms=100', '--meta', 'gpu_scale=3.3333333333333335', '--meta', 'gpu_windows_opened=7']);
  const q = await addon.open(sampled);
  assert.deepEqual(q.gpuSampling(), { windowMs: 30, periodMs: 100, scale: 3.3333333333333335, windowsOpened: 7,
    timeScale: 3.3333333333333335, byOperatorCalls: false, fewWindows: true });
  q.close();
  assert.throws(() => q.gpuSampling(), /closed/);
  const byCalls = path.join(tmp, 'sampled-calls.strata');
  execFileSync(synth, ['--shape', 'hostile', '--nodes', '10', '-o', byCalls, '--meta', 'gpu_window_ms=100',
    '--meta', 'gpu_window_period_ms=1000', '--meta', 'gpu_scale=12.68', '--meta', 'gpu_time_scale=10',
    '--meta', 'gpu_scale_basis=operator_calls', '--meta', 'gpu_windows_opened=18']);
  const r = await addon.open(byCalls);
  assert.deepEqual(r.gpuSampling(), { windowMs: 100, periodMs: 1000, scale: 12.68, windowsOpened: 18, timeScale: 10,
    byOperatorCalls: true, fewWindows: false });
  r.close();
});

test('argument errors throw synchronously', () => {
  assert.throws(() => addon.open(), TypeError);
  assert.throws(() => addon.open(42), TypeError);
  assert.throws(() => new addon.Profile(), /open\(path\)/);
});

test('a recorded profile: meta, metrics, views, source, close', async (t) => {
  if (cliMissing) { t.skip(recordError); return; }
  assert.ok(recorded, recordError);
  const p = await addon.open(recorded);
  const meta = p.meta();
  assert.equal(typeof meta, 'object');
  assert.ok(meta.exit, `meta has "exit": ${JSON.stringify(meta)}`);
  const metrics = p.metrics();
  assert.ok(metrics.length >= 1 && metrics.every((m) => typeof m.name === 'string' && typeof m.unit === 'string'));

  for (const kind of ['top-down', 'bottom-up', 'flat']) {
    const v = await p.view(kind, 0);
    const n = v.parent.length;
    assert.equal(v.view, kind);
    assert.equal(v.metric, metrics[0].name);
    assert.ok(n > 1, `${kind}: has nodes`);
    const f = v.frames;
    const m = f.kind.length;
    assert.ok(v.parent instanceof Int32Array && v.frame instanceof Uint32Array &&
      v.inclusive instanceof Float64Array && v.exclusive instanceof Float64Array);
    assert.ok(f.kind instanceof Uint8Array && f.name instanceof Uint32Array && f.file instanceof Uint32Array &&
      f.line instanceof Uint32Array && f.module instanceof Uint32Array);
    for (const c of [v.frame, v.inclusive, v.exclusive, v.count]) assert.equal(c.length, n);
    for (const c of [f.name, f.file, f.line, f.module]) assert.equal(c.length, m);
    assert.equal(v.parent[0], -1);
    for (let i = 1; i < n; i++) assert.ok(v.parent[i] >= 0 && v.parent[i] < i, `${kind}: preorder at ${i}`);
    for (let i = 0; i < n; i++) assert.ok(v.frame[i] < m, `${kind}: node ${i}'s frame is in the table`);
    assert.ok(m <= n, `${kind}: one table entry per distinct frame (${m} for ${n} nodes)`);
    const used = new Set(v.frame);
    assert.equal(used.size, m, `${kind}: every table entry is some node's frame`);
    const seen = new Set();
    for (let e = 0; e < m; e++) {
      const key = `${f.kind[e]}|${f.name[e]}|${f.file[e]}|${f.line[e]}|${f.module[e]}`;
      assert.ok(!seen.has(key), `${kind}: frame ${e} is not repeated`);
      seen.add(key);
    }
    assert.equal(v.strings[0], '');
    for (const c of [f.name, f.file, f.module]) for (let e = 0; e < m; e++) assert.ok(c[e] < v.strings.length);
    assert.equal(v.total, v.inclusive[0]);
    assert.equal(f.kind[v.frame[0]], 0, 'node 0 is the root');
    const names = [...v.frame].map((e) => v.strings[f.name[e]]);
    assert.ok(names.includes('inner') && names.includes('outer'), `${kind}: python frames (${names.slice(0, 20).join(', ')})`);
  }

  const td = await p.view('top-down', 0);
  const inner = [...td.frame].findIndex((e) => td.strings[td.frames.name[e]] === 'inner');
  const loc = await p.sourceLocation('top-down', inner);
  assert.ok(loc, 'inner has a source location');
  assert.equal(loc.name, 'inner');
  assert.equal(loc.kind, 'python');
  assert.ok(loc.file.endsWith('busy.py'), loc.file);
  assert.ok(loc.line >= 1 && loc.line <= 5, `line ${loc.line} is inside inner()`);
  assert.equal(await p.sourceLocation('top-down', 0), null, 'the root has no source');
  assert.equal(await p.sourceLocation('top-down', 1e6), null, 'unknown node');
  assert.throws(() => p.view('sideways', 0), TypeError);
  assert.throws(() => p.sourceLocation('top-down', -1), RangeError);
  await assert.rejects(p.view('top-down', metrics.length + 3), /out of range|metric/);

  // Concurrent calls on the thread pool.
  const all = await Promise.all(Array.from({ length: 8 }, (_, i) => p.view(i % 2 ? 'bottom-up' : 'flat', 0)));
  assert.ok(all.every((v) => v.parent.length > 1));

  const pending = p.view('bottom-up', 0);
  p.close();
  assert.equal(p.closed, true);
  assert.ok((await pending).parent.length > 1, 'a call in flight completes after close()');
  assert.throws(() => p.meta(), /closed/);
  assert.throws(() => p.view('top-down', 0), /closed/);
});

test('analyze(): findings of the recorded profile, rule-file errors, bad thresholds', async (t) => {
  if (cliMissing) return t.skip(recordError);
  assert.ok(recorded, recordError);
  const p = await addon.open(recorded);
  // The recorded program spends most of its time in inner(): a hotspot at a line of busy.py.
  const all = await p.analyze();
  assert.equal(all.format_version, 1);
  assert.equal(all.profile, recorded, 'sourceless findings are attached to the analyzed file');
  const hot = all.findings.filter((f) => f.rule === 'hotspot');
  assert.ok(hot.length > 0, JSON.stringify(all));
  // The hottest leaf may be the interpreter's own C code (samples land in x_add or the
  // allocator as often as on the Python line), so ask for busy.py on the path, not as the leaf.
  const inBusy = (fr) => fr.file.endsWith('busy.py') && fr.line > 0;
  assert.ok(hot.some((f) => inBusy(f.location) || f.path.some(inBusy)), JSON.stringify(hot[0]));
  assert.ok(['error', 'warning', 'note'].includes(hot[0].severity));
  assert.ok(Array.isArray(hot[0].path) && hot[0].path.length > 0);
  // A rule file with an error: the error names file and line; the built-ins still ran.
  const rules = path.join(tmp, 'bad.rules');
  writeFileSync(rules, '[rule x]\nwhen = nonsense\nmessage = m\n');
  const withErrors = await p.analyze({ rules: [rules] });
  assert.equal(withErrors.errors.length, 1);
  assert.ok(withErrors.errors[0].startsWith(`${rules}:2: `), withErrors.errors[0]);
  assert.ok(withErrors.findings.some((f) => f.rule === 'hotspot'));
  const none = await p.analyze({ disabled: ['hotspot'], thresholds: { 'cpu-latency.ratio': 5 } });
  assert.ok(!none.findings.some((f) => f.rule === 'hotspot'));
  await assert.rejects(p.analyze({ thresholds: { 'hotspot.nope': 1 } }), /unknown rule parameter 'hotspot.nope'/);
  assert.throws(() => p.analyze({ rules: 'x' }), TypeError);
  p.close();
});

test('frame kinds: the core numbers them as the webview\'s generated FrameKind (one list: layout.h)', async () => {
  const ts = (await import('node:fs')).readFileSync(path.join(repo, 'webview/src/frameKinds.generated.ts'), 'utf8');
  const members = [...ts.matchAll(/^\s+(\w+) = (\d+),$/gm)].map((m) => [m[1], Number(m[2])]);
  assert.ok(members.length >= 9);
  const snake = (s) => s.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
  assert.deepEqual(members.map(([, v]) => v), addon.frameKinds.map((_, i) => i));
  assert.deepEqual(members.map(([n]) => snake(n)), [...addon.frameKinds]);
});
