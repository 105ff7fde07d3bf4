// Running `strata regions` (native/cli, docs/regions.md): the argument list, and a run with a
// time limit whose failure is one line for a notification (the CLI's own stderr line, or why it
// could not run). No vscode import: unit-tested under node.
import { execFile } from 'node:child_process';

export interface DecodeRequest {
  buffer: string;
  /** `id=name;...` (locations already taken off). */
  names?: string;
  cyclesPerNs?: number;
  calibration?: string;
  /** `buffer` is a Proton trace: `strata regions --proton FILE` (names come from the trace). */
  proton?: boolean;
  /** `buffer` is a profile (`strata record --regions`): decode its captured launch N
   *  (`--launch N`; names from the profile's region frames). */
  launch?: number;
}

export function regionsArgs(req: DecodeRequest, format: 'json' | 'chrome' | 'text', output?: string): string[] {
  const args = req.proton ? ['regions', '--proton', req.buffer] : ['regions', req.buffer];
  if (req.launch !== undefined && !req.proton) args.push('--launch', String(req.launch));
  if (req.names && !req.proton) args.push('--names', req.names);
  if (req.calibration && !req.proton) args.push('--calibration', req.calibration);
  if (req.cyclesPerNs !== undefined && Number.isFinite(req.cyclesPerNs) && req.cyclesPerNs > 0) args.push('--cycles-per-ns', String(req.cyclesPerNs));
  args.push('--format', format);
  if (output) args.push('-o', output);
  return args;
}

/** The line to show for a failed run: the CLI's last "strata: ..." line on stderr, else its
 *  last non-empty line, else the exit status. */
export function failureLine(stderr: string, code: number | string | null, signal: string | null): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  const own = lines.filter((l) => l.startsWith('strata:')).pop() ?? lines.pop();
  if (own) return own.replace(/^strata:\s*/, '');
  if (signal) return `strata regions was killed by ${signal}`;
  return `strata regions failed (exit status ${code ?? 'unknown'})`;
}

export const DECODE_TIMEOUT_MS = 120_000;

/** Runs the CLI; resolves to its stdout, rejects with an Error whose message is one line. */
export function runRegions(cli: string, args: string[], timeoutMs = DECODE_TIMEOUT_MS): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cli, args, { timeout: timeoutMs, maxBuffer: 1 << 30, encoding: 'utf8', killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (!err) { resolve(stdout); return; }
      const e = err as NodeJS.ErrnoException & { killed?: boolean; signal?: string | null; code?: number | string };
      if (e.code === 'ENOENT') reject(new Error(`the Strata CLI "${cli}" was not found. Set "strata.cliPath" or build Strata (scripts/build.sh).`));
      else if (e.code === 'EACCES') reject(new Error(`the Strata CLI "${cli}" cannot be run (permission denied).`));
      else if (e.killed && e.signal) reject(new Error(`strata regions took longer than ${Math.round(timeoutMs / 1000)} s and was stopped.`));
      else if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') reject(new Error('the decoded trace is larger than 1 GiB.'));
      else reject(new Error(failureLine(stderr ?? '', e.code ?? null, e.signal ?? null)));
    });
  });
}

/** One launch of `strata regions PROFILE --list --format json`. */
export interface CapturedLaunch {
  index: number;
  /** Demangled, as the flame graph shows the kernel. */
  kernel: string;
  mangled: string;
  correlation_id: number;
  bytes: number;
}

export function listArgs(profile: string): string[] {
  return ['regions', profile, '--list', '--format', 'json'];
}

/** The launches of `--list --format json`; throws an Error (one line) on anything else. */
export function parseLaunches(out: string): CapturedLaunch[] {
  let v: unknown;
  try { v = JSON.parse(out); } catch { throw new Error('strata regions --list did not print JSON (is the CLI older than the extension?)'); }
  const launches = (v as { launches?: unknown } | null)?.launches;
  if (!Array.isArray(launches)) throw new Error('strata regions --list printed no launches.');
  return launches.filter((l): l is CapturedLaunch => !!l && typeof l === 'object' &&
    Number.isInteger((l as CapturedLaunch).index) && typeof (l as CapturedLaunch).kernel === 'string');
}

/** The launches of `kernel` (the flame graph's name, demangled, or the mangled one); all
 *  launches when `kernel` is not given. */
export function launchesOf(launches: CapturedLaunch[], kernel?: string): CapturedLaunch[] {
  if (!kernel) return launches;
  return launches.filter((l) => l.kernel === kernel || l.mangled === kernel);
}

/** Quick pick label and detail of a launch. */
export function launchItem(l: CapturedLaunch): { label: string; description: string; detail: string } {
  const kib = l.bytes >= 1024 ? `${(l.bytes / 1024).toFixed(1)} KiB` : `${l.bytes} bytes`;
  return { label: `Launch ${l.index}`, description: `correlation ${l.correlation_id} · ${kib}`, detail: l.kernel };
}
