// Running a target under `strata record`: where the CLI and the profile are, the environment,
// a cancellable progress notification, the output live in a terminal of its own (and in the
// "Strata" output channel), and the result (profile path, how the target ended).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { buildRecordArgs, describeExit, formatCommandLine, profileFileName, resolveTarget, type PcSamplingMode } from './recordCommand';
import type { ResolvedLaunch } from './launch/config';
import { RunTerminal } from './launch/terminal';
import { resolveCliPath } from './nativePaths';
import { remoteCommand, type RemoteSession } from './remote/remoteRun';

export interface RunResult {
  profile?: string;           // the profile file, when one was written
  code: number | null;
  signal: string | null;
  how: string;                // how the target ended, in words
  cancelled: boolean;
  lastError?: string;         // last "strata: ..." line of stderr
}

/** Runs in progress (their process-group killers), ended when the extension deactivates. */
const running = new Set<(sig: NodeJS.Signals) => void>();

export function stopAllRuns(): void {
  for (const kill of running) kill('SIGINT');
}

export interface RunContext {
  extensionDir: string;
  log: vscode.OutputChannel;
}

/** One `strata record` run, ready to start. */
export interface RecordSpec {
  cli: string;
  args: string[];                              // after the CLI: record -o F ... -- CMD...
  cwd: string;
  env: Record<string, string | undefined>;     // changes to the extension host's environment
  output: string;                              // the profile to be written
  label: string;                               // "train_loop.py", for titles
  remote?: RemoteSession;                      // set: cli is ssh, the run is on another host
}

function workspaceFolderFor(file: string | undefined): vscode.WorkspaceFolder | undefined {
  if (file) {
    const f = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file));
    if (f) return f;
  }
  return vscode.workspace.workspaceFolders?.[0];
}

/** The command from the settings and the active editor (strata.command, else the active
 *  Python file). Throws (with a message for the user) when nothing can be run. */
export async function specFromSettings(ctx: RunContext, fileArg?: vscode.Uri, lastFile?: string): Promise<RecordSpec> {
  const cfg = vscode.workspace.getConfiguration('strata');
  let activeFile: string | undefined;
  if (fileArg && fileArg.scheme === 'file') {
    activeFile = fileArg.fsPath;
  } else {
    const doc = vscode.window.activeTextEditor?.document;
    if (doc && doc.uri.scheme === 'file') activeFile = doc.uri.fsPath;
    // From the profile viewer (a webview, no text editor): the file edited last.
    else if (!vscode.window.activeTextEditor) activeFile = lastFile;
  }
  // Save the file being profiled so the run uses what the user sees.
  const openDoc = activeFile ? vscode.workspace.textDocuments.find((d) => d.uri.fsPath === activeFile) : undefined;
  if (openDoc?.isDirty) await openDoc.save();

  const folder = workspaceFolderFor(activeFile);
  const target = resolveTarget(
    { command: cfg.get<unknown>('command'), pythonPath: cfg.get<string>('pythonPath', 'python3') },
    activeFile,
    { file: activeFile, workspaceFolder: folder?.uri.fsPath },
  );
  const cwd = folder?.uri.fsPath ?? (activeFile ? path.dirname(activeFile) : os.homedir());
  return buildSpec(ctx, folder, cwd, target, {
    periodMs: cfg.get<number>('periodMs', 0), wall: cfg.get<boolean>('wall', false), env: {}, ...pcSamplingSettings(cfg),
    label: path.basename(target[1] ?? target[0]),
  });
}

/** The run of a checked `strata` launch configuration (launch/config.ts); its periodMs / wall
 *  override the settings. */
