// A remote run's part of the run-and-profile path (recordRun.ts drives the process, the terminal and
// the progress notification for local and remote runs alike): the ssh command, how Cancel
// reaches the host, copying the profile back, and what a failure means in words.
import { spawn, type ChildProcess } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import { rememberPathMap } from './sourceMap';
import { hostLabel, type RemoteLaunch } from './remoteConfig';
import { describeFailure, displayCommand, fetchArgv, recordArgv, type RecordOptions } from './sshCommand';

/** What recordRun.ts asks of a remote run. */
export interface RemoteSession {
  host: string;                         // for messages: "user@gpu-box:2222"
  display: string;                      // the command as it runs on the host, for the terminal
  /** Cancel: Ctrl+C typed into the remote terminal (SIGINT to the run, as locally). */
  interrupt(child: ChildProcess): void;
  /** Copies the profile to `output` (temporary file, then rename) and removes it on the host.
   *  Resolves to why there is none, or undefined (copied, or the run wrote none: its own
   *  output says why). */
  fetch(output: string, note: (line: string) => void): Promise<string | undefined>;
  /** A failure of ssh or of the host's set-up, in words; undefined when the target decided. */
  describe(code: number | null, output: string): string | undefined;
  /** ssh itself could not be started. */
  spawnError(e: NodeJS.ErrnoException): string;
}

export interface RemoteCommand {
  cli: string;
  args: string[];
  remote: RemoteSession;
}

/** The ssh run of `target` on `r.host`. */
export function remoteCommand(r: RemoteLaunch, o: Omit<RecordOptions, 'id'>): RemoteCommand {
  const id = `${Date.now().toString(36)}-${crypto.randomBytes(4).toString('hex')}`;
  // Python writes through a pipe in blocks; the terminal should show lines as they come.
  const opts: RecordOptions = { ...o, id, env: { PYTHONUNBUFFERED: '1', ...o.env } };
  const host = hostLabel(r);
  const remote: RemoteSession = {
    host,
    display: displayCommand(r, opts),
    interrupt: (child) => {
      // The pty's line discipline turns ^C into SIGINT for the remote foreground process group.
      if (child.stdin && !child.stdin.destroyed) child.stdin.write('\x03');
      else child.kill('SIGINT');
    },
    fetch: (output, note) => fetchProfile(r, id, output, note),
    describe: (code, out) => describeFailure(r, code, out),
    spawnError: (e) => e.code === 'ENOENT'
      ? `ssh was not found on this machine (needed to profile on ${host}): install the OpenSSH client.`
      : `cannot run ssh for ${host}: ${e.message}`,
  };
  return { cli: 'ssh', args: recordArgv(r, opts), remote };
}

function fetchProfile(r: RemoteLaunch, id: string, output: string, note: (line: string) => void): Promise<string | undefined> {
  const host = hostLabel(r);
  const part = `${output}.part-${process.pid}`;
  return new Promise((resolve) => {
    let err = '';
    let done = false;
    const finish = (why: string | undefined) => {
      if (done) return;
      done = true;
      fs.rmSync(part, { force: true });   // left only when the copy failed
      resolve(why);
    };
    const file = fs.createWriteStream(part);
    const child = spawn('ssh', fetchArgv(r, id), { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(file);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (s: string) => { err = (err + s).slice(-4096); });
    child.on('error', (e) => { file.destroy(); finish(`cannot copy the profile from ${host}: ${e.message}`); });
    child.on('close', (code) => {
      // The file is complete only once its stream has flushed.
      file.end(() => {
        if (code === 3) { finish(undefined); return; }   // no profile on the host
        if (code !== 0) {
          finish(describeFailure(r, code, err) ?? `copying the profile from ${host} failed (ssh exit code ${code}): ${err.trim().split('\n').pop() ?? ''}`);
          return;
        }
        try {
          fs.renameSync(part, output);   // atomic: the profiles view never sees half a file
        } catch (e) {
          finish(`cannot save the profile from ${host} as ${output}: ${(e as Error).message}`);
          return;
        }
        rememberPathMap(r.pathMap);
        note(`[strata] copied the profile from ${host} to ${output} (${fs.statSync(output).size} bytes)`);
        finish(undefined);
      });
    });
  });
}
