// A `strata` launch configuration (launch.json) → the command to record, checked up front so a
// bad configuration gives one clear message instead of a run that fails later. Pure (file
// system lookups are injected): unit-tested under plain node.
import * as path from 'node:path';
import { splitCommandLine, type PcSamplingMode } from '../recordCommand';
import { toRemote } from '../remote/pathMap';
import { resolveRemote, type RemoteLaunch } from '../remote/remoteConfig';

/** What a `strata` launch configuration may hold (package.json contributes.debuggers). */
export interface StrataLaunchConfig {
  type: string;
  request: string;
  name: string;
  program?: unknown;        // a Python file, or an executable
  module?: unknown;         // python -m MODULE
  args?: unknown;           // string[] or one string split like a shell
  env?: unknown;            // Record<string, string | null>; null removes a variable
  cwd?: unknown;
  python?: unknown;         // interpreter; default: strata.pythonPath
  periodMs?: unknown;
  wall?: unknown;
  pcSampling?: unknown;     // 'off' | 'continuous' | 'serialized'
  pcSamplingPeriod?: unknown;
  remote?: unknown;         // run on another host over ssh (remote/remoteConfig.ts)
}

export interface ResolvedLaunch {
  target: string[];                       // the command strata records
  cwd: string;
  env: Record<string, string | undefined>; // changes to the extension host's environment
  periodMs?: number;
  wall?: boolean;
  pcSampling?: PcSamplingMode;
  pcSamplingPeriod?: number;
  label: string;                          // for titles: the program's or module's name
  /** Set: `target` and `cwd` are on this host (cwd '' = the login folder); env applies there. */
  remote?: RemoteLaunch;
}

export interface LaunchHost {
  exists(p: string): boolean;
  isFile(p: string): boolean;
  isExecutable(p: string): boolean;
  /** A command name looked up on PATH (of the target's environment); undefined if absent. */
  which(cmd: string, envPath: string | undefined): string | undefined;
  defaultPython: string;      // strata.pythonPath
  defaultCwd: string;         // the workspace folder
  baseEnvPath: string | undefined;
}

export class LaunchConfigError extends Error {}

/** Checks the configuration and builds the command. Throws LaunchConfigError with a message
 *  that names the configuration and the attribute to fix. */
