// End-to-end test of profiling on a remote host over ssh (issue 6), in a real VS Code
// (code-server) against a real OpenSSH server that the test starts itself on 127.0.0.1 (a free
// port, a generated host key, a generated user key in authorized_keys, the current user):
//   (r1) a `strata` launch configuration with `remote`: "Strata: Run and Profile" runs the
//        program through ssh, its output streams into the terminal, the profile is copied back
//        into the workspace's .strata/ (nothing left on the host), opens in the flame graph, and
//        a click on a Python frame opens the LOCAL copy of the file through `remote.pathMap`
//        (the "host" folder is another local folder here, so the mapping is what decides);
//   (r2) an unreachable port and a missing CLI on the host: one clear notification naming the
//        host, quickly, no run left behind;
//   (r3) Cancel: Ctrl+C reaches the host through the pty, the partial profile comes back and
//        nothing of the run is left running;
//   (r4) hostile paths, arguments and environment (quotes, $(...), backquotes, ;, newlines,
//        non-ASCII) reach the program on the host as they are: no shell interpolation.
// The sshd is killed at the end, also when a test fails.
// Run: node --test test/e2e/remote.test.mjs   (prerequisites: harness.mjs, openssh-server)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  S, activeTab, clearNotifications, cli, extId, findNode, freePort, layoutOf, loadAddon, makeFolders, missingPrerequisites,
  nodePosition, outDir, pickQuick, repo, runCommand, shot, skipReason, sleep, startSession, statusLine, stopSession,
  strataFrame, strataTabs, terminalText, toasts, waitFor, waitToast,
} from './harness.mjs';

const SSHD = process.env.STRATA_SSHD || '/usr/sbin/sshd';

function missingHere() {
  const out = missingPrerequisites();
  if (!existsSync(SSHD)) out.push(`${SSHD} (apt-get install openssh-server)`);
  for (const tool of ['ssh', 'ssh-keygen']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) out.push(`${tool} (apt-get install openssh-client)`);
  }
  return out;
}

const WORK_PY = `import socket
import sys


def remote_hot(n):
    s = 0
    for i in range(n):
        s += i * i % 7
    return s


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    print(f"remote work on {socket.gethostname()}: {rounds} rounds", flush=True)
    total = 0
    for _ in range(rounds):
        total += remote_hot(200000)
    print(f"remote work done: {total}", flush=True)


main()
`;

const LONG_PY = `import time


def spin():
    end = time.time() + 0.25
    while time.time() < end:
        pass


for i in range(2400):
    spin()
    print(f"remote tick {i}", flush=True)
`;

// Words a shell would interpret, for (r4): each must arrive as it is.
const HOSTILE = ["$(touch PWNED_1)", "`touch PWNED_2`", "'; touch PWNED_3; '", '"$HOME" ${PATH}', 'a;b|c&d>e', 'new\nline', 'naïve 函数 🔥', '-x', ''];
const ARGS_PY = `import json, os, sys
with open(os.environ["STRATA_E2E_OUT"], "w") as f:
    json.dump({"argv": sys.argv[1:], "cwd": os.getcwd(), "env": os.environ.get("STRATA_E2E_HOSTILE")}, f)
`;

/** Profiles the fetch left on the "host" (its /tmp): strata-<id>.strata and temporaries. */
function remoteLeftovers() {
  return readdirSync(os.tmpdir()).filter((f) => /^strata-[0-9a-z]+-[0-9a-f]{8}\.strata/.test(f));
}

function processesOf(marker) {
  const r = spawnSync('pgrep', ['-f', marker], { encoding: 'utf8' });
  return r.stdout.split('\n').filter(Boolean).filter((pid) => Number(pid) !== process.pid);
}

