// Packages the extension as a VSIX for linux-x64 with its native parts, so that it installs
// offline (code-server, Remote-SSH hosts without a Strata build):
//   dist/extension.js, dist/webview/, dist/media/     the bundles (node build.mjs --production)
//   dist/native/strata_addon.node                     the N-API addon
//   dist/bin/strata                                   the CLI
//   dist/lib/libstrata_runtime.so                     the runtime (the CLI preloads it from ../lib)
//   dist/lib/libunwind.so.8                           the runtime's one non-base dependency, found
//                                                     beside it through its RUNPATH ($ORIGIN)
// LLVM is linked statically into the CLI and the addon (STRATA_LLVM_STATIC, the default), so a
// host needs nothing beyond glibc, libstdc++, zlib and terminfo (and the NVIDIA driver and CUDA
// for GPU collection). The packed binaries carry their symbol tables but no debug sections.
// Before packing, each binary's needed libraries are checked against that list: a build that
// links libLLVM or anything else a bare host lacks fails here, not on the user's machine.
//
// Everything is staged in out/vsix/ (git-ignored) and packed there, so the repository's own
// dist/ never carries a copy of the CLI that would shadow build/bin/strata during development.
//
//   node package-vsix.mjs [--out FILE] [--skip-build]
// Env: STRATA_BUILD_DIR (default <repo>/build), STRATA_LIBUNWIND (default: from ldconfig).
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..');
const buildDir = resolve(repo, process.env.STRATA_BUILD_DIR || 'build');
const argv = process.argv.slice(2);
const outArg = argv.includes('--out') ? argv[argv.indexOf('--out') + 1] : undefined;
const pkg = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
const out = resolve(outArg ?? join(here, 'out', `${pkg.name}-linux-x64-${pkg.version}.vsix`));
const stage = join(here, 'out', 'vsix');

function need(p, how) {
  if (!existsSync(p)) throw new Error(`package-vsix: ${p} is missing (${how})`);
  return p;
}

function findLibunwind() {
  if (process.env.STRATA_LIBUNWIND) return need(process.env.STRATA_LIBUNWIND, 'STRATA_LIBUNWIND');
  // The one the runtime resolves to on this machine (ldd), else the usual Debian path.
  try {
    const ldd = execFileSync('ldd', [join(buildDir, 'lib/libstrata_runtime.so')], { encoding: 'utf8' });
    const m = /libunwind\.so\.8 => (\S+)/.exec(ldd);
    if (m) return realpathSync(m[1]);
  } catch { /* fall through */ }
  return need('/lib/x86_64-linux-gnu/libunwind.so.8', 'install libunwind8 or set STRATA_LIBUNWIND');
}

// Libraries every glibc Linux host has (Ubuntu and Debian base images included); anything else
// a packed binary needs must be packed too.
const baseLibraries = new Set(['libc.so.6', 'libm.so.6', 'libdl.so.2', 'libpthread.so.0', 'librt.so.1',
  'ld-linux-x86-64.so.2', 'libstdc++.so.6', 'libgcc_s.so.1', 'libz.so.1', 'libtinfo.so.6', 'liblzma.so.5']);
const packed = { 'dist/lib/libstrata_runtime.so': ['libunwind.so.8'] };

function dynamicSection(file) {
  const text = execFileSync('readelf', ['-d', '-W', file], { encoding: 'utf8' });
  const needed = [...text.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]);
  const runpath = /\((?:RUNPATH|RPATH)\)\s+Library (?:runpath|rpath): \[([^\]]*)\]/.exec(text)?.[1] ?? '';
  return { needed, runpath };
}

/** Fails on a packed binary that needs a library a bare host may lack; returns the newest glibc
 *  and libstdc++ symbol versions the binaries need (the oldest host they run on). */
