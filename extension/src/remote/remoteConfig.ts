// The `remote` attribute of a `strata` launch configuration: run the target on another host over
// ssh. Checked up front, like the rest of the configuration (launch/config.ts), so a typo gives
// one line naming the attribute instead of an ssh failure later. Pure: unit-tested.
import * as path from 'node:path';
import { trimSlashes, type PathMapEntry } from './pathMap';

/** The checked `remote` attribute. */
export interface RemoteLaunch {
  host: string;               // ssh destination: [user@]host or a Host alias of ~/.ssh/config
  port?: number;
  identityFile?: string;      // local private key (ssh -i)
  strata: string;             // the CLI on the host (a name is looked up on the host's PATH)
  cwd?: string;               // working folder on the host; undefined: the login folder
  sshOptions: string[];       // extra `ssh -o Name=value`
  connectTimeout: number;     // seconds (ssh ConnectTimeout)
  pathMap: PathMapEntry[];    // host folder → local folder, for sources and `program`
}

export const DEFAULT_CONNECT_TIMEOUT = 10;

export interface RemoteHost {
  exists(p: string): boolean;
  defaultCwd: string;         // local relative paths (identityFile, pathMap values) start here
}

/** Checks `value` (a string "user@host" or an object); `fail` throws the configuration's error. */
export function resolveRemote(value: unknown, host: RemoteHost, fail: (msg: string) => never): RemoteLaunch {
  const obj: Record<string, unknown> = typeof value === 'string' ? { host: value }
    : value && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown>
      : fail('"remote" must be an ssh destination ("user@gpu-box") or an object with "host"');
  const str = (k: string): string | undefined => {
    const v = obj[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') fail(`"remote.${k}" must be a string`);
    return (v as string).trim() || undefined;
  };

  const dest = str('host') ?? fail('"remote.host" is missing: set the ssh destination, e.g. "user@gpu-box"');
  // A leading "-" would be read by ssh as an option (e.g. -oProxyCommand=...).
  if (/\s/.test(dest) || dest.startsWith('-') || dest.endsWith('@')) {
    fail(`"remote.host" is not an ssh destination: "${dest}" (expected [user@]host)`);
  }

  let port: number | undefined;
  if (obj.port !== undefined && obj.port !== null && obj.port !== '') {
    const p = typeof obj.port === 'number' ? obj.port : typeof obj.port === 'string' && /^\d+$/.test(obj.port.trim()) ? Number(obj.port) : NaN;
    if (!Number.isInteger(p) || p < 1 || p > 65535) fail(`"remote.port" must be a port number between 1 and 65535 (got ${JSON.stringify(obj.port)})`);
    port = p;
  }

  let identityFile = str('identityFile');
  // "~/..." is left to ssh, which expands it itself; other paths are checked here.
  if (identityFile && !identityFile.startsWith('~')) {
    identityFile = path.resolve(host.defaultCwd, identityFile);
    if (!host.exists(identityFile)) fail(`"remote.identityFile" was not found: ${identityFile}`);
  }

  const strata = str('strata') ?? 'strata';
  if (strata.startsWith('-')) fail(`"remote.strata" must be the path of the strata CLI on the host (got "${strata}")`);

  const cwd = str('cwd');

  const sshOptions: string[] = [];
  if (obj.sshOptions !== undefined && obj.sshOptions !== null) {
    if (!Array.isArray(obj.sshOptions)) fail('"remote.sshOptions" must be an array of "Name=value" strings (ssh -o)');
    for (const o of obj.sshOptions as unknown[]) {
      if (typeof o !== 'string' || !/^[A-Za-z][A-Za-z0-9]*\s*[= ]\s*\S/.test(o.trim())) {
        fail(`"remote.sshOptions": ${JSON.stringify(o)} is not an ssh option "Name=value"`);
      }
      // Without BatchMode a password or host-key prompt would wait forever for input no one sees.
      if (/^BatchMode\b/i.test((o as string).trim())) fail('"remote.sshOptions": BatchMode cannot be changed (a prompt would hang the run)');
      sshOptions.push((o as string).trim());
    }
  }

  let connectTimeout = DEFAULT_CONNECT_TIMEOUT;
  if (obj.connectTimeout !== undefined && obj.connectTimeout !== null) {
    const t = Number(obj.connectTimeout);
    if (!Number.isInteger(t) || t < 1 || t > 300) fail('"remote.connectTimeout" must be a whole number of seconds between 1 and 300');
    connectTimeout = t;
  }

  const pathMap: PathMapEntry[] = [];
  if (obj.pathMap !== undefined && obj.pathMap !== null) {
    if (typeof obj.pathMap !== 'object' || Array.isArray(obj.pathMap)) {
      fail('"remote.pathMap" must be an object of "<folder on the host>": "<local folder>"');
    }
    for (const [r, l] of Object.entries(obj.pathMap as Record<string, unknown>)) {
      if (!r.startsWith('/')) fail(`"remote.pathMap": "${r}" must be an absolute folder on the host`);
      if (typeof l !== 'string' || !l.trim()) fail(`"remote.pathMap": the local folder of "${r}" must be a non-empty string`);
      pathMap.push({ remote: trimSlashes(r), local: trimSlashes(path.resolve(host.defaultCwd, (l as string).trim())) });
    }
  }

  return { host: dest, port, identityFile, strata, cwd, sshOptions, connectTimeout, pathMap };
}

/** "user@gpu-box" or "user@gpu-box:2222", for messages. */
export function hostLabel(r: Pick<RemoteLaunch, 'host' | 'port'>): string {
  return r.port ? `${r.host}:${r.port}` : r.host;
}
