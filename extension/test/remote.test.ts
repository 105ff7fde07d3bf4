import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveLaunch, LaunchConfigError, type LaunchHost, type StrataLaunchConfig } from '../src/launch/config';
import { toLocal, toRemote } from '../src/remote/pathMap';
import { resolveRemote, type RemoteLaunch } from '../src/remote/remoteConfig';
import { describeFailure, displayCommand, EXIT, fetchArgv, fetchScript, recordArgv, shQuote, sshOptions } from '../src/remote/sshCommand';

const host: LaunchHost = {
  exists: (p) => ['/ws', '/ws/train.py', '/keys/id_ed25519'].includes(p),
  isFile: () => true, isExecutable: () => false, which: () => undefined,
  defaultPython: '/local/only/python', defaultCwd: '/ws', baseEnvPath: '/usr/bin',
};
const cfg = (c: Partial<StrataLaunchConfig>): StrataLaunchConfig => ({ type: 'strata', request: 'launch', name: 'R', ...c });
const remote = (over: Partial<RemoteLaunch> = {}): RemoteLaunch => ({
  host: 'me@gpu', strata: 'strata', sshOptions: [], connectTimeout: 10, pathMap: [], ...over,
});

test('shQuote: words survive a real POSIX shell unchanged', () => {
  const words = ['plain', '', 'two words', "it's", '$HOME', '`id`', '"q"', 'a\\b', '*', 'new\nline', '-x', '~/x', 'é ü'];
  const out = execFileSync('sh', ['-c', `for a in ${words.map(shQuote).join(' ')}; do printf '%s\\0' "$a"; done`], { encoding: 'utf8' });
  assert.deepEqual(out.split('\0').slice(0, -1), words);
  assert.equal(shQuote('/usr/bin/python3'), '/usr/bin/python3', 'safe words stay readable');
  assert.equal(shQuote("it's"), `'it'\\''s'`);
});

test('pathMap: longest remote prefix wins, on folder boundaries, both ways', () => {
  const m = [{ remote: '/srv', local: '/a' }, { remote: '/srv/proj', local: '/ws' }, { remote: '/', local: '/root-copy' }];
  assert.equal(toLocal('/srv/proj/train.py', m), '/ws/train.py');
  assert.equal(toLocal('/srv/other/x.py', m), '/a/other/x.py');
  assert.equal(toLocal('/srv/project2/x.py', m), '/a/project2/x.py', 'not a prefix of a longer name');
  assert.equal(toLocal('/srv/proj', m), '/ws');
  assert.equal(toLocal('/usr/lib/x.py', m), '/root-copy/usr/lib/x.py');
  assert.equal(toLocal('/srv/proj/a.py', [{ remote: '/srv/proj', local: '/ws' }]), '/ws/a.py');
  assert.equal(toLocal('/elsewhere/a.py', [{ remote: '/srv/proj', local: '/ws' }]), undefined);
  assert.equal(toRemote('/ws/sub/t.py', m), '/srv/proj/sub/t.py');
  assert.equal(toRemote('/wsx/t.py', [{ remote: '/srv/proj', local: '/ws' }]), undefined);
});

test('remote attribute: shapes and one-line errors', () => {
  const fail = (msg: string): never => { throw new LaunchConfigError(msg); };
  const ok = resolveRemote({ host: ' me@gpu ', port: '2222', identityFile: '/keys/id_ed25519', strata: '/opt/strata/bin/strata',
    cwd: '/srv/proj', sshOptions: ['StrictHostKeyChecking=accept-new'], connectTimeout: 3, pathMap: { '/srv/proj/': '.' } }, host, fail);
  assert.deepEqual(ok, { host: 'me@gpu', port: 2222, identityFile: '/keys/id_ed25519', strata: '/opt/strata/bin/strata', cwd: '/srv/proj',
    sshOptions: ['StrictHostKeyChecking=accept-new'], connectTimeout: 3, pathMap: [{ remote: '/srv/proj', local: '/ws' }] });
  assert.deepEqual(resolveRemote('gpu-box', host, fail), { host: 'gpu-box', port: undefined, identityFile: undefined, strata: 'strata',
    cwd: undefined, sshOptions: [], connectTimeout: 10, pathMap: [] }, 'a string is the host');

  const msg = (remoteAttr: unknown) => {
    try { resolveLaunch(cfg({ program: '/srv/proj/t.py', remote: remoteAttr }), host); } catch (e) {
      assert.ok(e instanceof LaunchConfigError); return (e as Error).message;
    }
    assert.fail('no error');
  };
  assert.match(msg({}), /^launch configuration "R": "remote.host" is missing/);
  assert.match(msg({ host: '-oProxyCommand=evil' }), /"remote.host" is not an ssh destination/);
  assert.match(msg({ host: 'a b' }), /"remote.host" is not an ssh destination/);
  assert.match(msg({ host: 'h', port: 70000 }), /"remote.port" must be a port number between 1 and 65535 \(got 70000\)/);
  assert.match(msg({ host: 'h', port: 'ssh' }), /"remote.port" must be a port number/);
  assert.match(msg({ host: 'h', identityFile: 'keys/missing' }), /"remote.identityFile" was not found: \/ws\/keys\/missing/);
  assert.match(msg({ host: 'h', pathMap: { 'rel/dir': '/ws' } }), /"remote.pathMap": "rel\/dir" must be an absolute folder on the host/);
  assert.match(msg({ host: 'h', pathMap: ['/x'] }), /"remote.pathMap" must be an object/);
  assert.match(msg({ host: 'h', sshOptions: ['-v'] }), /is not an ssh option "Name=value"/);
  assert.match(msg({ host: 'h', sshOptions: ['BatchMode=no'] }), /BatchMode cannot be changed/);
  assert.match(msg({ host: 'h', connectTimeout: 0 }), /"remote.connectTimeout"/);
  assert.match(msg(42), /"remote" must be an ssh destination/);
});

