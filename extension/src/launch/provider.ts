// The `strata` launch configuration type. F5 (or "Strata: Run and Profile" with a configuration
// picked) goes through VS Code's debug machinery only for what it does well: reading
// launch.json and substituting ${file}, ${workspaceFolder}, ${env:X}, ... Once the configuration
// is resolved we run the profile with our own runner (progress with Cancel, output in a
// terminal, the viewer at the end) and return undefined, which ends the launch without a debug
// session. A debug adapter would add a debug toolbar and a "debugging" state that mean nothing
// for a recording, and a second place where the run could hang.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LaunchConfigError, resolveLaunch, type LaunchHost, type StrataLaunchConfig } from './config';

export const LAUNCH_TYPE = 'strata';

/** Starts the run of a checked configuration; resolves when it is over. */
export type LaunchRunner = (config: StrataLaunchConfig, folder: vscode.WorkspaceFolder | undefined,
  resolved: ReturnType<typeof resolveLaunch>) => Promise<void>;

export function launchHost(folder: vscode.WorkspaceFolder | undefined): LaunchHost {
  return {
    exists: (p) => fs.existsSync(p),
    isFile: (p) => { try { return fs.statSync(p).isFile(); } catch { return false; } },
    isExecutable: (p) => { try { fs.accessSync(p, fs.constants.X_OK); return true; } catch { return false; } },
    which: (cmd, envPath) => {
      for (const dir of (envPath ?? '').split(path.delimiter)) {
        if (!dir) continue;
        const p = path.join(dir, cmd);
        try { fs.accessSync(p, fs.constants.X_OK); if (fs.statSync(p).isFile()) return p; } catch { /* next */ }
      }
      return undefined;
    },
    defaultPython: vscode.workspace.getConfiguration('strata', folder?.uri).get<string>('pythonPath', 'python3'),
    defaultCwd: folder?.uri.fsPath ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd(),
    baseEnvPath: process.env.PATH,
  };
}

export class StrataConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(private readonly run: LaunchRunner, private readonly log: vscode.OutputChannel) {}

  // No provideDebugConfigurations: "Create a launch.json" takes package.json's
  // initialConfigurations, and VS Code appends what a provider returns to them (the same
  // configuration twice).

  /** F5 without a launch.json (VS Code hands an empty configuration): the active file. */
  resolveDebugConfiguration(_folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration {
    if (!config.type && !config.request && !config.name) {
      return { type: LAUNCH_TYPE, request: 'launch', name: 'Strata: profile the current file', program: '${file}' };
    }
    return config;
  }

  /** Variables are substituted now: check the configuration, start the run, end the launch. */
  resolveDebugConfigurationWithSubstitutedVariables(
    folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration,
  ): undefined {
    const c = config as unknown as StrataLaunchConfig;
    let resolved;
    try {
      resolved = resolveLaunch(c, launchHost(folder));
    } catch (e) {
      const msg = e instanceof LaunchConfigError ? e.message : `launch configuration "${c.name}": ${(e as Error).message}`;
      this.log.appendLine(`[launch] ${msg}`);
      void vscode.window.showErrorMessage(`Strata: ${msg}`, 'Open launch.json').then((pick) => {
        if (pick) void vscode.commands.executeCommand('workbench.action.debug.configure');
      });
      return undefined;
    }
    this.log.appendLine(`[launch] "${c.name}": ${resolved.target.join(' ')} (in ${resolved.cwd})`);
    // Not awaited: VS Code's launch ends now; the run shows its own progress.
    void this.run(c, folder, resolved).catch((e) => void vscode.window.showErrorMessage(`Strata: ${(e as Error).message}`));
    return undefined;
  }
}

/** The `strata` configurations of launch.json, in every workspace folder (and the workspace file). */
export function strataLaunchConfigs(): { folder: vscode.WorkspaceFolder | undefined; config: StrataLaunchConfig }[] {
  const out: { folder: vscode.WorkspaceFolder | undefined; config: StrataLaunchConfig }[] = [];
  const seen = new Set<string>();
  const scan = (folder: vscode.WorkspaceFolder | undefined) => {
    const list = vscode.workspace.getConfiguration('launch', folder?.uri).get<unknown[]>('configurations') ?? [];
    for (const c of list) {
      if (!c || typeof c !== 'object' || (c as StrataLaunchConfig).type !== LAUNCH_TYPE) continue;
      const cfg = c as StrataLaunchConfig;
      const key = `${folder?.uri.toString() ?? ''}\u0000${cfg.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ folder, config: cfg });
    }
  };
  for (const f of vscode.workspace.workspaceFolders ?? []) scan(f);
  if (!vscode.workspace.workspaceFolders?.length) scan(undefined);
  return out;
}
