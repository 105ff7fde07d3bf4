// Remote ↔ local paths of a remote run (`remote.pathMap` of a `strata` launch configuration):
// the profile records paths as they are on the GPU host; the editor needs the user's copy.
// Pure: unit-tested under plain node.

/** One folder on the host and the local folder that holds the same files. */
export interface PathMapEntry {
  remote: string;   // absolute POSIX path on the host, without a trailing slash
  local: string;    // absolute local path, without a trailing slash
}

/** Drops trailing slashes ("/" itself stays). */
export function trimSlashes(p: string): string {
  const t = p.replace(/\/+$/, '');
  return t === '' && p.startsWith('/') ? '/' : t;
}

function under(file: string, folder: string): string | undefined {
  if (folder === '/') return file.startsWith('/') ? file.slice(1) : undefined;
  if (file === folder) return '';
  return file.startsWith(folder + '/') ? file.slice(folder.length + 1) : undefined;
}

function map(file: string, entries: readonly PathMapEntry[], from: 'remote' | 'local', to: 'remote' | 'local'): string | undefined {
  // The longest matching folder wins: {"/srv": A, "/srv/proj": B} maps /srv/proj/x to B/x.
  let best: PathMapEntry | undefined;
  let rest = '';
  for (const e of entries) {
    const r = under(file, e[from]);
    if (r !== undefined && (!best || e[from].length > best[from].length)) { best = e; rest = r; }
  }
  if (!best) return undefined;
  if (rest === '') return best[to];
  return best[to] === '/' ? `/${rest}` : `${best[to]}/${rest}`;
}

/** A path recorded on the host → the local file; undefined when no entry covers it. */
export function toLocal(remoteFile: string, entries: readonly PathMapEntry[]): string | undefined {
  return map(remoteFile, entries, 'remote', 'local');
}

/** A local path (e.g. `${file}` in a remote configuration) → the same file on the host. */
export function toRemote(localFile: string, entries: readonly PathMapEntry[]): string | undefined {
  return map(localFile, entries, 'local', 'remote');
}