export function specFromLaunch(ctx: RunContext, folder: vscode.WorkspaceFolder | undefined, launch: ResolvedLaunch): RecordSpec {
  const cfg = vscode.workspace.getConfiguration('strata', folder?.uri);
  if (launch.remote) {
    // On another host: ssh runs there what `strata record` would run here; the profile is
    // copied back into this workspace's profiles folder (remote/remoteRun.ts).
    const local = folder?.uri.fsPath ?? os.homedir();
    const output = path.join(profilesFolder(cfg, folder, local), profileFileName(launch.target, new Date()));
    const gpu: Record<string, string> = cfg.get<boolean>('gpu.callPaths', true) === false ? { STRATA_GPU_CALLPATHS: '0' } : {};
    Object.assign(gpu, torchEnv(cfg));
    // The host's `strata record` reads the same settings from its environment.
    const pcs = { ...pcSamplingSettings(cfg), ...definedOnly({ pcSampling: launch.pcSampling, pcSamplingPeriod: launch.pcSamplingPeriod }) };
    if (pcs.pcSampling && pcs.pcSampling !== 'off') {
      gpu.STRATA_PC_SAMPLING = pcs.pcSampling;
      if (pcs.pcSamplingPeriod !== undefined) gpu.STRATA_PC_SAMPLING_PERIOD = String(pcs.pcSamplingPeriod);
    }
    const { cli, args, remote } = remoteCommand(launch.remote, {
      target: launch.target, env: { ...gpu, ...launch.env },
      periodMs: launch.periodMs ?? cfg.get<number>('periodMs', 0), wall: launch.wall ?? cfg.get<boolean>('wall', false),
    });
    return { cli, args, cwd: local, env: {}, output, label: launch.label, remote };
  }
  return buildSpec(ctx, folder, launch.cwd, launch.target, {
    periodMs: launch.periodMs ?? cfg.get<number>('periodMs', 0),
    wall: launch.wall ?? cfg.get<boolean>('wall', false),
    env: launch.env,
    label: launch.label,
    ...pcSamplingSettings(cfg),
    ...definedOnly({ pcSampling: launch.pcSampling, pcSamplingPeriod: launch.pcSamplingPeriod }),
  });
}

