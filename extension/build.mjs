// Build script for the extension.
//   node build.mjs               bundle src/extension.ts -> dist/extension.js (cjs, node) and copy
//                                what the packaged extension carries into dist/:
//                                  dist/webview/webview.js   (from webview/dist, built first)
//                                  dist/media/strata.css, strata-icon.svg (from media/)
//                                  dist/native/strata_addon.node (from <build>/addon/Release)
//   node build.mjs --production  the same, minified, without source maps
//   node build.mjs --tests       bundle test/*.test.ts -> test/out/ for `node --test`
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..');
const tests = process.argv.includes('--tests');
const production = process.argv.includes('--production');

function copy(from, to, what, required) {
  if (!existsSync(from)) {
    const msg = `extension build: ${what} not found at ${from}`;
    if (required) throw new Error(msg);
    console.warn(`${msg} (skipped)`);
    return;
  }
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
}

if (tests) {
  const entryPoints = readdirSync(join(here, 'test')).filter((f) => f.endsWith('.test.ts')).map((f) => join(here, 'test', f));
  rmSync(join(here, 'test/out'), { recursive: true, force: true });
  await build({
    entryPoints, outdir: join(here, 'test/out'), bundle: true, format: 'cjs', platform: 'node',
    target: ['node20'], sourcemap: 'inline', external: ['vscode'], logLevel: 'warning',
  });
  console.log(`built ${entryPoints.length} test files to test/out/`);
} else {
  await build({
    entryPoints: [join(here, 'src/extension.ts')],
    outfile: join(here, 'dist/extension.js'),
    bundle: true, format: 'cjs', platform: 'node', target: ['node20'],
    external: ['vscode'],
    sourcemap: production ? false : 'linked',
    minify: production,
    logLevel: 'warning',
  });
  const dist = join(here, 'dist');
  copy(join(repo, 'webview/dist/webview.js'), join(dist, 'webview/webview.js'), 'the webview bundle (npm run build -w webview)', true);
  copy(join(repo, 'media/strata.css'), join(dist, 'media/strata.css'), 'media/strata.css', true);
  copy(join(repo, 'media/strata-icon.svg'), join(dist, 'media/strata-icon.svg'), 'media/strata-icon.svg', false);
  const buildDir = resolve(repo, process.env.STRATA_BUILD_DIR || 'build');
  const addon = join(buildDir, 'addon/Release/strata_addon.node');
  if (existsSync(addon)) copy(addon, join(dist, 'native/strata_addon.node'), 'the addon', true);
  else {
    rmSync(join(dist, 'native'), { recursive: true, force: true });
    console.warn(`extension build: ${addon} not built yet (bash native/addon/build.sh); the extension will look for it at run time`);
  }
  console.log('built dist/extension.js');
}