export function resolveLaunch(c: StrataLaunchConfig, host: LaunchHost): ResolvedLaunch {
  const name = typeof c.name === 'string' && c.name ? c.name : 'strata';
  const fail = (msg: string): never => { throw new LaunchConfigError(`launch configuration "${name}": ${msg}`); };
  const str = (v: unknown, attr: string): string | undefined => {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') fail(`"${attr}" must be a string`);
    return (v as string).trim() || undefined;
  };
  if (c.request !== undefined && c.request !== 'launch') fail(`"request" must be "launch" (got "${String(c.request)}")`);

  const remote = c.remote !== undefined && c.remote !== null ? resolveRemote(c.remote, host, fail) : undefined;
  const cwd = path.resolve(host.defaultCwd, str(c.cwd, 'cwd') ?? host.defaultCwd);
  if (!remote && !host.exists(cwd)) fail(`the working folder "cwd" does not exist: ${cwd}`);

  let args: string[] = [];
  if (Array.isArray(c.args)) {
    if (c.args.some((a) => typeof a !== 'string' && typeof a !== 'number')) fail('"args" must be an array of strings');
    args = c.args.map(String);
  } else if (typeof c.args === 'string') {
    try { args = splitCommandLine(c.args); } catch (e) { fail(`"args": ${(e as Error).message}`); }
  } else if (c.args !== undefined && c.args !== null) {
    fail('"args" must be an array of strings or a string');
  }

  const env: Record<string, string | undefined> = {};
  if (c.env !== undefined && c.env !== null) {
    if (typeof c.env !== 'object' || Array.isArray(c.env)) fail('"env" must be an object of NAME: "value" (null removes a variable)');
    for (const [k, v] of Object.entries(c.env as Record<string, unknown>)) {
      if (v === null) env[k] = undefined;
      else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') env[k] = String(v);
      else fail(`"env.${k}" must be a string`);
    }
  }
  const envPath = 'PATH' in env ? env.PATH : host.baseEnvPath;

  let periodMs: number | undefined;
  if (c.periodMs !== undefined && c.periodMs !== null) {
    const p = Number(c.periodMs);
    if (!Number.isFinite(p) || p < 0 || p > 60000) fail('"periodMs" must be a number of milliseconds between 1 and 60000 (0: the default)');
    periodMs = p;
  }
  if (c.wall !== undefined && c.wall !== null && typeof c.wall !== 'boolean') fail('"wall" must be true or false');
  let pcSampling: PcSamplingMode | undefined;
  if (c.pcSampling !== undefined && c.pcSampling !== null) {
    if (c.pcSampling !== 'off' && c.pcSampling !== 'continuous' && c.pcSampling !== 'serialized')
      fail('"pcSampling" must be "off", "continuous" or "serialized"');
    pcSampling = c.pcSampling as PcSamplingMode;
  }
  let pcSamplingPeriod: number | undefined;
  if (c.pcSamplingPeriod !== undefined && c.pcSamplingPeriod !== null) {
    const n = Number(c.pcSamplingPeriod);
    if (!Number.isInteger(n) || !(n === 0 || (n >= 5 && n <= 31)))
      fail('"pcSamplingPeriod" must be an integer N from 5 to 31 (2^N GPU cycles between samples; 0: CUPTI\'s default)');
    pcSamplingPeriod = n;
  }

  const program = str(c.program, 'program');
  const module = str(c.module, 'module');
  if (program && module) fail('set either "program" or "module", not both');
  if (!program && !module) {
    fail('it has no "program" (a Python file or an executable, e.g. "${file}") and no "module" (run with python -m). Set one of them.');
  }

  if (remote) return remoteTarget(remote);

  // The interpreter: only needed for Python (a .py program or a module).
  const pythonFor = (): string => {
    const py = str(c.python, 'python') ?? (host.defaultPython.trim() || 'python3');
    const attr = c.python !== undefined && c.python !== null ? '"python"' : 'the setting "strata.pythonPath"';
    if (py.includes('/')) {
      const abs = path.resolve(cwd, py);
      if (!host.exists(abs)) fail(`the Python interpreter was not found: ${abs} (${attr})`);
      if (!host.isFile(abs) || !host.isExecutable(abs)) fail(`the Python interpreter is not an executable file: ${abs} (${attr})`);
      return abs;
    }
    if (!host.which(py, envPath)) fail(`the Python interpreter "${py}" is not on PATH (${attr}). Set "python" to its full path.`);
    return py;
  };

  let target: string[];
  let label: string;
  if (module) {
    if (!/^[A-Za-z_][\w.]*$/.test(module)) fail(`"module" is not a Python module name: "${module}"`);
    target = [pythonFor(), '-m', module, ...args];
    label = module;
  } else {
    const prog = program!;
    const abs = path.resolve(cwd, prog);
    if (!host.exists(abs)) {
      // A bare command name (e.g. "python3" or "./run.sh" typo) is looked up on PATH.
      if (!prog.includes('/') && host.which(prog, envPath)) {
        target = [prog, ...args];
        label = prog;
        return done();
      }
      fail(`"program" was not found: ${abs}`);
    }
    if (!host.isFile(abs)) fail(`"program" is not a file: ${abs}`);
    label = path.basename(abs);
    if (/\.pyw?$/i.test(abs)) target = [pythonFor(), abs, ...args];
    else if (host.isExecutable(abs)) target = [abs, ...args];
    else fail(`"program" is neither a Python file (.py) nor an executable: ${abs}`);
  }
  return done();

  /** On another host nothing can be checked here (the remote run checks program, interpreter,
   *  folder and CLI before it starts). Local paths under a pathMap folder (`${file}`, the
   *  workspace folder as `cwd`) are translated to the host's. */
  function remoteTarget(r: RemoteLaunch): ResolvedLaunch {
    const rcwd = r.cwd ?? toRemote(cwd, r.pathMap) ?? '';
    const py = str(c.python, 'python') ?? 'python3';
    let target: string[];
    let label: string;
    if (module) {
      if (!/^[A-Za-z_][\w.]*$/.test(module)) fail(`"module" is not a Python module name: "${module}"`);
      target = [py, '-m', module, ...args];
      label = module;
    } else {
      // Relative: to the folder on the host, like a local program is to `cwd`.
      const prog = path.isAbsolute(program!) ? toRemote(program!, r.pathMap) ?? program! : program!;
      label = path.posix.basename(prog);
      target = /\.pyw?$/i.test(prog) ? [py, prog, ...args] : [prog, ...args];
    }
    return { target, cwd: rcwd, env, periodMs, wall: c.wall === true ? true : c.wall === false ? false : undefined, pcSampling, pcSamplingPeriod, label, remote: { ...r, cwd: rcwd || undefined } };
  }

  function done(): ResolvedLaunch {
    return { target, cwd, env, periodMs, wall: c.wall === true ? true : c.wall === false ? false : undefined, pcSampling, pcSamplingPeriod, label };
  }
}