/** strata.gpu.pcSampling / strata.gpu.pcSamplingPeriod (a launch configuration overrides them). */
function pcSamplingSettings(cfg: vscode.WorkspaceConfiguration): { pcSampling?: PcSamplingMode; pcSamplingPeriod?: number } {
  const mode = cfg.get<string>('gpu.pcSampling', 'off');
  const period = cfg.get<number | null>('gpu.pcSamplingPeriod', null);
  return {
    pcSampling: mode === 'continuous' || mode === 'serialized' ? mode : 'off',
    ...(typeof period === 'number' ? { pcSamplingPeriod: period } : {}),
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function buildSpec(ctx: RunContext, folder: vscode.WorkspaceFolder | undefined, cwd: string, target: string[], o: {
  periodMs: number; wall: boolean; env: Record<string, string | undefined>; label: string;
  pcSampling?: PcSamplingMode; pcSamplingPeriod?: number;
}): RecordSpec {
  const cfg = vscode.workspace.getConfiguration('strata', folder?.uri);
  const cli = resolveCliPath(cfg.get<string>('cliPath'), ctx.extensionDir, {
    exists: (p) => fs.existsSync(p), home: os.homedir(), workspaceFolder: folder?.uri.fsPath, env: process.env,
  });
  if (path.isAbsolute(cli) && !fs.existsSync(cli)) {
    throw new Error(`the Strata CLI was not found at ${cli}. Set "strata.cliPath" or build Strata (scripts/build.sh).`);
  }
  // An installer that dropped the executable bit of the packaged CLI (zip extraction): restore it.
  if (cli.startsWith(path.join(ctx.extensionDir, 'dist', 'bin') + path.sep)) {
    try { fs.accessSync(cli, fs.constants.X_OK); } catch { try { fs.chmodSync(cli, 0o755); } catch { /* reported by spawn */ } }
  }
  const output = path.join(profilesFolder(cfg, folder, cwd), profileFileName(target, new Date()));
  const args = buildRecordArgs(target, {
    output, periodMs: o.periodMs, wall: o.wall, pcSampling: o.pcSampling, pcSamplingPeriod: o.pcSamplingPeriod,
  });
  return { cli, args, cwd, env: { ...gpuEnv(cfg), ...torchEnv(cfg), ...o.env }, output, label: o.label };
}

/** Where new profiles go (strata.outputDirectory, else <workspace>/.strata); created. */
function profilesFolder(cfg: vscode.WorkspaceConfiguration, folder: vscode.WorkspaceFolder | undefined, cwd: string): string {
  let outDir = (cfg.get<string>('outputDirectory', '') ?? '').trim();
  if (outDir) {
    if (folder) outDir = outDir.replace(/\$\{workspaceFolder\}/g, folder.uri.fsPath);
    outDir = path.resolve(cwd, outDir);
  } else {
    outDir = folder ? path.join(folder.uri.fsPath, '.strata') : path.join(os.tmpdir(), 'strata');
  }
  fs.mkdirSync(outDir, { recursive: true });
  return outDir;
}

/** GPU settings the runtime reads from its environment (profiler_runtime/src/gpu). */
function gpuEnv(cfg: vscode.WorkspaceConfiguration): Record<string, string> {
  const env: Record<string, string> = {};
  if (cfg.get<boolean>('gpu.callPaths', true) === false) env.STRATA_GPU_CALLPATHS = '0';
  const cupti = (cfg.get<string>('gpu.cuptiPath', '') ?? '').trim();
  if (cupti) env.STRATA_CUPTI_PATH = cupti;
  return env;
}

/** PyTorch settings the runtime reads from its environment (profiler_runtime/src/ops). */
function torchEnv(cfg: vscode.WorkspaceConfiguration): Record<string, string> {
  const operators = cfg.get<string>('torch.operators', 'auto');
  return operators === 'frames' || operators === 'callbacks' ? { STRATA_OPERATORS: operators } : {};
}

/** Ended terminals of earlier runs, replaced by the next run's. */
const oldTerminals = new Set<RunTerminal>();

/** Runs `strata record` with a cancellable progress notification; the output goes live to a
 *  terminal and to the output channel. Resolves when the run is over (never rejects). */
export function runRecord(ctx: RunContext, spec: RecordSpec): Promise<RunResult> {
  const { cli, args, cwd, output, label } = spec;
  const log = ctx.log;
  log.appendLine('');
  log.appendLine(`$ cd ${formatCommandLine([cwd])}`);
  log.appendLine(`$ ${formatCommandLine([cli, ...args])}`);
  for (const t of oldTerminals) t.dispose();
  oldTerminals.clear();
  let interrupt: () => void = () => undefined;
  const remote = spec.remote;
  const term = new RunTerminal(`Strata: ${label}${remote ? ` @ ${remote.host}` : ''}`, () => interrupt());
  if (remote) {
    term.note(`$ ${remote.display}`);
  } else {
    term.note(`$ cd ${formatCommandLine([cwd])}`);
    term.note(`$ ${formatCommandLine([cli, ...args])}`);
  }
  term.show();
  const env: NodeJS.ProcessEnv = { ...process.env, PYTHONUNBUFFERED: '1' };
  for (const [k, v] of Object.entries(spec.env)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return Promise.resolve(vscode.window.withProgress<RunResult>({
    location: vscode.ProgressLocation.Notification,
    title: `Strata: profiling ${label}${remote ? ` on ${remote.host}` : ''}`,
    cancellable: true,
  }, (progress, token) => new Promise<RunResult>((resolve) => {
    const started = Date.now();
    let cancelled = false;
    let lastError: string | undefined;
    let errTail = '';
    // Its own process group: the last resort (SIGKILL) takes the target down with strata.
    // A remote run reads its stdin: Cancel types Ctrl+C into the host's terminal.
    const child = spawn(cli, args, { cwd, env, stdio: [remote ? 'pipe' : 'ignore', 'pipe', 'pipe'], detached: true });
    child.stdin?.on('error', () => { /* ssh gone: the close event reports it */ });
    const killGroup = (sig: NodeJS.Signals) => {
      try { if (child.pid) process.kill(-child.pid, sig); } catch { child.kill(sig); }
    };
    running.add(killGroup);
    child.stdout!.setEncoding('utf8');
    child.stderr!.setEncoding('utf8');
    const scan = (s: string) => {
      errTail = (errTail + s).slice(-8192);
      for (const raw of errTail.split('\n')) {
        const line = raw.replace(/\r$/, '');   // a remote pty ends lines with CR LF
        if (line.startsWith('strata: ') && !line.startsWith('strata: target ') && !line.startsWith('strata: profile written')) {
          lastError = line.slice('strata: '.length);
        }
      }
    };
    // Through a remote pty, stdout and stderr arrive together on stdout.
    child.stdout!.on('data', (s: string) => { log.append(s); term.write(s); if (remote) scan(s); });
    child.stderr!.on('data', (s: string) => { log.append(s); term.write(s); scan(s); });
    const timers: NodeJS.Timeout[] = [];
    const tick = setInterval(() => {
      const s = Math.round((Date.now() - started) / 1000);
      progress.report({ message: cancelled ? `stopping… (${s} s)` : `running for ${s} s` });
    }, 1000);
    const cancel = () => {
      if (cancelled || settled) return;
      cancelled = true;
      const note = '[strata] cancelled: sending SIGINT (the profile is written up to this point)';
      log.appendLine(note);
      term.note(note);
      if (remote) remote.interrupt(child);
      else child.kill('SIGINT');
      // Remote: SIGTERM ends ssh, the host's terminal hangs up, and strata forwards SIGHUP.
      timers.push(setTimeout(() => { log.appendLine('[strata] still running: sending SIGTERM'); child.kill('SIGTERM'); }, 5000));
      timers.push(setTimeout(() => { log.appendLine('[strata] still running: sending SIGKILL to its process group'); killGroup('SIGKILL'); }, 10000));
    };
    interrupt = cancel;
    const cancelSub = token.onCancellationRequested(cancel);
    let settled = false;
    const finish = (code: number | null, signal: string | null, spawnError?: Error) => {
      if (settled) return;
      settled = true;
      running.delete(killGroup);
      clearInterval(tick);
      for (const t of timers) clearTimeout(t);
      cancelSub.dispose();
      oldTerminals.add(term);
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      if (spawnError) {
        const msg = remote ? remote.spawnError(spawnError) : (spawnError as NodeJS.ErrnoException).code === 'ENOENT'
          ? `the Strata CLI "${cli}" was not found. Set "strata.cliPath" or build Strata (scripts/build.sh).`
          : `cannot run ${cli}: ${spawnError.message}`;
        log.appendLine(`[strata] ${msg}`);
        term.end(`[strata] ${msg}`);
        resolve({ code: null, signal: null, how: 'could not be started', cancelled, lastError: msg });
        return;
      }
      const how = describeExit(code, signal);
      // A remote run: ssh or the host's set-up may have failed before the program ran.
      const failure = remote?.describe(code, errTail);
      if (failure) lastError = failure;
      const summary = failure ? `[strata] ${failure}` : signal
        ? `[strata] strata record ${how} after ${secs} s`
        : `[strata] finished after ${secs} s: the program ${how}${code ? ` (exit code ${code})` : ''}`;
      log.appendLine(summary);
      const conclude = () => {
        const profile = fs.existsSync(output) ? output : undefined;
        term.end(`${summary}${cancelled ? ' (cancelled)' : ''}; ${profile ? `profile: ${profile}` : 'no profile was written'}`);
        resolve({ profile, code, signal, how, cancelled, lastError });
      };
      // ssh or the host's set-up failed: there is nothing to copy back.
      if (!remote || failure) { conclude(); return; }
      // Copy the profile back (and remove it on the host) also after a cancel or a crash: a run
      // stopped half-way may have left one.
      const note = (line: string) => { log.appendLine(line); term.note(line); };
      void remote.fetch(output, note).then((why) => {
        if (why) { note(`[strata] ${why}`); lastError ??= why; }
        conclude();
      });
    };
    child.on('error', (e) => finish(null, null, e));
    child.on('close', (code, signal) => finish(code, signal));
    // 'close' waits for the output pipes, which a surviving grandchild may hold open.
    child.on('exit', (code, signal) => { timers.push(setTimeout(() => finish(code, signal), 2000)); });
  })));
}