describe('Strata remote profiling over ssh (code-server + OpenSSH)', { timeout: 600_000 }, () => {
  const missing = missingHere();
  const skip = skipReason(missing);
  let sshd;
  let sshdLog = '';
  let port, deadPort, silentPort, hostDir, hostileDir, user;
  // A server that accepts connections and never says a word: ssh must give up by itself.
  const silent = net.createServer(() => {});
  const silentSockets = new Set();
  silent.on('connection', (c) => { silentSockets.add(c); c.on('close', () => silentSockets.delete(c)); });
  const sshDir = () => path.join(S.tmp, 'ssh');

  const alive = () => sshd && sshd.exitCode === null && sshd.signalCode === null;

  before(async () => {
    if (skip) return;
    assert.deepEqual(missing, [], `prerequisites missing:\n  ${missing.join('\n  ')}`);
    makeFolders('remote');
    symlinkSync(path.join(repo, 'extension'), path.join(S.ext, extId), 'dir');
    user = os.userInfo().username;

    // The ssh server: keys, authorized_keys, a config of its own; a child of this process.
    const d = sshDir();
    mkdirSync(d, { recursive: true });
    for (const k of ['host_key', 'id_user', 'id_stranger']) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `strata-e2e-${k}`, '-f', path.join(d, k)]);
    copyFileSync(path.join(d, 'id_user.pub'), path.join(d, 'authorized_keys'));
    chmodSync(path.join(d, 'id_user'), 0o600);
    // sshd checks its privilege-separation folder exists (a container may lack it).
    if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    port = await freePort();
    deadPort = await freePort();
    await new Promise((r) => silent.listen(0, '127.0.0.1', r));
    silentPort = silent.address().port;
    writeFileSync(path.join(d, 'sshd_config'), [
      `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${path.join(d, 'host_key')}`, 'PidFile none',
      `AuthorizedKeysFile ${path.join(d, 'authorized_keys')}`, 'StrictModes no', 'PubkeyAuthentication yes',
      'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'UsePAM no', 'PermitRootLogin prohibit-password',
      `AllowUsers ${user}`, 'X11Forwarding no', 'PrintMotd no', 'LogLevel VERBOSE', '',
    ].join('\n'));
    // sshd runs under a watchdog shell that kills it when its stdin closes: at the end of the
    // test, and also when this process dies without running any handler (a crash, SIGKILL).
    sshd = spawn('sh', ['-c', '"$0" -D -e -f "$1" & s=$!; read _; kill $s; wait $s', SSHD, path.join(d, 'sshd_config')],
      { stdio: ['pipe', 'pipe', 'pipe'] });
    sshd.stdout.on('data', (s) => { sshdLog += s; });
    sshd.stderr.on('data', (s) => { sshdLog += s; });
    const sshArgs = ['-o', 'BatchMode=yes', '-o', `UserKnownHostsFile=${path.join(d, 'known_hosts')}`,
      '-o', 'StrictHostKeyChecking=accept-new', '-o', 'LogLevel=ERROR', '-i', path.join(d, 'id_user'), '-p', String(port)];
    await waitFor('sshd to accept a login', () => {
      if (!alive()) throw Object.assign(new Error(`sshd exited: ${sshdLog}`), { fatal: true });
      return spawnSync('ssh', [...sshArgs, '--', `${user}@127.0.0.1`, 'echo ok'], { encoding: 'utf8', timeout: 10000 }).stdout.trim() === 'ok';
    }, 20000, 300);

    // The program lives on the "host" in another folder; the workspace has the local copy
    // (one line more at the end, so the test can tell which one an editor shows).
    hostDir = path.join(S.tmp, 'gpu-host', 'project');
    mkdirSync(hostDir, { recursive: true });
    writeFileSync(path.join(hostDir, 'remote_work.py'), WORK_PY);
    writeFileSync(path.join(hostDir, 'remote_long.py'), LONG_PY);
    writeFileSync(path.join(S.ws, 'remote_work.py'), `${WORK_PY}# local copy of remote_work.py\n`);
    writeFileSync(path.join(S.ws, 'remote_long.py'), LONG_PY);
    // A project folder whose name a shell would run, with the program in it.
    hostileDir = path.join(S.tmp, 'gpu-host', "proj $(touch PWNED_4) `touch PWNED_5` 'q' \"dq\" ;x\nnl é");
    mkdirSync(hostileDir, { recursive: true });
    writeFileSync(path.join(hostileDir, "args $(x) 'y'.py"), ARGS_PY);
    const remote = (over = {}) => ({
      host: `${user}@127.0.0.1`, port, identityFile: path.join(d, 'id_user'), strata: cli, cwd: hostDir,
      sshOptions: [`UserKnownHostsFile=${path.join(d, 'known_hosts')}`, 'StrictHostKeyChecking=accept-new'],
      connectTimeout: 5, pathMap: { [hostDir]: '${workspaceFolder}' }, ...over,
    });
    mkdirSync(path.join(S.ws, '.vscode'), { recursive: true });
    writeFileSync(path.join(S.ws, '.vscode/settings.json'), '{}\n');
    writeFileSync(path.join(S.ws, '.vscode/launch.json'), JSON.stringify({
      version: '0.2.0',
      configurations: [
        { type: 'strata', request: 'launch', name: 'Remote work', program: 'remote_work.py', args: ['40'], python: '/usr/bin/python3', remote: remote() },
        { type: 'strata', request: 'launch', name: 'Remote long', program: 'remote_long.py', python: '/usr/bin/python3', remote: remote() },
        { type: 'strata', request: 'launch', name: 'Remote unreachable', program: 'remote_work.py', python: '/usr/bin/python3', remote: remote({ port: deadPort }) },
        { type: 'strata', request: 'launch', name: 'Remote without strata', program: 'remote_work.py', python: '/usr/bin/python3',
          remote: remote({ strata: '/opt/no-strata/bin/strata' }) },
        { type: 'strata', request: 'launch', name: 'Remote unknown key', program: 'remote_work.py', python: '/usr/bin/python3',
          remote: remote({ identityFile: path.join(d, 'id_stranger') }) },
        { type: 'strata', request: 'launch', name: 'Remote unknown host key', program: 'remote_work.py', python: '/usr/bin/python3',
          remote: remote({ sshOptions: [`UserKnownHostsFile=${path.join(d, 'empty_known_hosts')}`, 'StrictHostKeyChecking=yes'] }) },
        { type: 'strata', request: 'launch', name: 'Remote silent server', program: 'remote_work.py', python: '/usr/bin/python3',
          remote: remote({ port: silentPort, connectTimeout: 2 }) },
        { type: 'strata', request: 'launch', name: 'Remote missing program', program: 'no_such_program.py', python: '/usr/bin/python3', remote: remote() },
        { type: 'strata', request: 'launch', name: 'Remote hostile words', program: "args $(x) 'y'.py", args: HOSTILE, python: '/usr/bin/python3',
          env: { STRATA_E2E_OUT: path.join(S.tmp, 'hostile-args.json'), STRATA_E2E_HOSTILE: HOSTILE.join(' | ') },
          remote: remote({ cwd: hostileDir, pathMap: { [hostileDir]: '${workspaceFolder}' } }) },
      ],
    }, null, 2));
    await startSession({ 'strata.cliPath': cli });
  });

  after(async () => {
    if (skip) return;
    try {
      await stopSession();
    } finally {
      for (const c of silentSockets) c.destroy();
      silent.close();
      if (alive()) {
        sshd.stdin.end();   // the watchdog kills sshd and waits for it
        await Promise.race([new Promise((r) => sshd.once('exit', r)), sleep(5000)]);
        if (alive()) sshd.kill('SIGKILL');
      }
      mkdirSync(outDir, { recursive: true });
      writeFileSync(path.join(outDir, 'remote-sshd.log'), sshdLog);
    }
  });

  test('(r1) a remote launch configuration: output in the terminal, the profile copied back and shown, frames open the mapped local file', { skip }, async () => {
    const before = new Set(remoteLeftovers());
    await runCommand('Strata: Run and Profile');
    await pickQuick('Remote work');
    const frame = await strataFrame(120000, /Strata: (no profile|.*not found|.*cannot reach|.*could not|launch configuration)/);
    await waitFor('the profile in the webview', () => frame.evaluate(() => {
      const s = window.__strata?.stats();
      return s && s.nodes > 1 && s.instances > 0 ? s : null;
    }), 60000);
    const dir = path.join(S.ws, '.strata');
    const files = readdirSync(dir);
    const file = files.filter((f) => /^remote_work-.*\.strata$/.test(f)).pop();
    assert.ok(file, `the profile in the workspace's profiles folder: ${JSON.stringify(files)}`);
    assert.ok(!files.some((f) => f.includes('.part-')), `no partial copy left: ${JSON.stringify(files)}`);
    assert.deepEqual(remoteLeftovers().filter((f) => !before.has(f)), [], 'the temporary profile was removed on the host');
    assert.ok((await strataTabs()).some((t) => t.includes(file)), `the viewer tab of ${file}`);

    const term = await waitFor('the run\'s output in the terminal', async () => {
      const t = await terminalText();
      return /remote work done: \d+/.test(t) && /copied the profile from/.test(t) && /no profile was written|profile: /.test(t) ? t : null;
    }, 20000).catch(async (e) => { await shot('r1-terminal'); throw new Error(`${e.message}\nterminal: ${await terminalText()}`); });
    assert.match(term, /\[\S+@127\.0\.0\.1:\d+\] cd \S+ && \S+strata record -o/, 'the command as it runs on the host');
    assert.match(term, /finished after [\d.]+ s: the program exited normally/);
    await shot('r1-remote-run');

    // The recorded path is the host's; the click opens the workspace's copy (remote.pathMap).
    const profile = path.join(dir, file);
    const p = await loadAddon().open(profile);
    const cols = await p.view('top-down', 0);
    p.close();
    const node = findNode(cols, layoutOf(cols), 'remote_hot', /remote_work\.py$/);
    assert.ok(node && node.line > 0, 'remote_hot is in the profile');
    assert.equal(node.file, path.join(hostDir, 'remote_work.py'), 'recorded as the path on the host');
    const pos = await nodePosition(frame, node);
    await frame.locator('.strata-stage').click({ position: pos, modifiers: ['Control'] });
    await activeTab('remote_work.py', 20000);
    await waitFor(`cursor at line ${node.line}`, async () => (await statusLine()) === node.line, 10000);
    const text = await waitFor('the local copy in the editor', async () => {
      // Monaco renders spaces as no-break spaces.
      const t = (await S.page.locator('.editor-group-container.active .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
      return /local copy of remote_work\.py/.test(t) ? t : null;
    }, 10000).catch(async (e) => { await shot('r1-not-mapped'); throw e; });
    assert.ok(text);
    await shot('r1-mapped-source');
  });

  test('(r2) unreachable host, silent server, unknown key, unknown host key, missing CLI or program on the host: one clear notification each, quickly', { skip }, async () => {
    await runCommand('View: Close All Editors');
    await clearNotifications();
    const t0 = Date.now();
    await runCommand('Strata: Run and Profile');
    await pickQuick('Remote unreachable');
    const msg = await waitToast('the unreachable-host notification',
      new RegExp(`cannot reach ${user}@127\\.0\\.0\\.1:${deadPort} over ssh: Connection refused`), 20000);
    assert.ok(Date.now() - t0 < 20000, 'quickly');
    assert.match(msg, /^Strata: /);
    await shot('r2-unreachable');
    await clearNotifications();

    const host = `${user}@127\\.0\\.0\\.1:${port}`;
    const cases = [
      ['Remote without strata', `the Strata CLI "/opt/no-strata/bin/strata" was not found on ${host}\\. Set "remote\\.strata"`],
      ['Remote unknown key', `ssh could not log in to ${host}: permission denied \\(publickey\\)\\. ssh runs without prompts`],
      ['Remote unknown host key', `the host key of ${host} is not known or has changed`],
      ['Remote silent server', `cannot reach ${user}@127\\.0\\.0\\.1:${silentPort} over ssh: Connection timed out during banner exchange`],
      ['Remote missing program', `the program "no_such_program\\.py" was not found on ${host} \\(in .*gpu-host/project\\)`],
    ];
    for (const [name, re] of cases) {
      const t1 = Date.now();
      await runCommand('Strata: Run and Profile');
      await pickQuick(name);
      await waitToast(`the notification of "${name}"`, new RegExp(`^Strata: no profile was written: ${re}`), 20000);
      assert.ok(Date.now() - t1 < 20000, 'quickly');
      await waitFor('no run going on', async () => !(await toasts()).some((t) => /profiling remote_work|profiling no_such/.test(t)), 5000);
      await clearNotifications();
    }
    assert.ok(!readdirSync(path.join(S.ws, '.strata')).some((f) => /^no_such_program/.test(f)), 'no profile of a failed run');
  });

  test('(r3) Cancel stops the run on the host: the partial profile comes back, nothing is left running', { skip }, async () => {
    await runCommand('Strata: Run and Profile');
    await pickQuick('Remote long');
    await waitFor('the remote run\'s output', async () => /remote tick [3-9]/.test(await terminalText()), 30000)
      .catch(async (e) => { await shot('r3-no-ticks'); throw new Error(`${e.message}\nterminal: ${await terminalText()}`); });
    assert.ok(processesOf('remote_long.py').length > 0, 'the program runs on the host');
    const progress = S.page.locator('.notifications-toasts .notification-toast', { hasText: 'profiling remote_long.py' });
    await progress.hover();
    await progress.locator('.monaco-button', { hasText: 'Cancel' }).click();
    await waitToast('the stopped notification', /profiling was stopped; the profile covers the run until then/, 30000);
    const file = readdirSync(path.join(S.ws, '.strata')).filter((f) => /^remote_long-.*\.strata$/.test(f)).pop();
    assert.ok(file, 'the partial profile was copied back');
    await waitFor('nothing of the run left on the host', async () => processesOf('remote_long.py').length === 0, 10000);
    assert.match(await terminalText(), /cancelled/);
    await shot('r3-cancelled');
  });

  test('(r4) hostile paths, arguments and environment arrive on the host as they are', { skip }, async () => {
    const out = path.join(S.tmp, 'hostile-args.json');
    await runCommand('Strata: Run and Profile');
    await pickQuick('Remote hostile words');
    const got = await waitFor('the program\'s report', () => (existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : null), 60000)
      .catch(async (e) => { await shot('r4-no-report'); throw new Error(`${e.message}\nterminal: ${await terminalText()}`); });
    assert.deepEqual(got.argv, HOSTILE, 'every argument as it was written');
    assert.equal(got.cwd, hostileDir, 'the working folder as it was written');
    assert.equal(got.env, HOSTILE.join(' | '), 'the environment value as it was written');
    await waitFor('the profile back', async () => readdirSync(path.join(S.ws, '.strata')).some((f) => /^args.*\.strata$/.test(f)), 30000)
      .catch(async (e) => { throw new Error(`${e.message}: ${JSON.stringify(readdirSync(path.join(S.ws, '.strata')))}\nterminal: ${await terminalText()}`); });
    const pwned = [];
    const walk = (d) => { for (const e of readdirSync(d, { withFileTypes: true })) { if (/PWNED/.test(e.name) && !e.isDirectory()) pwned.push(path.join(d, e.name)); else if (e.isDirectory()) walk(path.join(d, e.name)); } };
    walk(S.tmp);
    for (const d of [os.homedir(), os.tmpdir(), '/']) pwned.push(...readdirSync(d).filter((f) => /PWNED/.test(f)).map((f) => path.join(d, f)));
    assert.deepEqual(pwned, [], 'no command substitution ran (the workspace, the host folders, home, /tmp, /)');
    assert.deepEqual(readdirSync(hostileDir).filter((f) => /PWNED/.test(f)), [], 'none in the working folder');
  });
});
