// Where the extension finds its native parts: the N-API addon and the `strata` CLI. Pure
// (file-system checks are injected) so the search order is unit-tested.
//
// Layout: a packaged extension (package-vsix.mjs) carries  dist/native/strata_addon.node,
// dist/bin/strata and dist/lib/ (the runtime, which the CLI finds at ../lib, and libunwind).
// Run from the repository (extension/ inside the Strata repo), it falls back to the repo
// build:  build/addon/Release/strata_addon.node  and  build/bin/strata.
import * as path from 'node:path';

export type Exists = (p: string) => boolean;

export function addonCandidates(extensionDir: string, env: NodeJS.ProcessEnv): string[] {
  const repo = path.dirname(extensionDir);
  const out: string[] = [];
  if (env.STRATA_ADDON) out.push(env.STRATA_ADDON);
  out.push(path.join(extensionDir, 'dist', 'native', 'strata_addon.node'));
  if (env.STRATA_BUILD_DIR) out.push(path.resolve(repo, env.STRATA_BUILD_DIR, 'addon', 'Release', 'strata_addon.node'));
  out.push(path.join(repo, 'build', 'addon', 'Release', 'strata_addon.node'));
  return out;
}

export function findAddon(extensionDir: string, env: NodeJS.ProcessEnv, exists: Exists): { path?: string; searched: string[] } {
  const searched = addonCandidates(extensionDir, env);
  return { path: searched.find(exists), searched };
}

/** The CLI to run: the strata.cliPath setting when set (~ and ${workspaceFolder} expanded),
 *  else the CLI shipped in the extension (dist/bin/strata, or bin/strata), else the repository build
 *  (<repo>/build/bin/strata), else "strata" from PATH. */
export function resolveCliPath(setting: string | undefined, extensionDir: string, opts: {
  exists: Exists; home?: string; workspaceFolder?: string; env?: NodeJS.ProcessEnv;
}): string {
  const s = (setting ?? '').trim();
  if (s) {
    let p = s;
    if (p === '~' || p.startsWith('~/')) p = path.join(opts.home ?? '', p.slice(1));
    if (opts.workspaceFolder) p = p.replace(/\$\{workspaceFolder\}/g, opts.workspaceFolder);
    return p;
  }
  const repo = path.dirname(extensionDir);
  const candidates = [path.join(extensionDir, 'dist', 'bin', 'strata'), path.join(extensionDir, 'bin', 'strata')];
  if (opts.env?.STRATA_BUILD_DIR) candidates.push(path.resolve(repo, opts.env.STRATA_BUILD_DIR, 'bin', 'strata'));
  candidates.push(path.join(repo, 'build', 'bin', 'strata'));
  return candidates.find(opts.exists) ?? 'strata';
}
