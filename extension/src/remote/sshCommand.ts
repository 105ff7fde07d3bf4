// The ssh command lines of a remote run, and what their failures mean. Pure: unit-tested.
//
// The run:   ssh -tt ... -- HOST "sh -c '<script>'"
//   The script checks the working folder, the CLI, the interpreter and the program (each
//   failure its own exit code, so the message can say which), then execs
//   `strata record -o $TMPDIR/strata-<id>.strata -- TARGET`. A pseudo-terminal (-tt) ties the
//   remote run to the connection: Cancel types Ctrl+C into it (SIGINT to the run, which writes
//   the profile so far, as a local Cancel does), and a connection that drops (ssh killed, VS
//   Code gone) hangs the terminal up, so nothing is left running on the host.
// The fetch: ssh ... -- HOST "sh -c '<cat the profile, then remove it>'", stdout to a local file.
//   No pty there: the profile is binary.
import type { RemoteLaunch } from './remoteConfig';
import { hostLabel } from './remoteConfig';

/** Quotes one word for a POSIX shell (and fish and zsh, which read '…'\''…' the same way). */
export function shQuote(s: string): string {
  if (s === '') return "''";
  if (/^[A-Za-z0-9_\-+=/.,:@%^]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Exit codes of the run script's checks: above what strata and shells use (126, 127, 128+n). */
export const EXIT = { cwd: 211, cli: 212, python: 213, program: 214 } as const;
/** ssh's own failures (connection, authentication, host key). */
export const SSH_FAILED = 255;

/** Options every ssh call gets. BatchMode first (ssh keeps the first value of an option): no
 *  password or host-key prompt can wait for input no one sees; the user's options come before
 *  the other defaults so they can change them. */
export function sshOptions(r: RemoteLaunch): string[] {
  const o = ['-o', 'BatchMode=yes'];
  for (const x of r.sshOptions) o.push('-o', x);
  o.push('-o', `ConnectTimeout=${r.connectTimeout}`,
    // A host that vanishes mid-run (network gone) ends the run within a minute.
    '-o', 'ServerAliveInterval=15', '-o', 'ServerAliveCountMax=4',
    // "Connection to X closed." and known-hosts notes would end up in the program's output.
    '-o', 'LogLevel=ERROR');
  if (r.port) o.push('-p', String(r.port));
  if (r.identityFile) o.push('-i', r.identityFile, '-o', 'IdentitiesOnly=yes');
  return o;
}

/** The profile on the host, as a shell expression (the host's $TMPDIR, else /tmp). */
export function remoteProfileExpr(id: string): string {
  return `"\${TMPDIR:-/tmp}/strata-${id}.strata"`;
}

export interface RecordOptions {
  id: string;                                 // names the temporary profile on the host
  target: string[];                           // the command on the host
  env: Record<string, string | undefined>;    // undefined removes a variable
  periodMs?: number;
  wall?: boolean;
}

/** The POSIX sh script that runs on the host. */
export function recordScript(r: RemoteLaunch, o: RecordOptions): string {
  const q = shQuote;
  const lines: string[] = [];
  const die = (code: number, msg: string) => `{ echo ${q(`strata-remote: ${msg}`)} >&2; exit ${code}; }`;
  if (r.cwd) lines.push(`cd ${q(r.cwd)} 2>/dev/null || ${die(EXIT.cwd, `the working folder does not exist: ${r.cwd}`)}`);
  lines.push(`command -v ${q(r.strata)} >/dev/null 2>&1 || ${die(EXIT.cli, `strata not found: ${r.strata}`)}`);
  const [cmd, ...rest] = o.target;
  const isPython = rest.length > 0 && (rest[0] === '-m' || /\.pyw?$/i.test(rest[0]));
  if (isPython) {
    lines.push(`command -v ${q(cmd)} >/dev/null 2>&1 || ${die(EXIT.python, `python not found: ${cmd}`)}`);
    if (rest[0] !== '-m') lines.push(`[ -f ${q(rest[0])} ] || ${die(EXIT.program, `program not found: ${rest[0]}`)}`);
  } else if (cmd.includes('/')) {
    lines.push(`[ -f ${q(cmd)} ] || ${die(EXIT.program, `program not found: ${cmd}`)}`);
  } else {
    lines.push(`command -v ${q(cmd)} >/dev/null 2>&1 || ${die(EXIT.program, `program not found: ${cmd}`)}`);
  }
  // Plain POSIX (no `env -u`): unset, then export, then exec.
  for (const [k, v] of Object.entries(o.env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) continue;   // not a name a shell can set
    lines.push(v === undefined ? `unset ${k}` : `${k}=${q(v)}; export ${k}`);
  }
  const record = ['record', '-o', '"$f"'];
  if (o.periodMs && o.periodMs > 0) record.push('--period-ms', String(o.periodMs));
  if (o.wall) record.push('--wall');
  lines.push(`f=${remoteProfileExpr(o.id)}`);
  lines.push(`exec ${q(r.strata)} ${record.join(' ')} -- ${o.target.map(q).join(' ')}`);
  return lines.join('\n');
}

/** `sh -c '<script>'`, as the one string ssh hands the login shell on the host. */
function remoteCommand(script: string): string {
  return `sh -c ${shQuote(script)}`;
}

/** argv (after "ssh") of the run. */
export function recordArgv(r: RemoteLaunch, o: RecordOptions): string[] {
  return [...sshOptions(r), '-tt', '--', r.host, remoteCommand(recordScript(r, o))];
}

/** The script that prints the profile and removes it (and any half-written temporary of it).
 *  Exit 3: there is no profile. */
export function fetchScript(id: string): string {
  return [`f=${remoteProfileExpr(id)}`,
    'if [ ! -f "$f" ]; then rm -f "$f".tmp.*; exit 3; fi',
    'cat "$f"; s=$?', 'rm -f "$f" "$f".tmp.*', 'exit $s'].join('\n');
}

/** argv (after "ssh") of the fetch. */
export function fetchArgv(r: RemoteLaunch, id: string): string[] {
  return [...sshOptions(r), '-T', '--', r.host, remoteCommand(fetchScript(id))];
}

/** What the user sees in the terminal: the command as it runs on the host. */
export function displayCommand(r: RemoteLaunch, o: RecordOptions): string {
  const rec = [r.strata, 'record', '-o', `$TMPDIR/strata-${o.id}.strata`];
  if (o.periodMs && o.periodMs > 0) rec.push('--period-ms', String(o.periodMs));
  if (o.wall) rec.push('--wall');
  const cmd = [...rec, '--', ...o.target].map(shQuote).join(' ');
  return `[${hostLabel(r)}] ${r.cwd ? `cd ${shQuote(r.cwd)} && ` : ''}${cmd}`;
}

/** One line for the user when a run failed for a reason of ssh or of the host; undefined when
 *  the run itself (strata, the target) decided the exit code. `output` is the tail of what the
 *  run printed (ssh's errors included). */
export function describeFailure(r: RemoteLaunch, code: number | null, output: string): string | undefined {
  const host = hostLabel(r);
  const lines = output.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const sshLine = lines.find((l) => /^ssh: |Permission denied \(|^(Host key verification failed|kex_exchange|Connection (closed|reset|timed out)|Received disconnect|ssh_exchange)/.test(l));
  switch (code) {
    case EXIT.cwd: return `the working folder "${r.cwd}" does not exist on ${host} ("remote.cwd").`;
    case EXIT.cli: return `the Strata CLI "${r.strata}" was not found on ${host}. Set "remote.strata" to its full path there (a non-interactive ssh shell may not have it on PATH).`;
    case EXIT.python: {
      const m = lines.map((l) => /^strata-remote: python not found: (.*)$/.exec(l)).find(Boolean);
      return `the Python interpreter "${m?.[1] ?? 'python3'}" was not found on ${host} (set "python" to its path there).`;
    }
    case EXIT.program: {
      const m = lines.map((l) => /^strata-remote: program not found: (.*)$/.exec(l)).find(Boolean);
      return `the program "${m?.[1] ?? '?'}" was not found on ${host}${r.cwd ? ` (in ${r.cwd})` : ''}.`;
    }
    case SSH_FAILED: break;
    default: return undefined;
  }
  // 255 is also what a remote command killed by a signal reports: only ssh's own errors count.
  if (!sshLine) return undefined;
  if (/Permission denied/.test(sshLine)) {
    return `ssh could not log in to ${host}: ${sshLine.replace(/^.*?Permission denied/, 'permission denied').replace(/\.$/, '')}. ` +
      'ssh runs without prompts (BatchMode): use a key without passphrase or an ssh agent ("remote.identityFile").';
  }
  if (/Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED/.test(output)) {
    return `the host key of ${host} is not known or has changed: connect once with ssh in a terminal to check and accept it.`;
  }
  if (/Could not resolve hostname/.test(sshLine)) return `cannot reach ${host}: ${sshLine.replace(/^ssh: /, '')}.`;
  // "ssh: connect to host H port P: Connection refused", "Connection timed out during banner
  // exchange" (a server that accepts but never speaks: ConnectTimeout covers it too), ...
  const why = sshLine.replace(/^ssh: (connect to host \S+ port \d+: )?/, '').replace(/\.$/, '');
  if (/^ssh: |Connection (timed out|closed|reset|refused)|No route to host|Network is unreachable/.test(sshLine)) {
    return `cannot reach ${host} over ssh: ${why}.`;
  }
  return `ssh to ${host} failed: ${why}.`;
}
