// Recorded source paths of remote runs → local files, for jump to source and diagnostics. The
// pathMaps come from the remote runs of this session and from the `strata` launch
// configurations' `remote.pathMap` (a profile recorded in an earlier session, opened later).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { strataLaunchConfigs } from '../launch/provider';
import { toLocal, trimSlashes, type PathMapEntry } from './pathMap';

const fromRuns: PathMapEntry[] = [];

/** Keeps the (resolved) pathMap of a remote run for the rest of the session. */
export function rememberPathMap(entries: readonly PathMapEntry[]): void {
  for (const e of entries) {
    if (!fromRuns.some((x) => x.remote === e.remote && x.local === e.local)) fromRuns.push(e);
  }
}

/** launch.json as written: the variables a pathMap's local side uses are substituted here. */
function substitute(s: string, folder: vscode.WorkspaceFolder | undefined): string {
  return s.replace(/\$\{(workspaceFolder(?::([^}]+))?|workspaceFolderBasename|userHome|env:([^}]+))\}/g, (all, name: string, named?: string, env?: string) => {
    if (env) return process.env[env] ?? '';
    if (name === 'userHome') return os.homedir();
    const f = named ? vscode.workspace.workspaceFolders?.find((w) => w.name === named) : folder;
    if (!f) return all;
    return name === 'workspaceFolderBasename' ? f.name : f.uri.fsPath;
  });
}

function fromLaunchConfigs(): PathMapEntry[] {
  const out: PathMapEntry[] = [];
  for (const { folder, config } of strataLaunchConfigs()) {
    const remote = config.remote;
    if (!remote || typeof remote !== 'object') continue;
    const map = (remote as { pathMap?: unknown }).pathMap;
    if (!map || typeof map !== 'object' || Array.isArray(map)) continue;
    for (const [r, l] of Object.entries(map as Record<string, unknown>)) {
      if (!r.startsWith('/') || typeof l !== 'string' || !l.trim()) continue;
      const local = substitute(l.trim(), folder);
      if (local.includes('${')) continue;   // a variable only VS Code's launch knows
      out.push({ remote: trimSlashes(r), local: trimSlashes(path.resolve(folder?.uri.fsPath ?? process.cwd(), local)) });
    }
  }
  return out;
}

/** The local file of a path recorded on a remote host, when a pathMap covers it and the file
 *  exists here; undefined otherwise (the caller goes on with the recorded path). */
export function localSourceFor(recorded: string): string | undefined {
  const mapped = toLocal(recorded, [...fromRuns, ...fromLaunchConfigs()]);
  return mapped && fs.existsSync(mapped) ? mapped : undefined;
}