test('remote launch: nothing checked locally; local paths under pathMap become the host\'s', () => {
  const r = resolveLaunch(cfg({ program: '/ws/train.py', args: ['--n', '3'], cwd: '/not/here/either', env: { A: '1' },
    remote: { host: 'me@gpu', pathMap: { '/srv/proj': '/ws' } } }), host);
  assert.deepEqual(r.target, ['python3', '/srv/proj/train.py', '--n', '3'], 'python3 on the host, not the local strata.pythonPath');
  assert.equal(r.remote?.cwd, undefined, 'an unmapped local cwd: the login folder');
  assert.equal(r.label, 'train.py');
  const r2 = resolveLaunch(cfg({ program: 'bin/app', remote: { host: 'h', cwd: '/opt/run' } }), host);
  assert.deepEqual(r2.target, ['bin/app'], 'relative: to remote.cwd');
  assert.equal(r2.remote?.cwd, '/opt/run');
  const r3 = resolveLaunch(cfg({ module: 'pkg.train', python: '/opt/py/bin/python', remote: { host: 'h', pathMap: { '/srv/p': '${workspaceFolder}'.replace('${workspaceFolder}', '/ws') } } }), host);
  assert.deepEqual(r3.target, ['/opt/py/bin/python', '-m', 'pkg.train']);
  assert.equal(r3.remote?.cwd, '/srv/p', 'the workspace folder (default cwd) mapped to the host');
});

