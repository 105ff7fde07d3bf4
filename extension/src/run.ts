// "Strata: Run and Profile": runs the target under `strata record` with a cancellable progress
// notification, streams its output to the output channel, and returns the profile path.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { buildRecordArgs, describeExit, formatCommandLine, profileFileName, resolveTarget } from './command';
import { resolveCliPath } from './paths';

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

function workspaceFolderFor(file: string | undefined): vscode.WorkspaceFolder | undefined {
  if (file) {
    const f = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file));
    if (f) return f;
  }
  return vscode.workspace.workspaceFolders?.[0];
}

/** Builds the command from the settings and the active editor, runs it, returns the result.
 *  Throws (with a message for the user) when nothing can be run. */
export async function runAndProfile(ctx: RunContext, fileArg?: vscode.Uri, lastFile?: string): Promise<RunResult | undefined> {
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
  const cli = resolveCliPath(cfg.get<string>('cliPath'), ctx.extensionDir, {
    exists: (p) => fs.existsSync(p), home: os.homedir(), workspaceFolder: folder?.uri.fsPath, env: process.env,
  });
  if (path.isAbsolute(cli) && !fs.existsSync(cli)) {
    throw new Error(`the Strata CLI was not found at ${cli}. Set "strata.cliPath" or build Strata (scripts/build.sh).`);
  }
  let outDir = (cfg.get<string>('outputDirectory', '') ?? '').trim();
  if (outDir) {
    if (folder) outDir = outDir.replace(/\$\{workspaceFolder\}/g, folder.uri.fsPath);
    outDir = path.resolve(cwd, outDir);
  } else {
    outDir = folder ? path.join(folder.uri.fsPath, '.strata') : path.join(os.tmpdir(), 'strata');
  }
  fs.mkdirSync(outDir, { recursive: true });
  const output = path.join(outDir, profileFileName(target, new Date()));
  const args = buildRecordArgs(target, {
    output, periodMs: cfg.get<number>('periodMs', 0), wall: cfg.get<boolean>('wall', false),
  });
  return runRecord(ctx, cli, args, cwd, output, path.basename(target[1] ?? target[0]));
}

function runRecord(ctx: RunContext, cli: string, args: string[], cwd: string, output: string, label: string): Promise<RunResult> {
  const log = ctx.log;
  log.show(true);
  log.appendLine('');
  log.appendLine(`$ cd ${formatCommandLine([cwd])}`);
  log.appendLine(`$ ${formatCommandLine([cli, ...args])}`);
  return Promise.resolve(vscode.window.withProgress<RunResult>({
    location: vscode.ProgressLocation.Notification,
    title: `Strata: profiling ${label}`,
    cancellable: true,
  }, (progress, token) => new Promise<RunResult>((resolve) => {
    const started = Date.now();
    let cancelled = false;
    let lastError: string | undefined;
    let errTail = '';
    // Its own process group: the last resort (SIGKILL) takes the target down with strata.
    const child = spawn(cli, args, {
      cwd, env: { ...process.env, PYTHONUNBUFFERED: '1' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
    });
    const killGroup = (sig: NodeJS.Signals) => {
      try { if (child.pid) process.kill(-child.pid, sig); } catch { child.kill(sig); }
    };
    running.add(killGroup);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (s: string) => log.append(s));
    child.stderr.on('data', (s: string) => {
      log.append(s);
      errTail = (errTail + s).slice(-8192);
      for (const line of errTail.split('\n')) {
        if (line.startsWith('strata: ') && !line.startsWith('strata: target ') && !line.startsWith('strata: profile written')) {
          lastError = line.slice('strata: '.length);
        }
      }
    });
    const timers: NodeJS.Timeout[] = [];
    const tick = setInterval(() => {
      const s = Math.round((Date.now() - started) / 1000);
      progress.report({ message: cancelled ? `stopping… (${s} s)` : `running for ${s} s` });
    }, 1000);
    const cancelSub = token.onCancellationRequested(() => {
      if (cancelled) return;
      cancelled = true;
      log.appendLine('[strata] cancelled: sending SIGINT (the profile is written up to this point)');
      child.kill('SIGINT');
      timers.push(setTimeout(() => { log.appendLine('[strata] still running: sending SIGTERM'); child.kill('SIGTERM'); }, 5000));
      timers.push(setTimeout(() => { log.appendLine('[strata] still running: sending SIGKILL to its process group'); killGroup('SIGKILL'); }, 10000));
    });
    let settled = false;
    const finish = (code: number | null, signal: string | null, spawnError?: Error) => {
      if (settled) return;
      settled = true;
      running.delete(killGroup);
      clearInterval(tick);
      for (const t of timers) clearTimeout(t);
      cancelSub.dispose();
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      if (spawnError) {
        const msg = (spawnError as NodeJS.ErrnoException).code === 'ENOENT'
          ? `the Strata CLI "${cli}" was not found. Set "strata.cliPath" or build Strata (scripts/build.sh).`
          : `cannot run ${cli}: ${spawnError.message}`;
        log.appendLine(`[strata] ${msg}`);
        resolve({ code: null, signal: null, how: 'could not be started', cancelled, lastError: msg });
        return;
      }
      const how = describeExit(code, signal);
      log.appendLine(signal
        ? `[strata] strata record ${how} after ${secs} s`
        : `[strata] finished after ${secs} s: the target ${how} (exit code ${code})`);
      resolve({ profile: fs.existsSync(output) ? output : undefined, code, signal, how, cancelled, lastError });
    };
    child.on('error', (e) => finish(null, null, e));
    child.on('close', (code, signal) => finish(code, signal));
    // 'close' waits for the output pipes, which a surviving grandchild may hold open.
    child.on('exit', (code, signal) => { timers.push(setTimeout(() => finish(code, signal), 2000)); });
  })));
}
