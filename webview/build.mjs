// Build script: `node build.mjs` bundles the webview (IIFE, browser) to dist/webview.js;
// `node build.mjs --tests` bundles test/*.test.ts (node, cjs) to test/out/ for `node --test`.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const tests = process.argv.includes('--tests');
const production = process.argv.includes('--production');

// The frame kinds come from the profile format's layout.h.
execFileSync(process.execPath, [join(here, 'scripts/frameKinds.mjs')], { stdio: 'inherit' });

if (!tests) {
  await build({
    entryPoints: [join(here, 'src/main.ts')],
    outfile: join(here, 'dist/webview.js'),
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['chrome108'],
    sourcemap: production ? false : 'linked',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  console.log('built dist/webview.js');
} else {
  const entryPoints = readdirSync(join(here, 'test'))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join(here, 'test', f));
  await build({
    entryPoints,
    outdir: join(here, 'test/out'),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: ['node20'],
    sourcemap: 'inline',
    external: ['playwright-core'],
    logLevel: 'warning',
  });
  console.log(`built ${entryPoints.length} test files to test/out/`);
}