test('ssh argv: BatchMode first, user options before the defaults, port, key, -tt, -- before the host', () => {
  const r = remote({ port: 2222, identityFile: '/k/id', sshOptions: ['ConnectTimeout=2', 'UserKnownHostsFile=/t/kh'] });
  const o = sshOptions(r);
  assert.deepEqual(o.slice(0, 6), ['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=2', '-o', 'UserKnownHostsFile=/t/kh']);
  assert.ok(o.indexOf('ConnectTimeout=10') > o.indexOf('ConnectTimeout=2'), 'ssh keeps the first value: the user\'s');
  assert.deepEqual(o.slice(o.indexOf('-p'), o.indexOf('-p') + 2), ['-p', '2222']);
  assert.deepEqual(o.slice(-4), ['-i', '/k/id', '-o', 'IdentitiesOnly=yes']);
  const argv = recordArgv(r, { id: 'abc', target: ['python3', 't.py'], env: {} });
  assert.deepEqual(argv.slice(-4, -1), ['-tt', '--', 'me@gpu']);
  assert.match(argv[argv.length - 1], /^sh -c '/);
  const f = fetchArgv(r, 'abc');
  assert.ok(f.includes('-T') && !f.includes('-tt'), 'the binary profile does not go through a pty');
  assert.match(displayCommand(r, { id: 'abc', target: ['python3', 'my file.py'], env: {} }),
    /^\[me@gpu:2222\] strata record -o '\$TMPDIR\/strata-abc\.strata' -- python3 'my file\.py'$/);
});

test('the run script, through a real shell: checks, cd, env, quoting, exec of strata record; fetch removes the profile', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-remote-unit-'));
  try {
    const work = path.join(tmp, "wo rk's");
    fs.mkdirSync(work);
    fs.writeFileSync(path.join(work, 'prog.py'), '');
    // A fake CLI that prints where it runs, its arguments and two variables.
    const fake = path.join(tmp, 'fake strata');
    fs.writeFileSync(fake, '#!/bin/sh\npwd\nfor a in "$@"; do printf "[%s]" "$a"; done; echo\necho "A=$A B=${B-unset}"\n: > "$3"\n');
    fs.chmodSync(fake, 0o755);
    const r = remote({ strata: fake, cwd: work });
    const run = (target: string[], rr: RemoteLaunch = r) => {
      const cmd = recordArgv(rr, { id: 'unit', target, env: { A: "x 'y' $z", B: undefined }, periodMs: 5, wall: true }).pop()!;
      // ssh hands this string to the login shell on the host: sh here.
      return spawnSync('sh', ['-c', cmd], { encoding: 'utf8', env: { ...process.env, B: 'set', TMPDIR: tmp } });
    };
    const ok = run(['python3', 'prog.py', "a b", '$HOME']);
    assert.equal(ok.status, 0, ok.stderr);
    const [pwd, args, vars] = ok.stdout.trim().split('\n');
    assert.equal(pwd, work);
    assert.equal(args, `[record][-o][${tmp}/strata-unit.strata][--period-ms][5][--wall][--][python3][prog.py][a b][$HOME]`);
    assert.equal(vars, "A=x 'y' $z B=unset");

    assert.equal(run(['python3', 'missing.py']).status, EXIT.program);
    assert.match(run(['python3', 'missing.py']).stderr, /strata-remote: program not found: missing\.py/);
    assert.equal(run(['no-such-python9', 'prog.py']).status, EXIT.python);
    assert.equal(run(['python3', 'prog.py'], { ...r, cwd: path.join(tmp, 'gone') }).status, EXIT.cwd);
    assert.equal(run(['python3', 'prog.py'], { ...r, strata: '/nope/strata' }).status, EXIT.cli);

    // The fetch: prints the profile, then removes it and half-written temporaries; 3 without one.
    fs.writeFileSync(path.join(tmp, 'strata-unit.strata'), 'PROFILE');
    fs.writeFileSync(path.join(tmp, 'strata-unit.strata.tmp.123'), 'half');
    const got = spawnSync('sh', ['-c', fetchArgv(r, 'unit').pop()!], { encoding: 'utf8', env: { ...process.env, TMPDIR: tmp } });
    assert.equal(got.status, 0);
    assert.equal(got.stdout, 'PROFILE');
    assert.ok(!fs.existsSync(path.join(tmp, 'strata-unit.strata')) && !fs.existsSync(path.join(tmp, 'strata-unit.strata.tmp.123')));
    assert.equal(spawnSync('sh', ['-c', fetchScript('unit')], { env: { ...process.env, TMPDIR: tmp } }).status, 3);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('failures: one line naming the host; the target\'s own exit codes are not ssh failures', () => {
  const r = remote({ host: 'me@gpu', port: 2222, cwd: '/srv/p', strata: '/opt/strata' });
  assert.equal(describeFailure(r, 255, 'ssh: connect to host gpu port 2222: Connection refused\r\n'),
    'cannot reach me@gpu:2222 over ssh: Connection refused.');
  assert.equal(describeFailure(r, 255, 'ssh: connect to host gpu port 2222: Connection timed out\n'),
    'cannot reach me@gpu:2222 over ssh: Connection timed out.');
  assert.equal(describeFailure(r, 255, 'Connection timed out during banner exchange\r\nConnection to 127.0.0.1 port 2222 timed out\r\n'),
    'cannot reach me@gpu:2222 over ssh: Connection timed out during banner exchange.');
  assert.match(describeFailure(r, 255, 'ssh: Could not resolve hostname gpu: Name or service not known\n')!,
    /^cannot reach me@gpu:2222: Could not resolve hostname gpu/);
  assert.match(describeFailure(r, 255, 'me@gpu: Permission denied (publickey).\n')!,
    /^ssh could not log in to me@gpu:2222: permission denied \(publickey\)\. .*BatchMode/);
  assert.match(describeFailure(r, 255, 'Host key verification failed.\n')!, /host key of me@gpu:2222 is not known/);
  assert.match(describeFailure(r, EXIT.cli, '')!, /the Strata CLI "\/opt\/strata" was not found on me@gpu:2222\. Set "remote.strata"/);
  assert.match(describeFailure(r, EXIT.cwd, '')!, /working folder "\/srv\/p" does not exist on me@gpu:2222/);
  assert.match(describeFailure(r, EXIT.program, 'strata-remote: program not found: t.py\r\n')!, /the program "t.py" was not found on me@gpu:2222 \(in \/srv\/p\)/);
  assert.match(describeFailure(r, EXIT.python, 'strata-remote: python not found: python9\r\n')!, /"python9" was not found on me@gpu:2222/);
  assert.equal(describeFailure(r, 1, 'Traceback ...\n'), undefined);
  assert.equal(describeFailure(r, 255, 'the program printed this and exited 255\n'), undefined);
  assert.equal(describeFailure(r, 0, ''), undefined);
});
