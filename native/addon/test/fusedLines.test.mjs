// The addon on a fused kernel's lines (test/fixtures/h100/inductor/fused_from_provenance.strata,
// written by the runtime's CCT from torch 2.11's recorded provenance): the view's frame table
// carries them as typed columns, sourceLocation opens one of them, lineTotals has the fused part.
// Run: node --test native/addon/test/     (after native/addon/build.sh)
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const buildDir = path.resolve(repo, process.env.STRATA_BUILD_DIR || 'build');
const addonPath = path.resolve(repo, process.env.STRATA_ADDON || path.join(buildDir, 'addon/Release/strata_addon.node'));
const FIXTURE = path.join(repo, 'test/fixtures/h100/inductor/fused_from_provenance.strata');
const RESNET = path.join(repo, 'test/fixtures/h100/real_models/resnet50_train.strata');
const PROBE = '/work/main/bench/real_models/inductor_probe.py';

let addon;
before(() => {
  assert.ok(existsSync(addonPath), `addon not built: ${addonPath} (bash native/addon/build.sh)`);
  addon = createRequire(import.meta.url)(addonPath);
});

test('view: the fused frame\'s lines as frame-table columns; sourceLocation opens each', async () => {
  const p = await addon.open(FIXTURE);
  try {
    const cols = await p.view('top-down', 0);
    const t = cols.frames;
    assert.equal(t.fusedOffset.length, t.kind.length + 1);
    const fusedEntries = [];
    for (let f = 0; f < t.kind.length; f++) if (t.fusedOffset[f + 1] > t.fusedOffset[f]) fusedEntries.push(f);
    assert.equal(fusedEntries.length, 1, 'one frame: both fused kernels compute lines 20 and 19');
    const f = fusedEntries[0];
    assert.equal(cols.strings[t.name[f]], 'fused (2 lines)');
    const lines = [];
    for (let k = t.fusedOffset[f]; k < t.fusedOffset[f + 1]; k++) {
      lines.push(`${cols.strings[t.fusedFile[k]]}:${t.fusedLine[k]} ${cols.strings[t.fusedFunction[k]]}`);
    }
    assert.deepEqual(lines, [`${PROBE}:20 forward`, `${PROBE}:19 forward`]);
    const node = [...cols.frame].findIndex((x) => x === f);
    assert.ok(node > 0);
    assert.equal(await p.sourceLocation('top-down', node), null, 'the fused frame has no line of its own');
    assert.deepEqual(await p.sourceLocation('top-down', node, undefined, 1), { file: PROBE, line: 19, name: 'forward', kind: 'python', module: '' });
    assert.equal(await p.sourceLocation('top-down', node, undefined, 2), null, 'no third line');
    assert.throws(() => p.sourceLocation('top-down', node, undefined, -1), RangeError);
    const lt = await p.lineTotals([0]);
    const at = (line) => [...lt.line].findIndex((l, i) => l === line && lt.strings[lt.file[i]] === PROBE);
    assert.equal(lt.values[0][at(19)], 10000);
    assert.equal(lt.fused[0][at(19)], 5000);
    assert.equal(lt.fused[0][at(20)], 5000);
  } finally { p.close(); }
});

test('view: a profile without fused frames sends no fused columns', async () => {
  const p = await addon.open(RESNET);
  try {
    const cols = await p.view('top-down', 0);
    assert.equal(cols.frames.fusedOffset, undefined);
    const lt = await p.lineTotals([0]);
    assert.ok(lt.fused[0].every((v) => v === 0));
  } finally { p.close(); }
});
