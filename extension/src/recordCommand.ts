// Pure helpers for "Strata: Run and Profile": which command to profile, the `strata record`
// argument list, how to show a command line, how the target ended. No vscode import here, so
// the unit tests run under plain node.

/** Splits a command string like a POSIX shell does for words: whitespace separates, single
 *  quotes keep everything literally, double quotes keep spaces (\" \\ \$ \` escape inside),
 *  a backslash outside quotes escapes the next character. No expansion of any kind.
 *  Throws on an unterminated quote. */
export function splitCommandLine(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inWord = false;
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      if (inWord) { out.push(cur); cur = ''; inWord = false; }
      i++;
    } else if (c === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) throw new Error('unterminated single quote in command');
      cur += s.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      inWord = true;
      i++;
      let closed = false;
      while (i < s.length) {
        const d = s[i];
        if (d === '"') { closed = true; i++; break; }
        if (d === '\\' && i + 1 < s.length && '"\\$`\n'.includes(s[i + 1])) {
          if (s[i + 1] !== '\n') cur += s[i + 1];
          i += 2;
          continue;
        }
        cur += d;
        i++;
      }
      if (!closed) throw new Error('unterminated double quote in command');
    } else if (c === '\\') {
      if (i + 1 < s.length) {
        if (s[i + 1] !== '\n') { cur += s[i + 1]; inWord = true; }
        i += 2;
      } else {
        i++;
      }
    } else {
      cur += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) out.push(cur);
  return out;
}

/** Quotes one argument for display in a POSIX shell (the output channel shows a command a user
 *  can paste). */
export function shellQuote(arg: string): string {
  if (arg === '') return "''";
  if (/^[A-Za-z0-9_\-+=.,/:@%^]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function formatCommandLine(args: readonly string[]): string {
  return args.map(shellQuote).join(' ');
}

export interface Substitutions {
  file?: string;             // ${file}: the active file
  workspaceFolder?: string;  // ${workspaceFolder}
}

/** Replaces ${file}, ${fileDirname}, ${fileBasename} and ${workspaceFolder} in one argument.
 *  Throws when a variable is used but has no value. */
export function substitute(arg: string, subs: Substitutions): string {
  return arg.replace(/\$\{(file|fileDirname|fileBasename|workspaceFolder)\}/g, (_m, name: string) => {
    const need = (v: string | undefined, what: string): string => {
      if (v === undefined || v === '') throw new Error(`\${${name}} is used in strata.command but there is no ${what}`);
      return v;
    };
    switch (name) {
      case 'file': return need(subs.file, 'active file');
      case 'fileDirname': return dirnameOf(need(subs.file, 'active file'));
      case 'fileBasename': return basenameOf(need(subs.file, 'active file'));
      default: return need(subs.workspaceFolder, 'open workspace folder');
    }
  });
}

function dirnameOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i <= 0 ? (i === 0 ? '/' : '.') : p.slice(0, i);
}
function basenameOf(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

export interface TargetSettings {
  command: unknown;          // strata.command: string | string[] | undefined
  pythonPath: string;        // strata.pythonPath
}

/** The command to profile: strata.command when set (array or string), else the active Python
 *  file with the configured interpreter. Throws an Error with a message for the user. */
export function resolveTarget(settings: TargetSettings, activeFile: string | undefined, subs: Substitutions): string[] {
  const cmd = settings.command;
  let args: string[] | undefined;
  if (Array.isArray(cmd)) {
    if (cmd.some((a) => typeof a !== 'string')) throw new Error('strata.command must be an array of strings or a string');
    if (cmd.length > 0) args = cmd as string[];
  } else if (typeof cmd === 'string') {
    if (cmd.trim() !== '') args = splitCommandLine(cmd);
  } else if (cmd !== undefined && cmd !== null) {
    throw new Error('strata.command must be an array of strings or a string');
  }
  if (args) return args.map((a) => substitute(a, subs));
  if (!activeFile) {
    throw new Error('Open a Python file to profile it, or set "strata.command" to the command to profile.');
  }
  if (!/\.pyw?$/i.test(activeFile)) {
    throw new Error(`The active file is not a Python file (${basenameOf(activeFile)}). Open a Python file, or set "strata.command".`);
  }
  const python = (settings.pythonPath || 'python3').trim() || 'python3';
  return [python, activeFile];
}

export interface RecordOptions {
  output: string;
  periodMs?: number;         // 0 or undefined: the CLI's default
  wall?: boolean;
  pcSampling?: PcSamplingMode;   // GPU PC sampling with stall reasons (undefined/'off': none)
  pcSamplingPeriod?: number;     // 2^N cycles (5..31; 0: CUPTI's default); undefined: the CLI's
}

export type PcSamplingMode = 'off' | 'continuous' | 'serialized';

/** Arguments of `strata record` (without the CLI itself). */
export function buildRecordArgs(target: readonly string[], opts: RecordOptions): string[] {
  if (target.length === 0) throw new Error('nothing to profile: the command is empty');
  const args = ['record', '-o', opts.output];
  if (opts.periodMs !== undefined && Number.isFinite(opts.periodMs) && opts.periodMs > 0) {
    args.push('--period-ms', String(Math.max(1, Math.round(opts.periodMs))));
  }
  if (opts.wall) args.push('--wall');
  if (opts.pcSampling && opts.pcSampling !== 'off') {
    args.push(`--pc-sampling=${opts.pcSampling}`);
    const n = opts.pcSamplingPeriod;
    if (n !== undefined && Number.isInteger(n) && (n === 0 || (n >= 5 && n <= 31))) args.push(`--pc-sampling-period=${n}`);
  }
  args.push('--', ...target);
  return args;
}

const SIGNALS: Record<number, string> = {
  1: 'SIGHUP', 2: 'SIGINT', 3: 'SIGQUIT', 4: 'SIGILL', 5: 'SIGTRAP', 6: 'SIGABRT', 7: 'SIGBUS', 8: 'SIGFPE',
  9: 'SIGKILL', 10: 'SIGUSR1', 11: 'SIGSEGV', 12: 'SIGUSR2', 13: 'SIGPIPE', 14: 'SIGALRM', 15: 'SIGTERM',
};

/** How `strata record` ended, in words. `strata record` passes the target's exit code through
 *  (128 + N when the target died of signal N); `signal` is set when strata itself was killed. */
export function describeExit(code: number | null, signal: string | null): string {
  if (signal) return `was killed by ${signal}`;
  if (code === null) return 'ended for an unknown reason';
  if (code === 0) return 'exited normally';
  if (code > 128 && code < 160) {
    const sig = code - 128;
    return `was killed by signal ${sig}${SIGNALS[sig] ? ` (${SIGNALS[sig]})` : ''}`;
  }
  if (code === 127) return 'could not be started (command not found, exit code 127)';
  return `exited with code ${code}`;
}

/** A file name for a new profile: <stem>-YYYYMMDD-HHMMSS.strata */
export function profileFileName(target: readonly string[], now: Date): string {
  const script = target.find((a, i) => i > 0 && !a.startsWith('-')) ?? target[0] ?? 'profile';
  let stem = basenameOf(script).replace(/\.[^.]*$/, '').replace(/[^A-Za-z0-9_.-]+/g, '_') || 'profile';
  if (stem.length > 40) stem = stem.slice(0, 40);
  const p = (n: number) => String(n).padStart(2, '0');
  const ts = `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}-${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`;
  return `${stem}-${ts}.strata`;
}
