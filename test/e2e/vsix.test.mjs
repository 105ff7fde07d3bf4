// End-to-end test of the packaged extension: extension/package-vsix.mjs builds the linux-x64
// VSIX (addon, CLI, runtime, libunwind inside), code-server installs it offline
// (--install-extension), and with no Strata build reachable (STRATA_BUILD_DIR points nowhere,
// no strata.cliPath) the installed extension activates, opens a profile at startup through its
// own addon, and records a run through its own CLI and runtime.
// Run: node --test test/e2e/   (see harness.mjs for prerequisites and env)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  S, activeTab, entry, extPkg, makeFolders, missingPrerequisites, openFileQuick, record, repo, runCommand, shot,
  skipReason, startSession, stopSession, strataFrame, strataTabs, toasts, waitFor,
} from './harness.mjs';

describe('Strata VSIX installed in code-server', { timeout: 600_000 }, () => {
  const missing = missingPrerequisites();
  const skip = skipReason(missing);
  let installed;

  before(async () => {
    if (skip) return;
    assert.deepEqual(missing, [], `prerequisites missing:\n  ${missing.join('\n  ')}`);
    makeFolders('vsix');
    const vsix = path.join(S.tmp, 'strata.vsix');
    // --skip-build: the bundles the suite already checked (npm run build -w extension).
    execFileSync(process.execPath, [path.join(repo, 'extension/package-vsix.mjs'), '--skip-build', '--out', vsix],
      { stdio: ['ignore', 'ignore', 'inherit'], timeout: 120000 });
    assert.ok(existsSync(vsix), 'the VSIX was built');
    execFileSync(process.execPath, [entry, '--user-data-dir', S.ud, '--extensions-dir', S.ext, '--install-extension', vsix],
      { stdio: ['ignore', 'ignore', 'inherit'], timeout: 120000 });
    const dirs = readdirSync(S.ext).filter((d) => d.startsWith(`${extPkg.publisher}.${extPkg.name}-`));
    assert.equal(dirs.length, 1, `one installed extension folder: ${readdirSync(S.ext)}`);
    installed = path.join(S.ext, dirs[0]);
    const startup = path.join(S.tmp, 'startup.strata');
    record(startup, ['/usr/bin/python3', '-c', 'def vsix_work(n):\n    return sum(i * i for i in range(n))\nfor _ in range(30): vsix_work(100000)']);
    writeFileSync(path.join(S.ws, 'small.py'), ['def small_work(n):', '    s = 0', '    for i in range(n):', '        s += i % 3',
      '    return s', '', 'for _ in range(30):', '    small_work(100000)', ''].join('\n'));
    // Nothing outside the VSIX: no repository build, no strata.cliPath.
    await startSession({ 'strata.openOnStartup': startup }, { STRATA_BUILD_DIR: path.join(S.tmp, 'no-build') });
  });

  after(async () => { if (!skip) await stopSession(); });

  test('(v1) the VSIX carries the addon, the CLI (executable after install), the runtime and libunwind', { skip }, () => {
    for (const f of ['dist/extension.js', 'dist/webview/webview.js', 'dist/native/strata_addon.node', 'dist/bin/strata',
      'dist/lib/libstrata_runtime.so', 'dist/lib/libunwind.so.8', 'media/strata-icon.png']) {
      assert.ok(existsSync(path.join(installed, f)), `${f} is installed`);
    }
    accessSync(path.join(installed, 'dist/bin/strata'), constants.X_OK);
  });

  test('(v1b) the packed binaries need no libLLVM, and the runtime loads the packed libunwind', { skip }, () => {
    const needed = (f) => [...execFileSync('readelf', ['-d', '-W', path.join(installed, f)], { encoding: 'utf8' })
      .matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]);
    for (const f of ['dist/bin/strata', 'dist/native/strata_addon.node']) {
      const libs = needed(f);
      assert.ok(!libs.some((l) => /LLVM|z3|xml2|edit|ffi/.test(l)), `${f} links LLVM statically: ${libs}`);
    }
    assert.deepEqual(needed('dist/lib/libstrata_runtime.so').filter((l) => /unwind/.test(l)), ['libunwind.so.8']);
    // The loader finds libunwind beside the runtime (RUNPATH $ORIGIN), with no LD_LIBRARY_PATH,
    // although this machine has its own copy.
    const env = { ...process.env };
    delete env.LD_LIBRARY_PATH;
    delete env.LD_PRELOAD;
    const maps = path.join(S.tmp, 'maps.strata');
    const printed = execFileSync(path.join(installed, 'dist/bin/strata'), ['record', '-o', maps, '--', '/usr/bin/python3', '-c',
      "print(*sorted({l.split()[-1] for l in open('/proc/self/maps') if 'libunwind' in l}), sep='\\n')"], { encoding: 'utf8', env, timeout: 60000 });
    assert.deepEqual(printed.split('\n').filter((l) => l.includes('libunwind')), [realpathSync(path.join(installed, 'dist/lib/libunwind.so.8'))]);
  });

  test('(v2) the installed extension activates and opens a profile with its own addon', { skip }, async () => {
    const frame = await strataFrame(90000, /Strata: .*(addon|could not)/).catch(async (e) => {
      await shot('v2-no-webview');
      throw new Error(`${e.message}; notifications: ${JSON.stringify(await toasts())}`);
    });
    await waitFor('the startup profile drawn', () => frame.evaluate(() => {
      const s = window.__strata?.stats();
      return s && s.nodes > 1 && s.instances > 0;
    }), 30000);
    assert.ok((await strataTabs()).some((t) => t.includes('startup.strata')));
    await shot('v2-vsix-startup');
    await runCommand('View: Close All Editors');
  });

  test('(v3) Run and Profile records with the packaged CLI and runtime', { skip }, async () => {
    await openFileQuick('small.py');
    await runCommand('Strata: Run and Profile');
    await waitFor('a viewer for small.py', async () => (await strataTabs()).some((t) => t.includes('small-')), 90000)
      .catch(async (e) => { await shot('v3-failed'); throw new Error(`${e.message}; notifications: ${JSON.stringify(await toasts())}`); });
    const bad = (await toasts()).find((t) => /Strata: (no profile|the program)/.test(t));
    assert.ok(!bad, `the run succeeded (${bad})`);
    const frame = await strataFrame(20000);
    await waitFor('the profile drawn', () => frame.evaluate(() => (window.__strata?.stats()?.instances ?? 0) > 0), 30000);
    await activeTab('Strata:', 10000);
    assert.ok(readdirSync(path.join(S.ws, '.strata')).some((f) => /^small-.*\.strata$/.test(f)));
    await shot('v3-vsix-run');
  });
});