function checkDependencies(root) {
  const files = ['dist/bin/strata', 'dist/native/strata_addon.node', 'dist/lib/libstrata_runtime.so', 'dist/lib/libunwind.so.8'];
  const newest = { GLIBC: '0', GLIBCXX: '0' };
  const newer = (a, b) => {
    const x = a.split('.').map(Number); const y = b.split('.').map(Number);
    for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
    return false;
  };
  for (const f of files) {
    const { needed, runpath } = dynamicSection(join(root, f));
    const extra = needed.filter((n) => !baseLibraries.has(n) && !(packed[f] ?? []).includes(n));
    if (extra.length) {
      throw new Error(`package-vsix: ${f} needs ${extra.join(', ')}, which a bare host lacks (LLVM must be linked statically: -DSTRATA_LLVM_STATIC=ON)`);
    }
    if (packed[f] && !runpath.split(':').includes('$ORIGIN')) {
      throw new Error(`package-vsix: ${f} has no RUNPATH $ORIGIN, so it would not find ${packed[f].join(', ')} beside it`);
    }
    const syms = execFileSync('objdump', ['-T', join(root, f)], { encoding: 'utf8', maxBuffer: 64 << 20 });
    for (const m of syms.matchAll(/\b(GLIBC|GLIBCXX)_(\d+(?:\.\d+)*)\b/g)) {
      if (newer(m[2], newest[m[1]])) newest[m[1]] = m[2];
    }
  }
  return newest;
}

if (!argv.includes('--skip-build')) {
  execFileSync(process.execPath, [join(here, 'build.mjs'), '--production'], { stdio: 'inherit', cwd: here });
}
const parts = {
  addon: need(join(buildDir, 'addon/Release/strata_addon.node'), 'bash native/addon/build.sh'),
  cli: need(join(buildDir, 'bin/strata'), 'scripts/build.sh'),
  runtime: need(join(buildDir, 'lib/libstrata_runtime.so'), 'scripts/build.sh'),
  libunwind: findLibunwind(),
};

rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
cpSync(join(here, 'dist'), join(stage, 'dist'), { recursive: true, filter: (src) => !src.endsWith('.map') });
rmSync(join(stage, 'dist/bin'), { recursive: true, force: true });
rmSync(join(stage, 'dist/lib'), { recursive: true, force: true });
const put = (from, to, mode) => {
  const dst = join(stage, to);
  mkdirSync(dirname(dst), { recursive: true });
  copyFileSync(from, dst);
  if (mode) chmodSync(dst, mode);
};
put(parts.addon, 'dist/native/strata_addon.node');
put(parts.cli, 'dist/bin/strata', 0o755);
put(parts.runtime, 'dist/lib/libstrata_runtime.so', 0o755);
put(parts.libunwind, 'dist/lib/libunwind.so.8', 0o644);
// Debug sections are for developing Strata, not for running it (the CLI's are most of its size).
for (const f of ['dist/native/strata_addon.node', 'dist/bin/strata', 'dist/lib/libstrata_runtime.so']) {
  execFileSync('objcopy', ['--strip-debug', join(stage, f)]);
}
const glibcNeeds = checkDependencies(stage);
put(join(repo, 'media/strata-icon.png'), 'media/strata-icon.png');
put(join(repo, 'media/strata-icon.svg'), 'media/strata-icon.svg');
put(join(here, 'README.md'), 'README.md');
writeFileSync(join(stage, 'LICENSE'), 'MIT License\n\nCopyright (c) Strata authors\n');
// The staged manifest: no scripts (vsce would run vscode:prepublish) and no dev dependencies.
const staged = { ...pkg };
delete staged.scripts;
delete staged.devDependencies;
writeFileSync(join(stage, 'package.json'), `${JSON.stringify(staged, null, 2)}\n`);
// Only what is staged goes in (vsce reads .vscodeignore; nothing to ignore but maps).
writeFileSync(join(stage, '.vscodeignore'), '**/*.map\n');

mkdirSync(dirname(out), { recursive: true });
const vsce = createRequire(import.meta.url).resolve('@vscode/vsce/vsce');
execFileSync(process.execPath, [vsce, 'package', '--target', 'linux-x64', '--no-dependencies', '--allow-missing-repository',
  '--skip-license', '--out', out], { stdio: 'inherit', cwd: stage });
const mb = (statSync(out).size / 1048576).toFixed(1);
console.log(`package-vsix: ${out} (${mb} MB): addon, CLI, runtime, libunwind for linux-x64; `
  + `needs glibc >= ${glibcNeeds.GLIBC}, libstdc++ >= GLIBCXX_${glibcNeeds.GLIBCXX}, no libLLVM`);
