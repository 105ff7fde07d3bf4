// End-to-end test of the setting `strata.torch.operators` in a real VS Code (code-server):
//   (o1) set to "frames", "Strata: Run and Profile" on a PyTorch training script (Debian's torch on
//        the CPU) records without RecordFunction callbacks (the profile's meta `operators` says
//        "from frames"), and the viewer opens a profile whose operators (aten::addmm, ...) are
//        named from torch's dispatcher frames under the script's forward lines.
//   (o2) left at its default ("auto"), the same script records its operators with RecordFunction
//        callbacks from the first autograd graph on (meta `operators` says so, with backward operators
//        linked), and aten::addmm lies under the forward lines.
// Run: node --test test/e2e/operators.test.mjs   (see harness.mjs for prerequisites and env)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import {
  S, cli, extId, frameOf, loadAddon, makeFolders, missingPrerequisites, openFileQuick, repo, runCommand, shot, skipReason,
  startSession, stopSession, strataFrame, waitFor,
} from './harness.mjs';

const hasTorch = (() => {
  try { execFileSync('/usr/bin/python3', ['-c', 'import torch'], { stdio: 'ignore', timeout: 60000 }); return true; } catch { return false; }
})();

/** One session on a copy of test/ops/torch_model.py with `settings`; the test runs "Run and Profile"
 *  there and checks the profile's meta `operators` against `operators` and aten::addmm under the
 *  forward lines. */
function operatorsSession(title, prefix, settings, testName, operators) {
  describe(title, { timeout: 300_000 }, () => {
    const missing = missingPrerequisites();
    const skip = skipReason(missing) || (hasTorch ? false : 'no torch for /usr/bin/python3 (python3-torch)');

    before(async () => {
      if (skip) return;
      assert.deepEqual(missing, [], `prerequisites missing:\n  ${missing.join('\n  ')}`);
      makeFolders(prefix);
      symlinkSync(path.join(repo, 'extension'), path.join(S.ext, extId), 'dir');
      copyFileSync(path.join(repo, 'test/ops/torch_model.py'), path.join(S.ws, 'torch_model.py'));
      await startSession({ 'strata.cliPath': cli, 'strata.pythonPath': '/usr/bin/python3', ...settings });
    });

    after(async () => { if (!skip) await stopSession(); });

    test(testName, { skip }, async () => {
      await openFileQuick('torch_model.py');
      await runCommand('Strata: Run and Profile');
      const frame = await strataFrame(120000, /Strata: (no profile|.*not found|.*could not)/);
      await waitFor('the profile in the webview', () => frame.evaluate(() => {
        const s = window.__strata?.stats();
        return s && s.nodes > 1 && s.instances > 0 ? s : null;
      }), 60000);
      await shot(`${prefix}-viewer`);
      const dir = path.join(S.ws, '.strata');
      const file = readdirSync(dir).filter((f) => /^torch_model-.*\.strata$/.test(f)).sort().pop();
      assert.ok(file, `a profile in ${dir}`);
      const p = await loadAddon().open(path.join(dir, file));
      try {
        const meta = p.meta().operators ?? '';
        assert.match(meta, operators, meta);
        assert.ok(await addmmUnderForwardLines(p) >= 1, 'aten::addmm under torch_model.py:20 or :22');
      } finally { p.close(); }
    });
  });
}

// aten::addmm (an operator frame, FrameKind 3) with torch_model.py:20 or :22 (FC1_LINE, FC2_LINE:
// Net.forward's Linear layers) on its path: how many such nodes the top-down view has.
async function addmmUnderForwardLines(p) {
  const cols = await p.view('top-down', 0);
  let found = 0;
  for (let n = 1; n < cols.parent.length; n++) {
    const f = frameOf(cols, n);
    if (f.kind !== 3 || f.name !== 'aten::addmm') continue;
    for (let a = cols.parent[n]; a > 0; a = cols.parent[a]) {
      const g = frameOf(cols, a);
      if (g.kind === 1 && /torch_model\.py$/.test(g.file) && (g.line === 20 || g.line === 22)) { found++; break; }
    }
  }
  return found;
}

operatorsSession('Strata: PyTorch operators named from native frames (code-server)', 'operators',
  { 'strata.torch.operators': 'frames' },
  '(o1) "frames": no callbacks, operators from the dispatcher\'s frames under the forward lines',
  /^from frames: torch .* no RecordFunction callbacks \(STRATA_OPERATORS=frames\)/);

operatorsSession('Strata: PyTorch operators in the default mode (code-server)', 'operators-auto', {},
  '(o2) default: callbacks from the first autograd graph on, operators under the forward lines',
  /^recorded: torch .*RecordFunction callbacks from the first autograd graph on.* [1-9]\d* backward linked/);
