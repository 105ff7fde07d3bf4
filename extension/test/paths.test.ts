import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addonCandidates, findAddon, resolveCliPath } from '../src/nativePaths';

test('addon: env override, packaged dist/native, then the repo build', () => {
  assert.deepEqual(addonCandidates('/r/extension', {}), [
    '/r/extension/dist/native/strata_addon.node', '/r/build/addon/Release/strata_addon.node']);
  assert.deepEqual(addonCandidates('/r/extension', { STRATA_ADDON: '/x.node', STRATA_BUILD_DIR: 'b2' }), [
    '/x.node', '/r/extension/dist/native/strata_addon.node', '/r/b2/addon/Release/strata_addon.node',
    '/r/build/addon/Release/strata_addon.node']);
  const r = findAddon('/r/extension', {}, (p) => p.startsWith('/r/build'));
  assert.equal(r.path, '/r/build/addon/Release/strata_addon.node');
  assert.equal(findAddon('/r/extension', {}, () => false).path, undefined);
});

test('CLI: setting, shipped dist/bin/ (the VSIX) or bin/, repo build, PATH', () => {
  const none = () => false;
  assert.equal(resolveCliPath('/opt/strata', '/r/extension', { exists: none }), '/opt/strata');
  assert.equal(resolveCliPath('~/bin/strata', '/r/extension', { exists: none, home: '/home/u' }), '/home/u/bin/strata');
  assert.equal(resolveCliPath('${workspaceFolder}/b/strata', '/r/extension', { exists: none, workspaceFolder: '/w' }), '/w/b/strata');
  assert.equal(resolveCliPath('', '/r/extension', { exists: (p) => p === '/r/extension/bin/strata' }), '/r/extension/bin/strata');
  assert.equal(resolveCliPath(undefined, '/r/extension', { exists: (p) => p === '/r/build/bin/strata' }), '/r/build/bin/strata');
  assert.equal(resolveCliPath('', '/x/strata.strata-0.1.0', { exists: (p) => p.endsWith('/dist/bin/strata') || p.endsWith('/build/bin/strata') }),
    '/x/strata.strata-0.1.0/dist/bin/strata');
  assert.equal(resolveCliPath('  ', '/r/extension', { exists: none }), 'strata');
});
