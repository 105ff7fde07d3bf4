// What a picked file is and which files go with it. "Open Region Trace" takes a region buffer
// (`.bin`, read back after a launch) or a JSON: a decoded trace (`strata regions --format json`)
// or a harness sidecar (`{"names": "1=load;...", "clock_cycles_per_ns": 1.98}`, the buffer next
// to it). Names for a buffer come from `<stem>.names` or the sidecar `<stem>.json`; a calibration
// buffer (`<stem>.calibration.bin`, else `calibration.bin` in the same folder) makes the CLI
// replay with the measured cost per record. Pure (the
// file system is injected), unit-tested.
import * as path from 'node:path';

export type JsonKind = 'trace' | 'sidecar' | 'other';

/** A decoded trace has "lanes" and "intervals" arrays; a sidecar has a "names" string. */
export function classifyJson(value: unknown): JsonKind {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'other';
  const o = value as Record<string, unknown>;
  if (Array.isArray(o.lanes) && Array.isArray(o.intervals)) return 'trace';
  if (typeof o.names === 'string') return 'sidecar';
  return 'other';
}

/** x.bin → x; x.regions.json → x; x.json → x. */
export function stemOf(file: string): string {
  const base = file.replace(/\.json$/i, '').replace(/\.regions$/i, '');
  return base === file ? file.replace(/\.[^./\\]*$/, '') : base;
}

export interface TraceFiles {
  /** The region buffer to decode (or to export from). */
  buffer?: string;
  /** An already decoded trace (JSON). */
  decoded?: string;
  /** Where the names (and maybe the clock rate) come from. */
  namesFile?: string;
  /** A CalibrationKernel buffer for `--calibration`. */
  calibration?: string;
}

export interface FileAccess {
  exists(p: string): boolean;
  /** Parsed JSON of `p`, or undefined when it is not JSON. */
  json(p: string): unknown;
}

/** The files for a picked path. Throws an Error with a message for the user. */
export function traceFilesFor(picked: string, fsx: FileAccess): TraceFiles {
  const stem = stemOf(picked);
  const namesFor = (skip: string): string | undefined => {
    const names = `${stem}.names`;
    if (fsx.exists(names)) return names;
    const side = `${stem}.json`;
    if (side !== skip && fsx.exists(side) && classifyJson(fsx.json(side)) === 'sidecar') return side;
    return undefined;
  };
  const calibrationFor = (buffer: string): string | undefined => {
    const own = `${stemOf(buffer)}.calibration.bin`;
    const shared = path.join(path.dirname(buffer), 'calibration.bin');
    return [own, shared].find((c) => c !== buffer && fsx.exists(c));
  };
  const withCalibration = (t: TraceFiles): TraceFiles => {
    const c = t.buffer ? calibrationFor(t.buffer) : undefined;
    return c ? { ...t, calibration: c } : t;
  };
  if (!/\.json$/i.test(picked)) return withCalibration({ buffer: picked, namesFile: namesFor(picked) });
  const value = fsx.json(picked);
  const kind = classifyJson(value);
  const bin = `${stem}.bin`;
  if (kind === 'trace') return withCalibration({ decoded: picked, buffer: fsx.exists(bin) ? bin : undefined, namesFile: namesFor(picked) });
  if (kind === 'sidecar') {
    if (!fsx.exists(bin)) throw new Error(`${path.basename(picked)} holds region names, but its buffer ${path.basename(bin)} is not next to it.`);
    return withCalibration({ buffer: bin, namesFile: picked });
  }
  throw new Error(`${path.basename(picked)} is not a region trace: expected a decoded trace ("lanes" and "intervals", from strata regions --format json) or a sidecar with "names".`);
}
