import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveLaunch, LaunchConfigError, type LaunchHost, type StrataLaunchConfig } from '../src/launch/config';

const files = new Map<string, 'file' | 'dir' | 'exe'>([
  ['/ws', 'dir'], ['/ws/sub', 'dir'], ['/ws/train.py', 'file'], ['/ws/app', 'exe'], ['/ws/notes.txt', 'file'],
  ['/usr/bin/python3', 'exe'], ['/opt/py/bin/python', 'exe'],
]);
const host: LaunchHost = {
  exists: (p) => files.has(p),
  isFile: (p) => files.get(p) === 'file' || files.get(p) === 'exe',
  isExecutable: (p) => files.get(p) === 'exe',
  which: (cmd, envPath) => (envPath?.split(':').includes('/usr/bin') && cmd === 'python3' ? '/usr/bin/python3' : undefined),
  defaultPython: 'python3', defaultCwd: '/ws', baseEnvPath: '/usr/bin:/bin',
};
const cfg = (c: Partial<StrataLaunchConfig>): StrataLaunchConfig => ({ type: 'strata', request: 'launch', name: 'T', ...c });

test('program: a Python file runs with the interpreter; args, cwd, env, sampling options', () => {
  const r = resolveLaunch(cfg({ program: '/ws/train.py', args: ['--epochs', 1] as unknown as string[], env: { A: '1', B: null }, cwd: 'sub', periodMs: 5, wall: true }), host);
  assert.deepEqual(r.target, ['python3', '/ws/train.py', '--epochs', '1']);
  assert.equal(r.cwd, '/ws/sub');
  assert.deepEqual(r.env, { A: '1', B: undefined });
  assert.equal(r.periodMs, 5);
  assert.equal(r.wall, true);
  assert.equal(r.label, 'train.py');
  assert.deepEqual(resolveLaunch(cfg({ program: 'train.py', args: `--name 'a b'` }), host).target, ['python3', '/ws/train.py', '--name', 'a b']);
  assert.equal(resolveLaunch(cfg({ program: 'train.py' }), host).wall, undefined, 'unset: the setting decides');
});

test('program: an executable runs as it is; module runs with python -m; python by absolute path', () => {
  assert.deepEqual(resolveLaunch(cfg({ program: '${workspaceFolder}/app'.replace('${workspaceFolder}', '/ws'), args: ['x'] }), host).target, ['/ws/app', 'x']);
  assert.deepEqual(resolveLaunch(cfg({ module: 'pkg.train', python: '/opt/py/bin/python' }), host).target, ['/opt/py/bin/python', '-m', 'pkg.train']);
  assert.deepEqual(resolveLaunch(cfg({ program: 'python3', args: ['-c', 'pass'] }), host).target, ['python3', '-c', 'pass'], 'a command on PATH');
});

test('bad configurations: one clear message naming the configuration and the attribute', () => {
  const msg = (c: Partial<StrataLaunchConfig>, h: LaunchHost = host) => {
    try { resolveLaunch(cfg(c), h); } catch (e) { assert.ok(e instanceof LaunchConfigError); return (e as Error).message; }
    assert.fail('no error');
  };
  assert.match(msg({}), /^launch configuration "T": it has no "program" .* and no "module"/);
  assert.match(msg({ program: 'missing.py' }), /"program" was not found: \/ws\/missing\.py/);
  assert.match(msg({ program: 'train.py', module: 'm' }), /either "program" or "module"/);
  assert.match(msg({ program: 'notes.txt' }), /neither a Python file \(\.py\) nor an executable/);
  assert.match(msg({ program: 'train.py', python: '/nope/python3' }), /the Python interpreter was not found: \/nope\/python3 \("python"\)/);
  assert.match(msg({ program: 'train.py' }, { ...host, defaultPython: 'python9' }),
    /the Python interpreter "python9" is not on PATH \(the setting "strata.pythonPath"\)/);
  assert.match(msg({ program: 'train.py', env: { PATH: '/nowhere' } }), /"python3" is not on PATH/, 'the target\'s PATH is the one searched');
  assert.match(msg({ program: 'train.py', cwd: '/gone' }), /"cwd" does not exist: \/gone/);
  assert.match(msg({ program: 'train.py', args: 3 as unknown as string }), /"args" must be/);
  assert.match(msg({ program: 'train.py', periodMs: -1 }), /"periodMs"/);
  assert.match(msg({ module: 'not a module' }), /not a Python module name/);
  assert.match(msg({ program: 'train.py', request: 'attach' }), /"request" must be "launch"/);
});

test('pcSampling / pcSamplingPeriod: checked, passed on', () => {
  const r = resolveLaunch(cfg({ program: '/ws/train.py', pcSampling: 'serialized', pcSamplingPeriod: 12 }), host);
  assert.equal(r.pcSampling, 'serialized');
  assert.equal(r.pcSamplingPeriod, 12);
  assert.equal(resolveLaunch(cfg({ program: '/ws/train.py' }), host).pcSampling, undefined, 'unset: the setting decides');
  assert.throws(() => resolveLaunch(cfg({ program: '/ws/train.py', pcSampling: 'always' }), host), /"pcSampling" must be/);
  assert.throws(() => resolveLaunch(cfg({ program: '/ws/train.py', pcSamplingPeriod: 3 }), host), /"pcSamplingPeriod" must be/);
});
