// What the extension host does on opening a profile, in one Node process, with its memory after
// each step: open, the first part of the top-down view (as extension/src/viewParts.ts asks for
// it), the analyzers, line heat of every additive metric, bottom-up, one node's details.
//
//   node bench/viewer/host_memory.mjs PROFILE [ADDON]     (ADDON: default build/addon/Release/strata_addon.node)
//
// RSS counts the profile's file pages once read (mapped); "anonymous" is the process's own memory.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const [profilePath, addonPath = path.join(repo, 'build/addon/Release/strata_addon.node')] = process.argv.slice(2);
if (!profilePath) { console.error('usage: node bench/viewer/host_memory.mjs PROFILE [ADDON]'); process.exit(2); }
const addon = createRequire(import.meta.url)(path.resolve(addonPath));
const FIRST = { minShare: 0.5 / 1600, maxNodes: 100_000, maxDepth: 128, wholeUpTo: 50_000 };

function memory() {
  const s = readFileSync('/proc/self/status', 'utf8');
  const mb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)[1]) / 1024;
  return `RSS ${mb('VmRSS').toFixed(0)} MB (anonymous ${mb('RssAnon').toFixed(0)}), peak ${mb('VmHWM').toFixed(0)} MB`;
}
async function step(what, fn) {
  const t = performance.now();
  const r = await fn();
  console.log(`| ${what} | ${(performance.now() - t).toFixed(0)} | ${memory()} |`);
  return r;
}

console.log('| step | ms | memory |\n| --- | --- | --- |');
const p = await step('open', () => addon.open(profilePath));
await step('top-down, first part', () => p.view('top-down', 0, {}, FIRST));
await step('analyzers', () => p.analyze());
const additive = p.metrics().flatMap((m, i) => (m.nature === 'attribute' ? [] : [i]));
await step(`line heat (${additive.length} metrics)`, () => p.lineTotals(additive));
await step('bottom-up, first part', () => p.view('bottom-up', 0, {}, FIRST));
await step('details of a node', () => p.nodeMetrics('bottom-up', 1));
p.close();
